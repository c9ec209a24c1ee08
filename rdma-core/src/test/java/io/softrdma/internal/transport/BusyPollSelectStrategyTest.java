package io.softrdma.internal.transport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.channel.EventLoopGroup;
import io.netty.channel.SelectStrategy;
import io.netty.channel.SelectStrategyFactory;
import io.netty.util.IntSupplier;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.softrdma.cm.RdmaTransport;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * {@link BusyPollSelectStrategy}: after work the loop polls without blocking, then blocks once the time has passed
 * without more; events found by a poll are handed to the loop at once.
 */
class BusyPollSelectStrategyTest {
    private static final IntSupplier NOTHING_READY = () -> 0;

    @Test
    void afterWorkTheLoopPollsThenBlocksOnceTheTimeHasPassed() throws Exception {
        // 50 ms: far longer than a turn of this test takes, even the first one (class loading, interpretation).
        long spin = TimeUnit.MILLISECONDS.toNanos(50);
        SelectStrategy strategy = BusyPollSelectStrategy.factory(spin).newSelectStrategy();
        long start = System.nanoTime(); // before the work that opens the window
        assertThat(strategy.calculateStrategy(() -> 3, false)).as("ready events go to the loop").isEqualTo(3);
        assertThat(strategy.calculateStrategy(NOTHING_READY, false)).as("polling on after the work")
                .isEqualTo(SelectStrategy.CONTINUE);
        int polls = 0;
        int s;
        while ((s = strategy.calculateStrategy(NOTHING_READY, false)) == SelectStrategy.CONTINUE) {
            polls++;
        }
        assertThat(s).as("blocks at last").isEqualTo(SelectStrategy.SELECT);
        assertThat(System.nanoTime() - start).as("not before the time has passed")
                .isGreaterThanOrEqualTo(spin);
        assertThat(polls).isPositive();
        assertThat(strategy.calculateStrategy(NOTHING_READY, false))
                .as("the first turn after a blocking select polls again: something woke the loop")
                .isEqualTo(SelectStrategy.CONTINUE);
    }

    @Test
    void pendingTasksNeverBlock() throws Exception {
        SelectStrategy strategy = BusyPollSelectStrategy.factory(1).newSelectStrategy();
        AtomicInteger polled = new AtomicInteger();
        assertThat(strategy.calculateStrategy(() -> {
            polled.incrementAndGet();
            return 0;
        }, true)).as("with tasks pending: a poll, never a blocking select").isZero();
        assertThat(polled).hasValue(1);
    }

    @Test
    void aTimeThatIsNotPositiveIsRefused() {
        assertThatThrownBy(() -> BusyPollSelectStrategy.factory(0)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("must be positive");
        assertThatThrownBy(() -> RdmaTransport.best().ioHandlerFactory(Duration.ofNanos(-1)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("zero (off) or positive");
    }

    @Test
    void aPollingEventLoopRunsTasksFromOtherThreads() throws Exception {
        EventLoopGroup group = RdmaTransport.best().newEventLoopGroup(1,
                new DefaultThreadFactory("busy-poll-test", true), Duration.ofMillis(5));
        try {
            for (int i = 0; i < 100; i++) {
                int n = i;
                assertThat(group.submit(() -> n).get(10, TimeUnit.SECONDS)).isEqualTo(n);
            }
            assertThat(group.schedule(() -> "later", 20, TimeUnit.MILLISECONDS).get(10, TimeUnit.SECONDS))
                    .isEqualTo("later");
        } finally {
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
        }
    }

    @Test
    void theFactoryMakesAStrategyPerLoop() {
        SelectStrategyFactory factory = BusyPollSelectStrategy.factory(1000);
        assertThat(factory.newSelectStrategy()).isNotSameAs(factory.newSelectStrategy());
    }
}
