package io.softrdma.samples.rping;

import io.netty.buffer.ByteBuf;
import java.util.Objects;

/**
 * The 16-octet message rping's two sides exchange in Sends, {@code struct rping_rdma_info} of
 * librdmacm's {@code examples/rping.c}, all fields big-endian:
 *
 * <pre>
 *   0               8       12      16
 *   +---------------+-------+-------+
 *   |  buf (be64)   | rkey  | size  |
 *   +---------------+-------+-------+
 * </pre>
 *
 * The client advertises a buffer with it (its address as tagged offset, its STag, its length); the
 * server's "go ahead" is the same 16 octets, all zero.
 *
 * <p>Thread safety: immutable.
 *
 * @param buf the tagged offset of the buffer's first octet (a Linux peer sends its virtual address)
 * @param rkey the buffer's STag
 * @param size the buffer's length in octets (an unsigned 32-bit value on the wire)
 */
public record RpingInfo(long buf, int rkey, int size) {
    /** Octets on the wire. */
    public static final int LENGTH = 16;

    /** The server's "go ahead": rping sends its zero-initialized send buffer. */
    public static final RpingInfo GO_AHEAD = new RpingInfo(0, 0, 0);

    /** Writes the 16 octets at {@code index} of {@code dst}, leaving its indices alone. */
    public void encode(ByteBuf dst, int index) {
        dst.setLong(index, buf);
        dst.setInt(index + 8, rkey);
        dst.setInt(index + 12, size);
    }

    /** The 16 octets as an array. */
    public byte[] encode() {
        byte[] out = new byte[LENGTH];
        long b = buf;
        for (int i = 7; i >= 0; i--) {
            out[i] = (byte) b;
            b >>>= 8;
        }
        putInt(out, 8, rkey);
        putInt(out, 12, size);
        return out;
    }

    /** Reads the 16 octets at {@code index} of {@code src}, leaving its indices alone. */
    public static RpingInfo decode(ByteBuf src, int index) {
        Objects.requireNonNull(src, "src");
        return new RpingInfo(src.getLong(index), src.getInt(index + 8), src.getInt(index + 12));
    }

    /**
     * Reads the 16 octets of {@code src}.
     *
     * @throws IllegalArgumentException if {@code src} is not 16 octets long
     */
    public static RpingInfo decode(byte[] src) {
        if (src.length != LENGTH) {
            throw new IllegalArgumentException("an rping_rdma_info is " + LENGTH + " octets, not " + src.length);
        }
        long b = 0;
        for (int i = 0; i < 8; i++) {
            b = b << 8 | (src[i] & 0xFF);
        }
        return new RpingInfo(b, getInt(src, 8), getInt(src, 12));
    }

    /** The size as the unsigned number it is on the wire. */
    public long unsignedSize() {
        return Integer.toUnsignedLong(size);
    }

    private static void putInt(byte[] dst, int at, int v) {
        dst[at] = (byte) (v >>> 24);
        dst[at + 1] = (byte) (v >>> 16);
        dst[at + 2] = (byte) (v >>> 8);
        dst[at + 3] = (byte) v;
    }

    private static int getInt(byte[] src, int at) {
        return (src[at] & 0xFF) << 24 | (src[at + 1] & 0xFF) << 16 | (src[at + 2] & 0xFF) << 8 | src[at + 3] & 0xFF;
    }

    /** As rping's debug output: address and STag in hex, size in decimal. */
    @Override
    public String toString() {
        return String.format("buf=0x%016x rkey=0x%08x size=%d", buf, rkey, unsignedSize());
    }
}
