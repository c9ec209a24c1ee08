package io.softrdma.memory.cache.internal;

import static io.softrdma.memory.cache.internal.TableLayout.BUCKET_HEADER;
import static io.softrdma.memory.cache.internal.TableLayout.BUCKET_SIZE;
import static io.softrdma.memory.cache.internal.TableLayout.SLOT_SIZE;

import io.netty.buffer.ByteBuf;

/**
 * One bucket of the table, as octets ({@value TableLayout#BUCKET_SIZE} of them at {@code base}):
 *
 * <pre>
 *   0  u32 CRC-32C of octets 4..127      4  u32 version (+1 on every change)
 *   8  7 slots of 16 octets: u32 tag (0 = free), u32 entry length, u32 entry stamp, u32 entry offset in the region
 * 120  u64 table id (the header's: a reader holding another table's layout finds out here)
 * </pre>
 *
 * The owner changes the slots first and the checksum last, so a reader that reads the bucket while it changes sees
 * a checksum that does not match (and retries) rather than a slot half old and half new.
 *
 * <p>Thread safety: stateless; the buffers are the caller's.
 */
public final class Buckets {
    private Buckets() {
    }

    static int slotBase(int base, int slot) {
        return base + BUCKET_HEADER + slot * SLOT_SIZE;
    }

    public static int tag(ByteBuf bucket, int base, int slot) {
        return bucket.getInt(slotBase(base, slot));
    }

    public static int entryLength(ByteBuf bucket, int base, int slot) {
        return bucket.getInt(slotBase(base, slot) + 4);
    }

    /** The stamp of the entry the slot points to: the entry carries it too, so a reader knows it read that one. */
    public static int stamp(ByteBuf bucket, int base, int slot) {
        return bucket.getInt(slotBase(base, slot) + 8);
    }

    public static long entryOffset(ByteBuf bucket, int base, int slot) {
        return bucket.getUnsignedInt(slotBase(base, slot) + 12);
    }

    public static int version(ByteBuf bucket, int base) {
        return bucket.getInt(base + 4);
    }

    /** Throws {@link TornReadException} unless the bucket's checksum matches its contents. */
    public static void verify(ByteBuf bucket, int base) {
        if (Checksums.crc32c(bucket, base + 4, BUCKET_SIZE - 4) != bucket.getInt(base)) {
            throw new TornReadException("bucket");
        }
    }

    static void setSlot(ByteBuf region, int base, int slot, int tag, int entryLength, int stamp, int entryOffset) {
        int at = slotBase(base, slot);
        region.setInt(at, tag);
        region.setInt(at + 4, entryLength);
        region.setInt(at + 8, stamp);
        region.setInt(at + 12, entryOffset);
    }

    static void clearSlot(ByteBuf region, int base, int slot) {
        setSlot(region, base, slot, 0, 0, 0, 0);
    }

    /** After changing slots: a new version, then the checksum, last. */
    static void seal(ByteBuf region, int base) {
        region.setInt(base + 4, region.getInt(base + 4) + 1);
        region.setInt(base, Checksums.crc32c(region, base + 4, BUCKET_SIZE - 4));
    }

    /** An empty, sealed bucket of the table {@code tableId}. */
    static void format(ByteBuf region, int base, long tableId) {
        region.setZero(base, BUCKET_SIZE);
        region.setLong(base + BUCKET_SIZE - 8, tableId);
        seal(region, base);
    }

    public static long tableId(ByteBuf bucket, int base) {
        return bucket.getLong(base + BUCKET_SIZE - 8);
    }
}
