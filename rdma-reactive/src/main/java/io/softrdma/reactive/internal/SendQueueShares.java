package io.softrdma.reactive.internal;

/**
 * How a session splits its send queue, so that no use starves another of entries: half for message Sends, a
 * quarter for the RDMA Reads that fetch large messages, the rest for the application's Writes, Reads and atomics.
 *
 * <p>Thread safety: stateless.
 */
public final class SendQueueShares {
    /** The smallest depth that gives every use one entry. */
    public static final int MIN_SEND_QUEUE_DEPTH = 4;

    private SendQueueShares() {
    }

    /** Send queue entries for message Sends: half. */
    public static int messageSends(int sendQueueDepth) {
        return sendQueueDepth / 2;
    }

    /** Send queue entries for the RDMA Reads that fetch large messages: a quarter. */
    public static int largeMessageReads(int sendQueueDepth) {
        return Math.max(1, sendQueueDepth / 4);
    }

    /** Send queue entries for the application's Writes and Reads: the rest. */
    public static int applicationOperations(int sendQueueDepth) {
        return sendQueueDepth - messageSends(sendQueueDepth) - largeMessageReads(sendQueueDepth);
    }
}
