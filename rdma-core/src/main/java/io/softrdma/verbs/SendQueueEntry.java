package io.softrdma.verbs;

/**
 * The engine's slot for one send work request, from posting to completion. Slots are preallocated,
 * one per send queue entry, and reused.
 *
 * <p>Note: event loop only.
 */
final class SendQueueEntry {
    SendWorkRequest wr;
    /** Set when the outcome is known: written to TCP, Read placed, invalidated, failed or flushed. */
    boolean done;
    WorkCompletionStatus status;
    long byteLength;
    // transmit progress
    int sge;
    long sgeOffset;
    long messageOffset;
    int msn;
    // RDMA Read: what the Read Response must match
    int sinkStag;
    long sinkTaggedOffset;
    long readLength;
    long received;
    // RFC 7306
    /** Write with Immediate: the Write is emitted and the Immediate Data is next. */
    boolean immediatePending;
    /** Atomic: the Request Identifier sent, and the original value its Response brought. */
    int atomicRequestId;
    long atomicResult;

    void reset(SendWorkRequest request) {
        wr = request;
        done = false;
        status = WorkCompletionStatus.SUCCESS;
        byteLength = 0;
        sge = 0;
        sgeOffset = 0;
        messageOffset = 0;
        msn = 0;
        sinkStag = 0;
        sinkTaggedOffset = 0;
        readLength = 0;
        received = 0;
        immediatePending = false;
        atomicRequestId = 0;
        atomicResult = 0;
    }

    void finish(WorkCompletionStatus outcome) {
        if (!done) {
            done = true;
            status = outcome;
        }
    }
}
