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
    /**
     * The current wait: its target and its future in one object, so that an arrival completes a future only when the
     * count reached that future's own target. (They were two fields: an arrival that read the previous, lower
     * target and then the new future completed the new wait early; a fire-and-forget phase then ended before its
     * frames were counted, and they were counted in the next phase's wait.)
     */
    private volatile Wait wait = new Wait(Long.MAX_VALUE, new CompletableFuture<>());
    /** Told each new count while set; null otherwise. */
    volatile LongConsumer listener;

    private record Wait(long target, CompletableFuture<Void> reached) {
    }

    void arrived() {
        long c = count.incrementAndGet();
        LongConsumer l = listener;
        if (l != null) {
            l.accept(c);
        }
        Wait w = wait;
        if (c >= w.target) {
            w.reached.complete(null);
        }
    }

    long count() {
        return count.get();
    }

    /** Completes once {@code n} have arrived; replaces the previous wait. */
    CompletableFuture<Void> await(long n) {
        CompletableFuture<Void> f = new CompletableFuture<>();
        wait = new Wait(n, f);
        // An arrival that read the previous wait counted before this check, which sees it.
        if (count.get() >= n) {
            f.complete(null);
        }
        return f;
    }
}
