package io.softrdma.memory.cache.internal;

import static io.softrdma.memory.cache.internal.TableLayout.ENTRY_HEADER;

import io.netty.buffer.ByteBuf;

/**
 * One entry of the log, as octets (its length is in the slot that points to it):
 *
 * <pre>
 *   0  u32 CRC-32C of octets 8..length-1    4  u32 state: LIVE 0, PENDING 1, DEAD 2 (outside the checksum)
 *   8  u32 stamp (the slot's: which write)  12  u32 zero
 *  16  u64 key hash (KeyHash)               24  u64 expires at, ms since the epoch on the owner's clock (0 = never)
 *  32  u32 key length                       36  u32 value length
 *  40  key, then value
 * </pre>
 *
 * The full hash lets a reader tell a different key whose tag collided (look at the next slot) from the key's own
 * entry; the stamp, equal to the slot's, tells the entry the bucket pointed to from one written in its space since
 * (retry): a GET through the bucket returns exactly the value its bucket read pointed to.
 *
 * <p>The state lets a reader that knows where a key's entry is read the entry alone: the owner writes an entry
 * PENDING, makes the slot point to it, then marks the entry it replaced DEAD and the new one LIVE, and answers the
 * PUT only then; deletes, evictions and expiries mark the entry DEAD before they answer. So a LIVE entry was the
 * key's current value when it was read, and a read that begins after a PUT or DELETE was answered never sees the
 * entry that request replaced as LIVE.
 *
 * <p>Thread safety: stateless; the buffers are the caller's.
 */
public final class Entries {
    public static final int LIVE = 0;
    public static final int PENDING = 1;
    public static final int DEAD = 2;

    private Entries() {
    }

    public static int length(int keyLength, int valueLength) {
        return ENTRY_HEADER + keyLength + valueLength;
    }

    /** Writes a PENDING entry at {@code at}, checksum last; reads neither index of {@code key} nor {@code value}. */
    static int write(ByteBuf region, int at, int stamp, long hash, long expiresAt, ByteBuf key, ByteBuf value) {
        int k = key.readableBytes();
        int v = value.readableBytes();
        region.setInt(at + 4, PENDING);
        region.setInt(at + 8, stamp);
        region.setInt(at + 12, 0);
        region.setLong(at + 16, hash);
        region.setLong(at + 24, expiresAt);
        region.setInt(at + 32, k);
        region.setInt(at + 36, v);
        region.setBytes(at + ENTRY_HEADER, key, key.readerIndex(), k);
        region.setBytes(at + ENTRY_HEADER + k, value, value.readerIndex(), v);
        int length = length(k, v);
        region.setInt(at, Checksums.crc32c(region, at + 8, length - 8));
        return length;
    }

    /** Sets the entry's state (LIVE, DEAD); outside its checksum, so the entry stays intact. */
    static void setState(ByteBuf region, int at, int state) {
        region.setInt(at + 4, state);
    }

    public static int state(ByteBuf entry, int at) {
        return entry.getInt(at + 4);
    }

    /**
     * Checks an entry read whole ({@code length} octets at {@code at}) against the slot that pointed to it (its
     * stamp) and the hash the reader looked up: {@link TornReadException} if it changed while read or is not the
     * entry the slot pointed to. Returns normally for that entry (whose key may still differ: a tag collision),
     * whatever its state: it was the slot's when the bucket was read.
     */
    public static void verify(ByteBuf entry, int at, int length, long hash, int stamp) {
        if (!intact(entry, at, length)) {
            throw new TornReadException("entry");
        }
        if (stamp(entry, at) != stamp || hash(entry, at) != hash) {
            throw new TornReadException("entry's space, reused,");
        }
    }

    /** Whether the entry's checksum and lengths agree with {@code length}, the octets read. */
    public static boolean intact(ByteBuf entry, int at, int length) {
        return length >= ENTRY_HEADER && Checksums.crc32c(entry, at + 8, length - 8) == entry.getInt(at)
                && length(entry.getInt(at + 32), entry.getInt(at + 36)) == length;
    }

    public static int stamp(ByteBuf entry, int at) {
        return entry.getInt(at + 8);
    }

    public static long hash(ByteBuf entry, int at) {
        return entry.getLong(at + 16);
    }

    public static long expiresAt(ByteBuf entry, int at) {
        return entry.getLong(at + 24);
    }

    public static boolean expired(ByteBuf entry, int at, long nowMillis) {
        long expiresAt = expiresAt(entry, at);
        return expiresAt != 0 && expiresAt <= nowMillis;
    }

    public static boolean keyEquals(ByteBuf entry, int at, ByteBuf key) {
        int k = entry.getInt(at + 32);
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
        int k = entry.getInt(at + 32);
        return entry.slice(at + ENTRY_HEADER + k, entry.getInt(at + 36));
    }
}
