package io.softrdma.verbs;

import io.softrdma.rdmap.RdmapExtensions;
import java.util.Objects;

/**
 * The sizes and completion queues of a queue pair.
 *
 * <p>Thread safety: immutable.
 *
 * @param sendQueueDepth send work requests outstanding at most (posted, not yet completed)
 * @param receiveQueueDepth receive buffers posted at most
 * @param maxSendSge scatter/gather entries per send work request at most (siw: 6)
 * @param maxReceiveSge scatter/gather entries per receive at most (siw: 6)
 * @param ord outbound RDMA Reads outstanding at most (RFC 5040 §6.1; siw: up to 128)
 * @param ird inbound RDMA Read Requests queued at most (RFC 5040 §6.1; siw: up to 128)
 * @param sendCompletionQueue where send work requests complete
 * @param receiveCompletionQueue where receives complete (may be the same queue)
 * @param extensions the RFC 7306 extensions offered at connection setup (the stream uses those the peer agrees
 *     to, {@link QueuePair#extensions()}); {@link RdmapExtensions#NONE} by default
 */
public record QueuePairConfig(int sendQueueDepth, int receiveQueueDepth, int maxSendSge, int maxReceiveSge, int ord,
        int ird, CompletionQueue sendCompletionQueue, CompletionQueue receiveCompletionQueue,
        RdmapExtensions extensions) {

    /** siw's per-QP limit on outstanding RDMA Reads in either direction (SIW_MAX_ORD_QP, SIW_MAX_IRD_QP). */
    public static final int DEFAULT_READ_DEPTH = 128;
    /** siw's SIW_MAX_SGE. */
    public static final int DEFAULT_MAX_SGE = 6;
    /** RFC 6581's 14-bit IRD/ORD fields. */
    public static final int MAX_READ_DEPTH = 0x3FFF;

    public QueuePairConfig {
        require(sendQueueDepth, 1, 1 << 16, "sendQueueDepth");
        require(receiveQueueDepth, 1, 1 << 16, "receiveQueueDepth");
        require(maxSendSge, 1, 64, "maxSendSge");
        require(maxReceiveSge, 1, 64, "maxReceiveSge");
        require(ord, 0, MAX_READ_DEPTH, "ord");
        require(ird, 0, MAX_READ_DEPTH, "ird");
        Objects.requireNonNull(sendCompletionQueue, "sendCompletionQueue");
        Objects.requireNonNull(receiveCompletionQueue, "receiveCompletionQueue");
        Objects.requireNonNull(extensions, "extensions");
    }

    /** Without RFC 7306 extensions. */
    public QueuePairConfig(int sendQueueDepth, int receiveQueueDepth, int maxSendSge, int maxReceiveSge, int ord,
            int ird, CompletionQueue sendCompletionQueue, CompletionQueue receiveCompletionQueue) {
        this(sendQueueDepth, receiveQueueDepth, maxSendSge, maxReceiveSge, ord, ird, sendCompletionQueue,
                receiveCompletionQueue, RdmapExtensions.NONE);
    }

    private static void require(int value, int min, int max, String name) {
        if (value < min || value > max) {
            throw new IllegalArgumentException(name + " " + value + " is outside " + min + ".." + max);
        }
    }

    /** 128 sends, 128 receives, 6 entries each, ORD and IRD 128, one completion queue for both sides. */
    public static QueuePairConfig of(CompletionQueue cq) {
        return new QueuePairConfig(128, 128, DEFAULT_MAX_SGE, DEFAULT_MAX_SGE, DEFAULT_READ_DEPTH,
                DEFAULT_READ_DEPTH, cq, cq);
    }

    public QueuePairConfig withSendQueueDepth(int depth) {
        return new QueuePairConfig(depth, receiveQueueDepth, maxSendSge, maxReceiveSge, ord, ird, sendCompletionQueue,
                receiveCompletionQueue, extensions);
    }

    public QueuePairConfig withReceiveQueueDepth(int depth) {
        return new QueuePairConfig(sendQueueDepth, depth, maxSendSge, maxReceiveSge, ord, ird, sendCompletionQueue,
                receiveCompletionQueue, extensions);
    }

    public QueuePairConfig withReadDepths(int ord, int ird) {
        return new QueuePairConfig(sendQueueDepth, receiveQueueDepth, maxSendSge, maxReceiveSge, ord, ird,
                sendCompletionQueue, receiveCompletionQueue, extensions);
    }

    public QueuePairConfig withCompletionQueues(CompletionQueue send, CompletionQueue receive) {
        return new QueuePairConfig(sendQueueDepth, receiveQueueDepth, maxSendSge, maxReceiveSge, ord, ird, send,
                receive, extensions);
    }

    /**
     * Offers RFC 7306's extensions at connection setup: Atomic Requests count against ORD and IRD like RDMA
     * Reads (they share the Read Request queue), Immediate Data consumes a posted receive like a Send.
     */
    public QueuePairConfig withExtensions(RdmapExtensions extensions) {
        return new QueuePairConfig(sendQueueDepth, receiveQueueDepth, maxSendSge, maxReceiveSge, ord, ird,
                sendCompletionQueue, receiveCompletionQueue, extensions);
    }
}
