package io.softrdma.samples.perf;

import java.io.IOException;
import reactor.core.publisher.Mono;

/**
 * A key-value store the cache benchmark measures: RdmaCache or Redis, each through its reactive client. Keys and
 * values are byte arrays, decoded from the wire into the application's heap as an application would have them, so
 * that both clients pay the same copy.
 *
 * <p>Thread safety: {@link #get} and {@link #set} may be called from any thread, many at once; {@link #close} once,
 * after the last has completed.
 */
interface CacheTarget extends AutoCloseable {
    /** The prefix of the rows: {@code cache} or {@code redis}. */
    String name();

    /** GET: completes with the value, or empty when the key has none. */
    Mono<byte[]> get(byte[] key);

    /** SET: completes when the store has taken the value. */
    Mono<Void> set(byte[] key, byte[] value);

    /** The share of one core the server used since the last {@link #restartServerCpu}: 1.0 is one core busy. */
    double serverCpu();

    /** Starts measuring the server's CPU from now. */
    void restartServerCpu();

    /** The prefix of the names of the client's threads, whose CPU the rows report. */
    String clientThreads();

    /** Stops the client and the server; an interrupt is kept on the thread, not thrown. */
    @Override
    void close() throws IOException;
}
