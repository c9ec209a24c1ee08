package io.softrdma.verbs;

import io.netty.buffer.ByteBuf;

/**
 * The one wire codec for a remote region — what RFC 5040 §2.3 calls an advertisement: a 32-bit STag, a 64-bit tagged
 * offset and a 32-bit length, 16 octets, big-endian. Every protocol SoftRDMA speaks that sends one uses this codec;
 * they differ only in the order of the fields, which their specifications fix:
 *
 * <pre>
 *   {@link #STAG_OFFSET_LENGTH}  STag (4) | tagged offset (8) | length (4)   SoftRDMA messaging's LARGE (docs/protocol.md),
 *                                                                    the remote-memory sample's handles
 *   {@link #RPC_RDMA_SEGMENT}    handle (4) | length (4) | offset (8)        RFC 8166 §4.1.1 xdr_rdma_segment
 * </pre>
 *
 * <p>The length is an unsigned 32-bit field: a region of more than 2<sup>32</sup>−1 octets cannot be sent whole.
 * Reading checks nothing but the octets' presence; what a region may be (non-empty, within a bound, not wrapping past
 * 2<sup>64</sup>) is for the protocol that reads it to decide, with the error it names.
 *
 * <p>Thread safety: stateless.
 */
public enum RemoteMemoryCodec {
    /** STag, tagged offset, length. */
    STAG_OFFSET_LENGTH(0, 4, 12),
    /** RFC 8166 §4.1.1: handle (the STag), length, offset (the tagged offset). */
    RPC_RDMA_SEGMENT(0, 8, 4);

    /** Octets on the wire. */
    public static final int LENGTH = 16;
    /** The largest length the field holds. */
    public static final long MAX_LENGTH = 0xFFFF_FFFFL;

    private final int stagAt;
    private final int offsetAt;
    private final int lengthAt;

    RemoteMemoryCodec(int stagAt, int offsetAt, int lengthAt) {
        this.stagAt = stagAt;
        this.offsetAt = offsetAt;
        this.lengthAt = lengthAt;
    }

    /**
     * Writes {@code region} at {@code index}; the buffer's indices do not move.
     *
     * @throws IllegalArgumentException if the region is longer than {@link #MAX_LENGTH}
     */
    public void set(ByteBuf out, int index, RemoteMemory region) {
        set(out, index, region.stag(), region.taggedOffset(), region.length());
    }

    /** As {@link #set(ByteBuf, int, RemoteMemory)}, from the fields. */
    public void set(ByteBuf out, int index, int stag, long taggedOffset, long length) {
        if (length < 0 || length > MAX_LENGTH) {
            throw new IllegalArgumentException("a region of " + length + " octets does not fit the 32-bit length"
                    + " field; advertise at most " + MAX_LENGTH + " octets at a time");
        }
        out.setInt(index + stagAt, stag);
        out.setLong(index + offsetAt, taggedOffset);
        out.setInt(index + lengthAt, (int) length);
    }

    /** Writes {@code region} at the writer index and advances it by {@link #LENGTH}. */
    public void write(ByteBuf out, RemoteMemory region) {
        out.ensureWritable(LENGTH);
        set(out, out.writerIndex(), region);
        out.writerIndex(out.writerIndex() + LENGTH);
    }

    /** The region at {@code index}; the buffer's indices do not move. */
    public RemoteMemory get(ByteBuf in, int index) {
        return new RemoteMemory(stag(in, index), taggedOffset(in, index), length(in, index));
    }

    /**
     * The region at the reader index, which advances by {@link #LENGTH}.
     *
     * @throws IndexOutOfBoundsException if fewer than {@link #LENGTH} octets are readable
     */
    public RemoteMemory read(ByteBuf in) {
        if (in.readableBytes() < LENGTH) {
            throw new IndexOutOfBoundsException("a remote region is " + LENGTH + " octets; "
                    + in.readableBytes() + " are readable");
        }
        RemoteMemory m = get(in, in.readerIndex());
        in.skipBytes(LENGTH);
        return m;
    }

    /** The STag of the region at {@code index}. */
    public int stag(ByteBuf in, int index) {
        return in.getInt(index + stagAt);
    }

    /** The tagged offset of the region at {@code index}, an unsigned 64-bit value. */
    public long taggedOffset(ByteBuf in, int index) {
        return in.getLong(index + offsetAt);
    }

    /** The length of the region at {@code index}, unsigned. */
    public long length(ByteBuf in, int index) {
        return in.getUnsignedInt(index + lengthAt);
    }
}
