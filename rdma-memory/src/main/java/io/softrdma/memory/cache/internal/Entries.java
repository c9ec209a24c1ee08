package io.softrdma.memory.cache.internal;

import static io.softrdma.memory.cache.internal.TableLayout.ENTRY_HEADER;

import io.netty.buffer.ByteBuf;

/**
 * One entry of the log, as octets (its length is in the slot that points to it):
 *
 * <pre>
 *   0  u32 CRC-32C of octets 4..length-1    4  u32 flags (0)
 *   8  u64 key hash (KeyHash)               16  u64 expires at, ms since the epoch on the owner's clock (0 = never)
 *  24  u32 key length                       28  u32 value length
 *  32  key, then value
 * </pre>
 *
 * The full hash lets a reader tell an entry that replaced the one its bucket pointed to (its space reused: retry)
 * from a different key whose tag collided (look at the next slot).
 *
 * <p>Thread safety: stateless; the buffers are the caller's.
 */
public final class Entries {
    private Entries() {
    }

    public static int length(int keyLength, int valueLength) {
        return ENTRY_HEADER + keyLength + valueLength;
    }

    /** Writes an entry at {@code at}, checksum last; reads neither index of {@code key} nor {@code value}. */
    static int write(ByteBuf region, int at, long hash, long expiresAt, ByteBuf key, ByteBuf value) {
        int k = key.readableBytes();
        int v = value.readableBytes();
        region.setInt(at + 4, 0);
        region.setLong(at + 8, hash);
        region.setLong(at + 16, expiresAt);
        region.setInt(at + 24, k);
        region.setInt(at + 28, v);
        region.setBytes(at + ENTRY_HEADER, key, key.readerIndex(), k);
        region.setBytes(at + ENTRY_HEADER + k, value, value.readerIndex(), v);
        int length = length(k, v);
        region.setInt(at, Checksums.crc32c(region, at + 4, length - 4));
        return length;
    }

    /**
     * Checks an entry read whole ({@code length} octets at {@code at}) against the hash the reader looked up:
     * {@link TornReadException} if it changed while read or is not the entry the bucket pointed to when it was read.
     * Returns normally for an intact entry of this hash (whose key may still differ: a tag collision).
     */
    public static void verify(ByteBuf entry, int at, int length, long hash) {
        if (length < ENTRY_HEADER || Checksums.crc32c(entry, at + 4, length - 4) != entry.getInt(at)
                || length(entry.getInt(at + 24), entry.getInt(at + 28)) != length) {
            throw new TornReadException("entry");
        }
        if (entry.getLong(at + 8) != hash) {
            throw new TornReadException("entry's space, reused,");
        }
    }

    public static long hash(ByteBuf entry, int at) {
        return entry.getLong(at + 8);
    }

    public static long expiresAt(ByteBuf entry, int at) {
        return entry.getLong(at + 16);
    }

    public static boolean expired(ByteBuf entry, int at, long nowMillis) {
        long expiresAt = expiresAt(entry, at);
        return expiresAt != 0 && expiresAt <= nowMillis;
    }

    public static boolean keyEquals(ByteBuf entry, int at, ByteBuf key) {
        int k = entry.getInt(at + 24);
        if (k != key.readableBytes()) {
            return false;
        }
        // Not ByteBufUtil.equals: it compares only up to writerIndex, and the region is written by absolute index.
        int from = at + ENTRY_HEADER;
        int keyAt = key.readerIndex();
        int i = 0;
        for (; i + 8 <= k; i += 8) {
            if (entry.getLong(from + i) != key.getLong(keyAt + i)) {
                return false;
            }
        }
        for (; i < k; i++) {
            if (entry.getByte(from + i) != key.getByte(keyAt + i)) {
                return false;
            }
        }
        return true;
    }

    /** The value, a slice of {@code entry} (same ownership, no copy). */
    public static ByteBuf value(ByteBuf entry, int at) {
        int k = entry.getInt(at + 24);
        return entry.slice(at + ENTRY_HEADER + k, entry.getInt(at + 28));
    }
}
