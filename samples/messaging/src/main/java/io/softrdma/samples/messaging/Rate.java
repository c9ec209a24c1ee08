package io.softrdma.samples.messaging;

import java.util.concurrent.atomic.AtomicLong;

/**
 * A count and its rate over the last second or so.
 *
 * <p>Thread safety: thread-safe.
 */
final class Rate {
    private final AtomicLong count = new AtomicLong();
    private volatile long windowStart = System.nanoTime();
    private volatile long windowCount;
    private volatile double perSecond;

    void add() {
        long c = count.incrementAndGet();
        long now = System.nanoTime();
        long elapsed = now - windowStart;
        if (elapsed >= 1_000_000_000L) {
            synchronized (this) {
                if (now - windowStart >= 1_000_000_000L) {
                    perSecond = (c - windowCount) * 1e9 / (now - windowStart);
                    windowStart = now;
                    windowCount = c;
                }
            }
        }
    }

    long count() {
        return count.get();
    }

    double perSecond() {
        return perSecond;
    }
}
