package io.softrdma.internal.transport;

import io.netty.channel.SelectStrategy;
import io.netty.channel.SelectStrategyFactory;
import io.netty.util.IntSupplier;

/**
 * An event loop that polls its sockets without blocking for a while after each burst of work before it sleeps in
 * {@code epoll_wait}: what an RDMA application does with its completion queue, and what Linux's
 * {@code net.core.busy_poll} does for a socket.
 *
 * <p>Why: one operation at a time (a GET, a request and its response) is two wake-ups of a sleeping thread, and on
 * a virtual machine each costs microseconds in the kernel's wake-up and task-switch paths (docs/benchmarks.md,
 * issue 19: 35–40% of each event loop's CPU). A loop that is still polling when the answer arrives takes it without
 * being woken. The price is CPU: up to {@code spinNanos} of polling after every burst, spent only while the loop
 * has had work within that time, never on an idle loop.
 *
 * <p>Each poll is Netty's {@code selectNow} (an {@code epoll_wait} with no timeout), so a socket that becomes
 * readable or a task another thread submits is seen on the next turn; the loop returns to a blocking select once
 * {@code spinNanos} pass without any.
 *
 * <p>Thread safety: {@link #newSelectStrategy()} gives each event loop an instance of its own, used by that loop's
 * thread only.
 */
public final class BusyPollSelectStrategy implements SelectStrategy {
    private final long spinNanos;
    /** When this loop stops polling and blocks, unless more work comes first; 0 while it is not polling. */
    private long spinUntil;

    private BusyPollSelectStrategy(long spinNanos) {
        this.spinNanos = spinNanos;
    }

    /** A factory of strategies that poll for {@code spinNanos} after the last work before they block. */
    public static SelectStrategyFactory factory(long spinNanos) {
        if (spinNanos <= 0) {
            throw new IllegalArgumentException("busy-poll time must be positive, was " + spinNanos + " ns");
        }
        return () -> new BusyPollSelectStrategy(spinNanos);
    }

    @Override
    public int calculateStrategy(IntSupplier selectSupplier, boolean hasTasks) throws Exception {
        int ready = selectSupplier.get();
        long now = System.nanoTime();
        if (ready > 0 || hasTasks) {
            spinUntil = now + spinNanos; // work now: poll on for a while once it is done
            return ready;
        }
        if (spinUntil == 0) {
            // The first turn after a blocking select returned: what woke the loop was work.
            spinUntil = now + spinNanos;
        }
        if (now - spinUntil < 0) {
            Thread.onSpinWait();
            return SelectStrategy.CONTINUE;
        }
        spinUntil = 0;
        return SelectStrategy.SELECT;
    }
}
