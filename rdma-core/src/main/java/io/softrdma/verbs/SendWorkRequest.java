package io.softrdma.verbs;

import java.util.List;
import java.util.Objects;

/**
 * A work request for a queue pair's send queue (RFC 5040 §3.2): a Send (optionally with Solicited
 * Event and/or Invalidate), an RDMA Write, an RDMA Read, or a local invalidate. Build one with the
 * static factories and the {@code with…} methods.
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
 * @param solicited Send with Solicited Event
 */
public record SendWorkRequest(long wrId, Opcode opcode, List<ScatterGatherEntry> sgl, int remoteStag,
        long remoteTaggedOffset, boolean invalidate, int invalidateStag, boolean signaled, boolean solicited) {

    /** The operations of the send queue. */
    public enum Opcode {
        SEND, RDMA_WRITE, RDMA_READ, LOCAL_INVALIDATE
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
        if (opcode != Opcode.SEND && solicited) {
            throw new IllegalArgumentException("only a Send can carry a Solicited Event, not " + opcode);
        }
        if (opcode != Opcode.SEND && opcode != Opcode.LOCAL_INVALIDATE && invalidate) {
            throw new IllegalArgumentException("only a Send (or a local invalidate) invalidates an STag, not "
                    + opcode);
        }
        long total = 0;
        for (ScatterGatherEntry e : sgl) {
            total += e.length();
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

    /** Invalidates a local STag, in send-queue order. */
    public static SendWorkRequest localInvalidate(long wrId, int stag) {
        return new SendWorkRequest(wrId, Opcode.LOCAL_INVALIDATE, List.of(), 0, 0, true, stag, true, false);
    }

    /** The same Send with a Solicited Event (RFC 5040 §5.3). */
    public SendWorkRequest withSolicitedEvent() {
        return new SendWorkRequest(wrId, opcode, sgl, remoteStag, remoteTaggedOffset, invalidate, invalidateStag,
                signaled, true);
    }

    /** The same Send asking the peer to invalidate {@code stag} (Send with Invalidate, RFC 5040 §5.3). */
    public SendWorkRequest withInvalidate(int stag) {
        return new SendWorkRequest(wrId, opcode, sgl, remoteStag, remoteTaggedOffset, true, stag, signaled,
                solicited);
    }

    /** The same request without a completion on success. */
    public SendWorkRequest unsignaled() {
        return new SendWorkRequest(wrId, opcode, sgl, remoteStag, remoteTaggedOffset, invalidate, invalidateStag,
                false, solicited);
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
