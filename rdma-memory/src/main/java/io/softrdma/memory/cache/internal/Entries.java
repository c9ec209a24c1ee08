package io.softrdma.memory.cache.internal;

import static io.softrdma.memory.cache.internal.TableLayout.ENTRY_HEADER;

import io.netty.buffer.ByteBuf;

/**
 * One entry of the log, as octets (its length is in the slot that points to it):
 *
 * <pre>
 *   0  u32 CRC-32C of octets 4..length-1    4  u32 stamp (the slot's: which write this is)
 *   8  u64 key hash (KeyHash)               16  u64 expires at, ms since the epoch on the owner's clock (0 = never)
 *  24  u32 key length                       28  u32 value length
 *  32  key, then value
 * </pre>
 *
 * The full hash lets a reader tell a different key whose tag collided (look at the next slot) from the key's own
 * entry; the stamp, equal to the slot's, tells the entry the bucket pointed to from one written in its space since
 * (retry): a GET returns exactly the value its bucket read pointed to.
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
    static int write(ByteBuf region, int at, int stamp, long hash, long expiresAt, ByteBuf key, ByteBuf value) {
        int k = key.readableBytes();
        int v = value.readableBytes();
        region.setInt(at + 4, stamp);
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
     * Checks an entry read whole ({@code length} octets at {@code at}) against the slot that pointed to it (its
     * stamp) and the hash the reader looked up: {@link TornReadException} if it changed while read or is not the
     * entry the slot pointed to. Returns normally for that entry (whose key may still differ: a tag collision).
     */
    public static void verify(ByteBuf entry, int at, int length, long hash, int stamp) {
        if (!intact(entry, at, length)) {
            throw new TornReadException("entry");
        }
        if (entry.getInt(at + 4) != stamp || entry.getLong(at + 8) != hash) {
            throw new TornReadException("entry's space, reused,");
        }
    }

    /** Whether the entry's checksum and lengths agree with {@code length}, the octets read. */
    public static boolean intact(ByteBuf entry, int at, int length) {
        return length >= ENTRY_HEADER && Checksums.crc32c(entry, at + 4, length - 4) == entry.getInt(at)
                && length(entry.getInt(at + 24), entry.getInt(at + 28)) == length;
    }

    public static int stamp(ByteBuf entry, int at) {
        return entry.getInt(at + 4);
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
