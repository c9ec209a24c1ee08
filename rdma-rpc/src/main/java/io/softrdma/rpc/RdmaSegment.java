package io.softrdma.rpc;

import io.netty.buffer.ByteBuf;

/**
 * An RDMA segment (RFC 8166 §4.1.1, {@code struct xdr_rdma_segment}): a handle (STag), a length in octets and a
 * 64-bit offset (tagged offset) naming registered memory of the requester.
 *
 * @param handle the STag
 * @param length octets
 * @param offset the tagged offset of the first octet
 */
public record RdmaSegment(int handle, int length, long offset) {
    /** Octets on the wire. */
    public static final int LENGTH = 16;

    void encode(ByteBuf out) {
        out.writeInt(handle);
        out.writeInt(length);
        out.writeLong(offset);
    }

    static RdmaSegment decode(ByteBuf in) {
        Xdr.require(in, LENGTH, "RDMA segment");
        return new RdmaSegment(in.readInt(), in.readInt(), in.readLong());
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
