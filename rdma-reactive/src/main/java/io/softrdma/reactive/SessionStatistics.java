package io.softrdma.reactive;

import io.softrdma.verbs.QueuePairCounters;

/**
 * A snapshot of one session's flow control and read queues, for metrics. Taken off the event loop the values
 * are each recent but not mutually consistent.
 *
 * <p>Thread safety: immutable, but for {@link #counters()}, which keeps counting.
 *
 * @param creditsAvailable Send credits this side holds from the peer (docs/protocol.md)
 * @param creditsGranted Send credits the peer holds from this side: receive buffers posted and announced
 * @param receiveBuffersPosted receive buffers in the receive queue
 * @param messagesBuffered messages received and not yet taken by a subscriber or handler
 * @param readsOutstanding RDMA Reads this side has outstanding, at most {@code ord}
 * @param ord outbound Reads allowed at once (RFC 5040 §6.1, negotiated by RFC 6581)
 * @param inboundReadsQueued the peer's Read Requests this side holds, at most {@code ird}
 * @param ird inbound Reads this side accepts at once
 * @param counters messages and octets per RDMAP opcode and direction
 * @param bufferBytes octets of receive buffers and send slots the session's messaging holds registered now (those
 *     drawn from a {@link ReceivePool} included); 0 for another protocol
 */
public record SessionStatistics(long creditsAvailable, int creditsGranted, int receiveBuffersPosted,
        int messagesBuffered, int readsOutstanding, int ord, int inboundReadsQueued, int ird,
        QueuePairCounters counters, long bufferBytes) {
}
