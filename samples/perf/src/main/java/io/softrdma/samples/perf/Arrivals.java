package io.softrdma.samples.perf;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongConsumer;

/**
 * Messages counted by a receiver; {@link #await} completes once a count is reached, and a listener (a parked
 * fire-and-forget pump) hears each new count.
 *
 * <p>Thread safety: {@link #arrived} from one receiving thread at a time, the rest from any thread.
 */
final class Arrivals {
    private final AtomicLong count = new AtomicLong();
    private volatile CompletableFuture<Void> reached = new CompletableFuture<>();
    private volatile long target = Long.MAX_VALUE;
    /** Told each new count while set; null otherwise. */
    volatile LongConsumer listener;

    void arrived() {
        long c = count.incrementAndGet();
        LongConsumer l = listener;
        if (l != null) {
            l.accept(c);
        }
        if (c >= target) {
            reached.complete(null);
        }
    }

    long count() {
        return count.get();
    }

    /** Completes once {@code n} have arrived; replaces the previous wait. */
    CompletableFuture<Void> await(long n) {
        CompletableFuture<Void> f = new CompletableFuture<>();
        // The future first, then the target: a receiver that sees the new target sees the new future too,
        // and one that saw the old target is caught by the check below.
        reached = f;
        target = n;
        if (count.get() >= n) {
            f.complete(null);
        }
        return f;
    }
}
