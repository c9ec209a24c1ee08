package io.softrdma.memory.cache.internal;

import io.netty.buffer.ByteBuf;

/**
 * The 64-bit hash of an encoded key that places it in the table: FNV-1a over the octets, then MurmurHash3's 64-bit
 * finaliser so that every output bit depends on every input bit (FNV-1a alone leaves the high bits weak, and the
 * bucket index is taken from them). Stable across JVMs and releases: clients and the owner must agree on it, so it
 * is part of the table layout (docs/protocol.md).
 *
 * <p>Thread safety: stateless.
 */
public final class KeyHash {
    private static final long FNV_OFFSET = 0xcbf29ce484222325L;
    private static final long FNV_PRIME = 0x100000001b3L;

    private KeyHash() {
    }

    /** The hash of the readable octets of {@code key}; does not move its indices. */
    public static long of(ByteBuf key) {
        long h = FNV_OFFSET;
        for (int i = key.readerIndex(), end = key.writerIndex(); i < end; i++) {
            h ^= key.getByte(i) & 0xff;
            h *= FNV_PRIME;
        }
        return fmix64(h);
    }

    static long fmix64(long k) {
        k ^= k >>> 33;
        k *= 0xff51afd7ed558ccdL;
        k ^= k >>> 33;
        k *= 0xc4ceb9fe1a85ec53L;
        k ^= k >>> 33;
        return k;
    }

    /** The non-zero 32-bit tag a bucket slot keeps of the hash (zero marks a free slot). */
    public static int tag(long hash) {
        int tag = (int) hash;
        return tag == 0 ? 1 : tag;
    }

    /** The bucket of the hash in a table of {@code bucketCount} buckets (a power of two): its high bits. */
    public static int bucket(long hash, int bucketCount) {
        return (int) ((hash >>> 32) & (bucketCount - 1));
    }
}
