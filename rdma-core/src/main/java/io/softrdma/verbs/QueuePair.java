package io.softrdma.verbs;

import io.softrdma.rdmap.RdmapExtensions;

import java.util.concurrent.CompletableFuture;

/**
 * A queue pair: one end of an RDMAP stream (RFC 5040), with a send queue and a receive queue whose
 * work requests complete into completion queues.
 *
 * <p>Work requests are carried out in posting order (§5.5 rule 13) and complete in posting order
 * (rule 15): a Send, Write or local invalidate completes when its last segment is handed to TCP
 * (rule 14), an RDMA Read when its Read Response is placed (rule 19), a receive when a whole Send has
 * been placed into it (rule 10). When the queue pair goes to ERROR every outstanding work request
 * completes, with {@link WorkCompletionStatus#FLUSHED} if it was not carried out.
 *
 * <p>Thread safety: {@code post…}, {@code close} and the getters may be called from any thread; a
 * post hands the work request to the queue pair's event loop without a lock. A post never calls back:
 * no completion or listener callback runs inside {@code post…}. Posts made inside such a callback are
 * carried out when the callback returns; other posts by a task on the event loop, after it.
 */
public interface QueuePair extends AutoCloseable {
    /** A number unique on its device. */
    int queuePairNumber();

    QueuePairState state();

    ProtectionDomain protectionDomain();

    QueuePairConfig config();

    /** Outbound Reads outstanding at most, as negotiated (at most the configured ORD). */
    int ord();

    /** Inbound Read Requests accepted at most, as negotiated. */
    int ird();

    /**
     * RDMA Reads this queue pair has outstanding as requester: sent and not yet answered in full (at most
     * {@link #ord()}). A racy snapshot when read off the event loop.
     *
     * @return outstanding outbound Reads
     */
    int readsOutstanding();

    /**
     * The peer's RDMA Read Requests this queue pair holds as responder, accepted and not yet answered in
     * full (at most {@link #ird()}). A racy snapshot when read off the event loop.
     *
     * @return queued inbound Reads
     */
    int inboundReadsQueued();

    /**
     * The RFC 7306 extensions this stream may use: those both ends named at connection setup
     * ({@link RdmapExtensions}), {@link RdmapExtensions#NONE} before then and with a peer that did not (Linux
     * siw). Posting an atomic or Immediate Data without them fails; receiving one is an unexpected opcode.
     */
    RdmapExtensions extensions();

    /**
     * Messages and payload octets per opcode and direction (for metrics).
     *
     * @return this queue pair's counters
     */
    QueuePairCounters counters();

    /**
     * Posts to the send queue.
     *
     * @throws IllegalStateException when the queue pair is IDLE, was closed by {@link #close()}, or the send
     *     queue is full. (In ERROR after a Terminate or a lost connection, a request is accepted and
     *     completes as flushed, as in verbs.)
     * @throws IllegalArgumentException when an entry's region is not of this protection domain, a Read's
     *     sink lacks LOCAL_WRITE, or there are more entries than {@code maxSendSge}
     */
    void postSend(SendWorkRequest request);

    /**
     * Posts a receive buffer. Allowed from IDLE on, so buffers can be in place before the peer's first
     * Send.
     *
     * @throws IllegalStateException when the receive queue is full or the queue pair was closed
     * @throws IllegalArgumentException when an entry's region is not of this protection domain or there
     *     are more entries than {@code maxReceiveSge}
     */
    void postReceive(ReceiveWorkRequest request);

    /** Closes gracefully: no new work; posted work is carried out; then the stream closes. */
    @Override
    void close();

    /**
     * Completes when the queue pair reaches ERROR: normally after a graceful close, exceptionally with a
     * {@link io.softrdma.rdmap.TerminateException} when a Terminate ended the stream, or with the
     * connection's failure when it was lost.
     */
    CompletableFuture<Void> closeFuture();

    /** Sets the listener of this queue pair's events (replacing any earlier one). */
    void setListener(QueuePairListener listener);
}
