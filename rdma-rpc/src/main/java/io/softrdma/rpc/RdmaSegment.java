package io.softrdma.rpc;

import io.netty.buffer.ByteBuf;
import io.softrdma.verbs.RemoteMemoryCodec;

/**
 * An RDMA segment (RFC 8166 §4.1.1, {@code struct xdr_rdma_segment}): a handle (STag), a length in octets and a
 * 64-bit offset (tagged offset) naming registered memory of the requester. On the wire through
 * {@link RemoteMemoryCodec#RPC_RDMA_SEGMENT}, SoftRDMA's one codec for remote regions.
 *
 * @param handle the STag
 * @param length octets
 * @param offset the tagged offset of the first octet
 */
public record RdmaSegment(int handle, int length, long offset) {
    /** Octets on the wire. */
    public static final int LENGTH = RemoteMemoryCodec.LENGTH;
    private static final RemoteMemoryCodec CODEC = RemoteMemoryCodec.RPC_RDMA_SEGMENT;

    /** RFC 8166 §4.1.1: handle, length, offset, big-endian. */
    void encode(ByteBuf out) {
        out.ensureWritable(LENGTH);
        CODEC.set(out, out.writerIndex(), handle, offset, unsignedLength());
        out.writerIndex(out.writerIndex() + LENGTH);
    }

    static RdmaSegment decode(ByteBuf in) {
        Xdr.require(in, LENGTH, "RDMA segment");
        int at = in.readerIndex();
        RdmaSegment s = new RdmaSegment(CODEC.stag(in, at), (int) CODEC.length(in, at), CODEC.taggedOffset(in, at));
        in.skipBytes(LENGTH);
        return s;
    }

    /** The length as an unsigned number. */
    public long unsignedLength() {
        return Integer.toUnsignedLong(length);
    }

    @Override
    public String toString() {
        return String.format("segment{handle=0x%08x length=%d offset=0x%x}", handle, unsignedLength(), offset);
    }
}
