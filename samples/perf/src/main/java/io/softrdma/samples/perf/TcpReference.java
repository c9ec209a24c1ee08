package io.softrdma.samples.perf;

import io.netty.buffer.ByteBuf;
import io.softrdma.samples.perf.PerfProtocol.Test;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The raw-TCP reference each SoftRDMA row is compared with: a one-way stream (Write, Send), requests
 * answered by responses (Read; every latency), and RFC 7306 atomics applied by a server to a word.
 * Each exchange runs for a warm-up budget and then, on the same connection, for the measured one;
 * {@code measuring} runs when the warm-up is over.
 *
 * <p>Thread safety: one measurement at a time per {@link Loopback}.
 */
interface TcpReference {
    /** {@code size}-octet messages one way, acknowledged in batches, rounded up to whole batches. */
    Measured stream(Loopback loopback, ByteBuf payload, int size, Budget warmup, Budget budget, double rate,
            AtomicLong progress, Runnable measuring) throws Exception;

    /**
     * Requests of {@code requestSize} octets answered with {@code responseSize}, at most {@code window}
     * outstanding; with a window of one, also fills {@code rtts} with the measured round trips.
     */
    Measured requestResponse(Loopback loopback, ByteBuf payload, int requestSize, int responseSize, Budget warmup,
            Budget budget, double rate, int window, long[] rtts, AtomicLong progress, Runnable measuring)
            throws Exception;

    /**
     * Fetch-and-Add or Compare-and-Swap on a server's word, at most {@code window} outstanding, each response's
     * value checked, the word at the end checked into {@code check}; with a window of one, also fills
     * {@code rtts}.
     */
    Measured atomic(Loopback loopback, Test test, Budget warmup, Budget budget, double rate, int window, long[] rtts,
            AtomicLong progress, Runnable measuring, WordCheck check) throws Exception;
}
