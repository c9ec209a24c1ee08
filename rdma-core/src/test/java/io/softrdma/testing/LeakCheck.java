package io.softrdma.testing;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.UnpooledByteBufAllocator;
import java.lang.ref.ReferenceQueue;
import java.lang.ref.WeakReference;
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
            collect();
            pollDetector();
        }
        List<String> leaks = FailingLeakDetector.drain();
        if (!leaks.isEmpty()) {
            throw new AssertionError(leaks.size() + " Netty buffer leak(s) reported:\n" + String.join("\n\n", leaks));
        }
    }

    /**
     * Runs the garbage collector and waits until the JVM's reference handler has enqueued a marker that
     * this collection cleared. The handler enqueues each collection's references as one batch, in the
     * order of the collections, so once the marker of the second round is enqueued, every leak record
     * the first round found is in the detector's queue: no fixed pause decides what the check sees.
     */
    private static void collect() {
        ReferenceQueue<Object> queue = new ReferenceQueue<>();
        WeakReference<Object> marker = new WeakReference<>(new Object(), queue);
        System.gc();
        try {
            if (queue.remove(10_000) != marker) {
                throw new AssertionError("the garbage collector did not clear a weakly reachable object in 10 s");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static void pollDetector() {
        ByteBuf a = PooledByteBufAllocator.DEFAULT.directBuffer(1);
        a.release();
        ByteBuf b = UnpooledByteBufAllocator.DEFAULT.heapBuffer(1);
        b.release();
    }
}
