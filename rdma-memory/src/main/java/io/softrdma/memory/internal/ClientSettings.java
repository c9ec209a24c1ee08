package io.softrdma.memory.internal;

import io.softrdma.memory.MemoryCodec;
import io.softrdma.reactive.RdmaClient;
import java.net.InetSocketAddress;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;

/**
 * What a {@link io.softrdma.memory.RemoteMemory.Builder} was given. Thread safety: immutable.
 *
 * @param refresh how often {@code servers} is asked again; zero for a fixed list
 */
public record ClientSettings(Supplier<List<InetSocketAddress>> servers, Duration refresh, String credential,
        UnaryOperator<RdmaClient> rdmaClient, Duration firstBackoff, Duration maxBackoff, int connectAttempts,
        MemoryCodec codec, int recordAttempts, Clock clock) {
}
