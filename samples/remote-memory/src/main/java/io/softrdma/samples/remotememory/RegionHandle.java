package io.softrdma.samples.remotememory;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.softrdma.verbs.RemoteMemory;
import io.softrdma.verbs.RemoteMemoryCodec;

/**
 * What a client needs to RDMA-Read and RDMA-Write a region lent to its connection: the STag, the tagged offset
 * of its first octet and its length (RFC 5040 §2.1). Valid only on the connection it was made for: each
 * connection has its own protection domain.
 *
 * @param stag the region's STag
 * @param taggedOffset the tagged offset of its first octet
 * @param length its length in octets
 */
public record RegionHandle(int stag, long taggedOffset, long length) {

    /** Octets of {@link #encode()}. */
    public static final int LENGTH = RemoteMemoryCodec.LENGTH;

    /**
     * The handle of {@code remote}.
     *
     * @param remote a remote region
     * @return its handle
     */
    public static RegionHandle of(RemoteMemory remote) {
        return new RegionHandle(remote.stag(), remote.taggedOffset(), remote.length());
    }

    /**
     * The remote region this handle names.
     *
     * @return STag, tagged offset and length
     */
    public RemoteMemory toRemoteMemory() {
        return new RemoteMemory(stag, taggedOffset, length);
    }

    /**
     * 16 octets, big-endian: STag (4), tagged offset (8), length (4) — {@link RemoteMemoryCodec#STAG_OFFSET_LENGTH}.
     *
     * @return a new buffer
     */
    public ByteBuf encode() {
        ByteBuf out = Unpooled.buffer(LENGTH);
        RemoteMemoryCodec.STAG_OFFSET_LENGTH.write(out, toRemoteMemory());
        return out;
    }

    /**
     * Reads {@link #encode()}'s format.
     *
     * @param b 16 octets
     * @return the handle
     * @throws IllegalArgumentException if {@code b} is not 16 octets
     */
    public static RegionHandle decode(ByteBuf b) {
        if (b.readableBytes() != LENGTH) {
            throw new IllegalArgumentException("a region handle is " + LENGTH + " octets, not " + b.readableBytes());
        }
        return of(RemoteMemoryCodec.STAG_OFFSET_LENGTH.read(b));
    }
}
