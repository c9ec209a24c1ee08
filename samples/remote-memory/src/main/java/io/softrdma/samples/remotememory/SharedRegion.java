package io.softrdma.samples.remotememory;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * The memory the service lends: one direct buffer, filled with a seeded pattern at start, registered for each
 * RDMA connection in that connection's protection domain. Clients read and write it directly; the service reads
 * it only to report its checksum.
 *
 * <p>Thread safety: the buffer is shared with the network (that is the point of RDMA); {@link #sha256()} reads
 * whatever is there at the time.
 */
public final class SharedRegion implements AutoCloseable {
    private final ByteBuf memory;

    /**
     * A region of {@code size} octets holding {@link #pattern(int, long)}.
     *
     * @param size octets
     * @param seed the pattern's seed
     */
    public SharedRegion(int size, long seed) {
        this.memory = Unpooled.directBuffer(size, size);
        memory.writeBytes(pattern(size, seed));
    }

    /**
     * The deterministic content both sides can compute: a xorshift stream from {@code seed}.
     *
     * @param size octets
     * @param seed the seed
     * @return the pattern
     */
    public static byte[] pattern(int size, long seed) {
        byte[] b = new byte[size];
        long x = seed == 0 ? 0x9E3779B97F4A7C15L : seed;
        for (int i = 0; i < size; i++) {
            x ^= x << 13;
            x ^= x >>> 7;
            x ^= x << 17;
            b[i] = (byte) x;
        }
        return b;
    }

    /**
     * The buffer to register with each session.
     *
     * @return the memory (not a copy)
     */
    public ByteBuf memory() {
        return memory;
    }

    /**
     * Its length.
     *
     * @return octets
     */
    public int length() {
        return memory.capacity();
    }

    /**
     * The SHA-256 of its content now, hex.
     *
     * @return the digest
     */
    public String sha256() {
        return sha256(memory, 0, memory.capacity());
    }

    /**
     * The SHA-256 of {@code length} octets of {@code b} from {@code index}, hex.
     *
     * @param b a buffer
     * @param index the first octet
     * @param length octets
     * @return the digest
     */
    public static String sha256(ByteBuf b, int index, int length) {
        try {
            MessageDigest d = MessageDigest.getInstance("SHA-256");
            d.update(b.nioBuffer(index, length));
            return HexFormat.of().formatHex(d.digest());
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * The SHA-256 of {@code data}, hex.
     *
     * @param data octets
     * @return the digest
     */
    public static String sha256(byte[] data) {
        return sha256(Unpooled.wrappedBuffer(data), 0, data.length);
    }

    @Override
    public void close() {
        memory.release();
    }
}
