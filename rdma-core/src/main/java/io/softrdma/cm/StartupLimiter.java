package io.softrdma.cm;

import io.netty.channel.Channel;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;

/**
 * A cap on the MPA startups a listener runs at once. A connection takes a slot when it arrives and gives it back
 * when its startup ends — in RDMA mode, refused, failed or timed out (RFC 5044 §7.1; the responder's Request
 * timeout bounds how long) — or when it closes. A connection that finds no slot is closed at once, before it
 * costs more than its socket: thousands of connections that never send a Request, send it a byte at a time or
 * send garbage hold at most this many startups, each for at most the Request timeout.
 *
 * <p>Thread safety: thread-safe; one limiter serves every channel of a listener.
 */
public final class StartupLimiter {
    /** The default cap: 1024 startups at once per listener. */
    public static final int DEFAULT_MAX_PENDING = 1024;

    private final int maxPending;
    private final AtomicInteger pending = new AtomicInteger();
    private final LongAdder refused = new LongAdder();

    /**
     * A limiter admitting {@code maxPending} startups at once.
     *
     * @param maxPending 1 or more
     * @throws IllegalArgumentException if {@code maxPending} is below 1
     */
    public StartupLimiter(int maxPending) {
        if (maxPending < 1) {
            throw new IllegalArgumentException("maxPendingStartups must be at least 1, not " + maxPending);
        }
        this.maxPending = maxPending;
    }

    /**
     * Takes a slot for {@code channel}, given back once {@code startup} completes (either way) or the channel
     * closes; or, when every slot is taken, closes the channel.
     *
     * @param channel a new connection
     * @param startup completes when its MPA startup ends
     * @return true if admitted; false if the channel was closed
     */
    public boolean admit(Channel channel, CompletableFuture<?> startup) {
        while (true) {
            int p = pending.get();
            if (p >= maxPending) {
                refused.increment();
                channel.close();
                return false;
            }
            if (pending.compareAndSet(p, p + 1)) {
                break;
            }
        }
        AtomicBoolean released = new AtomicBoolean();
        Runnable release = () -> {
            if (released.compareAndSet(false, true)) {
                pending.decrementAndGet();
            }
        };
        startup.whenComplete((v, t) -> release.run());
        channel.closeFuture().addListener(f -> release.run());
        return true;
    }

    /**
     * Startups running now.
     *
     * @return the count, at most {@link #maxPending()}
     */
    public int pending() {
        return pending.get();
    }

    /**
     * The cap.
     *
     * @return startups admitted at once
     */
    public int maxPending() {
        return maxPending;
    }

    /**
     * Connections closed because every slot was taken.
     *
     * @return the count since the limiter was made
     */
    public long refused() {
        return refused.sum();
    }
}
