package io.softrdma.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.util.ResourceLeakDetector;
import org.junit.jupiter.api.Test;

/** The build's leak guard must be able to fail: a buffer dropped without release is reported. */
class LeakCheckTest {

    @Test
    void detectorRunsAtParanoidLevel() {
        assertThat(ResourceLeakDetector.getLevel()).isEqualTo(ResourceLeakDetector.Level.PARANOID);
        assertThat(FailingLeakDetector.installed()).isTrue();
    }

    @Test
    void aBufferDroppedWithoutReleaseFailsTheCheck() {
        leakOne();
        assertThatThrownBy(LeakCheck::assertNoLeaks).isInstanceOf(AssertionError.class)
                .hasMessageContaining("Netty buffer leak")
                .hasMessageContaining("leakOne");
    }

    private static void leakOne() {
        ByteBuf leaked = PooledByteBufAllocator.DEFAULT.directBuffer(16);
        leaked.writeInt(42); // recorded access, so the report names this method
    }
}
