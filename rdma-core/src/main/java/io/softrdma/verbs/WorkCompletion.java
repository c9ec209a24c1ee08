package io.softrdma.verbs;

/**
 * The outcome of one work request.
 *
 * <p>Instances handed to a {@link CompletionQueue.Handler} are views into the completion queue, valid
 * only during the call (so that polling allocates nothing); {@link #copy()} keeps one. Instances
 * returned by {@link CompletionQueue#poll()} and {@link CompletionQueue#take} are copies.
 *
 * <p>Thread safety: copies are immutable; views belong to the polling thread during the call.
 */
public final class WorkCompletion {
    long wrId;
    WorkCompletionStatus status;
    WorkCompletionOpcode opcode;
    long byteLength;
    int queuePairNumber;
    boolean solicited;
    boolean invalidated;
    int invalidatedStag;
    long value;

    WorkCompletion() {
    }

    /** The caller's identifier of the work request. */
    public long wrId() {
        return wrId;
    }

    public WorkCompletionStatus status() {
        return status;
    }

    public boolean isSuccess() {
        return status == WorkCompletionStatus.SUCCESS;
    }

    public WorkCompletionOpcode opcode() {
        return opcode;
    }

    /** Octets received (RECEIVE), read (RDMA_READ) or sent (SEND, RDMA_WRITE). */
    public long byteLength() {
        return byteLength;
    }

    public int queuePairNumber() {
        return queuePairNumber;
    }

    /** RECEIVE: the Send carried a Solicited Event. */
    public boolean solicited() {
        return solicited;
    }

    /** RECEIVE: the Send carried Invalidate and {@link #invalidatedStag()} was invalidated. */
    public boolean invalidated() {
        return invalidated;
    }

    /** RECEIVE with {@link #invalidated()}: the STag the peer invalidated. */
    public int invalidatedStag() {
        return invalidatedStag;
    }

    /** RECEIVE_IMMEDIATE: the 8 octets of the peer's Immediate Data (RFC 7306 §6.1), as a big-endian long. */
    public long immediateData() {
        return value;
    }

    /**
     * ATOMIC_FETCH_ADD, ATOMIC_COMPARE_AND_SWAP: the remote word's value before the operation (the Atomic
     * Response's Original Remote Data Value, RFC 7306 §5.2.2). A Compare-and-Swap swapped exactly when this equals
     * the compare value in the compared bits.
     */
    public long atomicOriginalValue() {
        return value;
    }

    /** An immutable copy. */
    public WorkCompletion copy() {
        WorkCompletion c = new WorkCompletion();
        c.wrId = wrId;
        c.status = status;
        c.opcode = opcode;
        c.byteLength = byteLength;
        c.queuePairNumber = queuePairNumber;
        c.solicited = solicited;
        c.invalidated = invalidated;
        c.invalidatedStag = invalidatedStag;
        c.value = value;
        return c;
    }

    @Override
    public String toString() {
        return "WorkCompletion{wrId=" + wrId + " " + opcode + " " + status + " bytes=" + byteLength + " qp="
                + queuePairNumber + (solicited ? " solicited" : "")
                + (invalidated ? String.format(" invalidated=0x%08x", invalidatedStag) : "")
                + (value != 0 ? " value=0x" + Long.toHexString(value) : "") + "}";
    }
}
