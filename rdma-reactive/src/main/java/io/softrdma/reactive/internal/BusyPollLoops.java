package io.softrdma.reactive.internal;

import io.netty.channel.EventLoopGroup;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.softrdma.cm.RdmaTransport;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The event loops of the clients and servers that busy-poll ({@code RdmaClient.busyPoll}, {@code RdmaServer.busyPoll}):
 * one group per busy-poll time, shared by every client and server that asks for that time, one loop per processor,
 * on daemon threads named {@code softrdma-busy-poll-<µs>us}. Shared and never shut down, as reactor-netty's default
 * loops are: a process has one or two such settings, and its sessions spread over the loops as they would over the
 * default ones.
 *
 * <p>Thread safety: thread-safe.
 */
public final class BusyPollLoops {
    private static final Map<Duration, EventLoopGroup> GROUPS = new ConcurrentHashMap<>();

    private BusyPollLoops() {
    }

    /** The shared group whose loops poll for {@code busyPoll} (positive) after each burst of work before they sleep. */
    public static EventLoopGroup shared(Duration busyPoll) {
        return GROUPS.computeIfAbsent(busyPoll, d -> RdmaTransport.best().newEventLoopGroup(
                Runtime.getRuntime().availableProcessors(),
                new DefaultThreadFactory("softrdma-busy-poll-" + d.toNanos() / 1000 + "us", true), d));
    }

    /**
     * Checks a busy-poll time given to a client or server.
     *
     * @throws IllegalArgumentException if it is negative
     */
    public static Duration check(Duration busyPoll) {
        if (busyPoll == null || busyPoll.isNegative()) {
            throw new IllegalArgumentException("busyPoll must be Duration.ZERO (off) or positive, was " + busyPoll);
        }
        return busyPoll;
    }
}
