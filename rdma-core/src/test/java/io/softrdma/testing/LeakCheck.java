package io.softrdma.testing;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.UnpooledByteBufAllocator;
import java.util.List;

/** Forces Netty's leak detector to look at everything the garbage collector found, then fails on leaks. */
public final class LeakCheck {
    private LeakCheck() {
    }

    /**
     * Runs the garbage collector, lets the leak detector poll its reference queue (it does so on every
     * tracked allocation at PARANOID level), and throws if any leak was reported.
     */
    public static void assertNoLeaks() {
        for (int i = 0; i < 2; i++) {
            System.gc();
            pollDetector();
        }
        List<String> leaks = FailingLeakDetector.drain();
        if (!leaks.isEmpty()) {
            throw new AssertionError(leaks.size() + " Netty buffer leak(s) reported:\n" + String.join("\n\n", leaks));
        }
    }

    private static void pollDetector() {
        try {
            Thread.sleep(5);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        ByteBuf a = PooledByteBufAllocator.DEFAULT.directBuffer(1);
        a.release();
        ByteBuf b = UnpooledByteBufAllocator.DEFAULT.heapBuffer(1);
        b.release();
    }
}
