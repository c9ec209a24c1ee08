package io.softrdma.verbs;

import java.util.List;
import java.util.Objects;

/**
 * A work request for a queue pair's send queue (RFC 5040 §3.2): a Send (optionally with Solicited
 * Event and/or Invalidate), an RDMA Write, an RDMA Read, or a local invalidate; and, on a stream whose ends
 * agreed to RFC 7306 ({@link QueuePair#extensions()}), Immediate Data, an RDMA Write followed by Immediate Data,
 * and the atomic Fetch-and-Add and Compare-and-Swap (with their masked forms). Build one with the static
 * factories and the {@code with…} methods.
 *
 * <p>Thread safety: immutable.
 *
 * @param wrId the caller's identifier, returned in the completion
 * @param opcode what to do
 * @param sgl the local memory sent (Send, Write) or read into (Read: exactly one entry)
 * @param remoteStag the peer's STag (Write, Read)
 * @param remoteTaggedOffset the tagged offset at the peer (Write, Read)
 * @param invalidate Send with Invalidate: the peer invalidates {@code invalidateStag}; for a local
 *     invalidate, always true
 * @param invalidateStag the STag to invalidate
 * @param signaled whether a successful completion is reported (failures always are)
 * @param solicited Send (or Immediate Data) with Solicited Event
 * @param immediateData the 8 octets of Immediate Data (IMMEDIATE_DATA, RDMA_WRITE_WITH_IMMEDIATE)
 * @param atomic the operands of an atomic operation, null for any other request
 */
public record SendWorkRequest(long wrId, Opcode opcode, List<ScatterGatherEntry> sgl, int remoteStag,
        long remoteTaggedOffset, boolean invalidate, int invalidateStag, boolean signaled, boolean solicited,
        long immediateData, AtomicOperands atomic) {

    /** The operations of the send queue. */
    public enum Opcode {
        SEND, RDMA_WRITE, RDMA_READ, LOCAL_INVALIDATE,
        /** RFC 7306 §6: 8 octets for the peer's next posted receive. */
        IMMEDIATE_DATA,
        /** RFC 7306 §6: an RDMA Write, then Immediate Data telling the peer it has landed. */
        RDMA_WRITE_WITH_IMMEDIATE,
        /** RFC 7306 §5: Fetch-and-Add on a remote 64-bit word. */
        ATOMIC_FETCH_ADD,
        /** RFC 7306 §5: Compare-and-Swap on a remote 64-bit word. */
        ATOMIC_COMPARE_AND_SWAP;

        /** Whether the peer answers it on the Read Request queue's terms (ORD/IRD): Reads and atomics. */
        public boolean usesReadQueue() {
            return this == RDMA_READ || this == ATOMIC_FETCH_ADD || this == ATOMIC_COMPARE_AND_SWAP;
        }

        /** Whether it is an atomic operation. */
        public boolean isAtomic() {
            return this == ATOMIC_FETCH_ADD || this == ATOMIC_COMPARE_AND_SWAP;
        }

        /** Whether it sends Immediate Data. */
        public boolean carriesImmediateData() {
            return this == IMMEDIATE_DATA || this == RDMA_WRITE_WITH_IMMEDIATE;
        }
    }

    /**
     * The operands of an Atomic Request (RFC 7306 §5.2.1).
     *
     * @param addOrSwapData what a Fetch-and-Add adds, or what a Compare-and-Swap swaps in
     * @param addOrSwapMask Fetch-and-Add: a set bit ends a field (no carry out of it), 0 for a plain add;
     *     Compare-and-Swap: the bits swapped, all ones for a plain swap
     * @param compareData Compare-and-Swap: the expected value; a Fetch-and-Add sends 0 whatever this is (RFC 7306
     *     §5.2.1)
     * @param compareMask Compare-and-Swap: the bits compared, all ones for a plain compare; a Fetch-and-Add sends
     *     all ones whatever this is (§5.2.1)
     */
    public record AtomicOperands(long addOrSwapData, long addOrSwapMask, long compareData, long compareMask) {
    }

    /** A request without RFC 7306 fields. */
    public SendWorkRequest(long wrId, Opcode opcode, List<ScatterGatherEntry> sgl, int remoteStag,
            long remoteTaggedOffset, boolean invalidate, int invalidateStag, boolean signaled, boolean solicited) {
        this(wrId, opcode, sgl, remoteStag, remoteTaggedOffset, invalidate, invalidateStag, signaled, solicited, 0,
                null);
    }

    public SendWorkRequest {
        Objects.requireNonNull(opcode, "opcode");
        sgl = List.copyOf(Objects.requireNonNull(sgl, "sgl"));
        if (opcode == Opcode.RDMA_READ && sgl.size() != 1) {
            throw new IllegalArgumentException("an RDMA Read places into exactly one local entry, not "
                    + sgl.size() + " (RFC 5040 §5.2: one Read Response to one tagged buffer)");
        }
        if (opcode == Opcode.LOCAL_INVALIDATE && (!sgl.isEmpty() || !invalidate)) {
            throw new IllegalArgumentException("a local invalidate names an STag and no memory");
        }
        if (opcode != Opcode.SEND && !opcode.carriesImmediateData() && solicited) {
            throw new IllegalArgumentException("only a Send or Immediate Data can carry a Solicited Event, not "
                    + opcode);
        }
        if (opcode.isAtomic() != (atomic != null)) {
            throw new IllegalArgumentException(opcode.isAtomic() ? "an atomic operation needs its operands"
                    : "only an atomic operation has atomic operands, not " + opcode);
        }
        if (opcode.isAtomic() && !sgl.isEmpty()) {
            throw new IllegalArgumentException("an atomic operation sends no local memory: its result is the"
                    + " completion's atomicOriginalValue()");
        }
        // No check of the Remote TO's alignment: RFC 7306 §5.2.1 lets it "start at an arbitrary offset" so long as
        // the word's address at the responder is 64-bit aligned, which only the responder knows (§8.2).
        if (opcode == Opcode.IMMEDIATE_DATA && !sgl.isEmpty()) {
            throw new IllegalArgumentException("Immediate Data carries its 8 octets in the request, not local memory");
        }
        if (opcode != Opcode.SEND && opcode != Opcode.LOCAL_INVALIDATE && invalidate) {
            throw new IllegalArgumentException("only a Send (or a local invalidate) invalidates an STag, not "
                    + opcode);
        }
        long total = 0;
        for (int i = 0; i < sgl.size(); i++) { // by index: no iterator per work request on the hot path
            total += sgl.get(i).length();
        }
        if (total > 0xFFFF_FFFFL) {
            throw new IllegalArgumentException(total + " octets exceed the 2^32-1 of one RDMA message");
        }
    }

    /** A Send of the given entries, gathered into one message. */
    public static SendWorkRequest send(long wrId, ScatterGatherEntry... sgl) {
        return new SendWorkRequest(wrId, Opcode.SEND, List.of(sgl), 0, 0, false, 0, true, false);
    }

    public static SendWorkRequest send(long wrId, List<ScatterGatherEntry> sgl) {
        return new SendWorkRequest(wrId, Opcode.SEND, sgl, 0, 0, false, 0, true, false);
    }

    /** An RDMA Write of the given entries to the peer's tagged buffer at {@code remoteStag}/{@code remoteTo}. */
    public static SendWorkRequest write(long wrId, int remoteStag, long remoteTo, ScatterGatherEntry... sgl) {
        return new SendWorkRequest(wrId, Opcode.RDMA_WRITE, List.of(sgl), remoteStag, remoteTo, false, 0, true, false);
    }

    /**
     * An RDMA Write to the start of an advertised remote buffer.
     *
     * @throws IllegalArgumentException if the entries hold more than the remote buffer's length
     */
    public static SendWorkRequest write(long wrId, RemoteMemory remote, ScatterGatherEntry... sgl) {
        SendWorkRequest wr = write(wrId, remote.stag(), remote.taggedOffset(), sgl);
        if (wr.length() > remote.length()) {
            throw new IllegalArgumentException(wr.length() + " octets do not fit the remote buffer of "
                    + remote.length());
        }
        return wr;
    }

    /** An RDMA Read of {@code sink.length()} octets from the peer's {@code remoteStag}/{@code remoteTo}. */
    public static SendWorkRequest read(long wrId, ScatterGatherEntry sink, int remoteStag, long remoteTo) {
        return new SendWorkRequest(wrId, Opcode.RDMA_READ, List.of(sink), remoteStag, remoteTo, false, 0, true, false);
    }

    /**
     * An RDMA Read from the start of an advertised remote buffer.
     *
     * @throws IllegalArgumentException if the sink is longer than the remote buffer
     */
    public static SendWorkRequest read(long wrId, ScatterGatherEntry sink, RemoteMemory remote) {
        if (sink.length() > remote.length()) {
            throw new IllegalArgumentException("a read of " + sink.length() + " octets exceeds the remote buffer of "
                    + remote.length());
        }
        return read(wrId, sink, remote.stag(), remote.taggedOffset());
    }

    /** Immediate Data (RFC 7306 §6): {@code data} reaches the peer in the completion of its next posted receive. */
    public static SendWorkRequest immediateData(long wrId, long data) {
        return new SendWorkRequest(wrId, Opcode.IMMEDIATE_DATA, List.of(), 0, 0, false, 0, true, false, data, null);
    }

    /**
     * An RDMA Write of the given entries to {@code remoteStag}/{@code remoteTo}, followed by Immediate Data
     * (RFC 7306 §6): the peer's receive completes with {@code data} once the Write's octets are placed.
     */
    public static SendWorkRequest writeWithImmediate(long wrId, int remoteStag, long remoteTo, long data,
            ScatterGatherEntry... sgl) {
        return new SendWorkRequest(wrId, Opcode.RDMA_WRITE_WITH_IMMEDIATE, List.of(sgl), remoteStag, remoteTo, false,
                0, true, false, data, null);
    }

    /** As {@link #writeWithImmediate(long, int, long, long, ScatterGatherEntry...)}, to the start of an advertised buffer. */
    public static SendWorkRequest writeWithImmediate(long wrId, RemoteMemory remote, long data,
            ScatterGatherEntry... sgl) {
        SendWorkRequest wr = writeWithImmediate(wrId, remote.stag(), remote.taggedOffset(), data, sgl);
        if (wr.length() > remote.length()) {
            throw new IllegalArgumentException(wr.length() + " octets do not fit the remote buffer of "
                    + remote.length());
        }
        return wr;
    }

    /** Fetch-and-Add (RFC 7306 §5.1.1): adds {@code delta} to the remote word; the completion has its value before. */
    public static SendWorkRequest fetchAdd(long wrId, int remoteStag, long remoteTo, long delta) {
        return maskedFetchAdd(wrId, remoteStag, remoteTo, delta, 0);
    }

    /**
     * Masked Fetch-and-Add (RFC 7306 §5.1.1): adds field by field, each set bit of {@code fieldEnds} ending a field
     * whose carry is dropped.
     */
    public static SendWorkRequest maskedFetchAdd(long wrId, int remoteStag, long remoteTo, long delta,
            long fieldEnds) {
        return new SendWorkRequest(wrId, Opcode.ATOMIC_FETCH_ADD, List.of(), remoteStag, remoteTo, false, 0, true,
                false, 0, new AtomicOperands(delta, fieldEnds, 0, -1L));
    }

    /**
     * Compare-and-Swap (RFC 7306 §5.1.2): the remote word becomes {@code update} if it is {@code expect}; the
     * completion has its value before, so the swap happened exactly when that equals {@code expect}.
     */
    public static SendWorkRequest compareAndSwap(long wrId, int remoteStag, long remoteTo, long expect,
            long update) {
        return maskedCompareAndSwap(wrId, remoteStag, remoteTo, expect, -1L, update, -1L);
    }

    /**
     * Masked Compare-and-Swap (RFC 7306 §5.1.2): if the remote word equals {@code compare} in the bits of
     * {@code compareMask}, its bits in {@code swapMask} take those of {@code swap}.
     */
    public static SendWorkRequest maskedCompareAndSwap(long wrId, int remoteStag, long remoteTo, long compare,
            long compareMask, long swap, long swapMask) {
        return new SendWorkRequest(wrId, Opcode.ATOMIC_COMPARE_AND_SWAP, List.of(), remoteStag, remoteTo, false, 0,
                true, false, 0, new AtomicOperands(swap, swapMask, compare, compareMask));
    }

    /** Invalidates a local STag, in send-queue order. */
    public static SendWorkRequest localInvalidate(long wrId, int stag) {
        return new SendWorkRequest(wrId, Opcode.LOCAL_INVALIDATE, List.of(), 0, 0, true, stag, true, false);
    }

    /** The same Send (or Immediate Data) with a Solicited Event (RFC 5040 §5.3, RFC 7306 §6). */
    public SendWorkRequest withSolicitedEvent() {
        return new SendWorkRequest(wrId, opcode, sgl, remoteStag, remoteTaggedOffset, invalidate, invalidateStag,
                signaled, true, immediateData, atomic);
    }

    /** The same Send asking the peer to invalidate {@code stag} (Send with Invalidate, RFC 5040 §5.3). */
    public SendWorkRequest withInvalidate(int stag) {
        return new SendWorkRequest(wrId, opcode, sgl, remoteStag, remoteTaggedOffset, true, stag, signaled,
                solicited, immediateData, atomic);
    }

    /** The same request without a completion on success. */
    public SendWorkRequest unsignaled() {
        return new SendWorkRequest(wrId, opcode, sgl, remoteStag, remoteTaggedOffset, invalidate, invalidateStag,
                false, solicited, immediateData, atomic);
    }

    /** Octets in the scatter/gather list. */
    public long length() {
        long total = 0;
        // Indexed: called per message, and a list iterator is an allocation the JIT does not always remove.
        for (int i = 0; i < sgl.size(); i++) {
            total += sgl.get(i).length();
        }
        return total;
    }
}
