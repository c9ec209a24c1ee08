package io.softrdma.memory.cache.internal;

import io.netty.buffer.ByteBuf;

/**
 * Where things are in a cache region (docs/protocol.md, "RDMA cache table"): a 64-octet header, then the bucket array
 * ({@code bucketCount} buckets of {@value #BUCKET_SIZE} octets, each {@value #SLOTS} slots), then the entry log that
 * takes the rest of the region. All fields are big-endian, as on the wire.
 *
 * <pre>
 * header (64 octets, at offset 0)
 *   0  u32 magic "RDC1"      4  u32 layout version (1)
 *   8  u32 bucket count     12  u32 slots per bucket (7)
 *  16  u32 bucket size (128) 20  u32 entry header size (40)
 *  24  u64 entry log offset 32  u64 entry log length
 *  40  u64 table id (random per format: a reader that sees it change re-reads the header)
 *  48  12 octets zero       60  u32 CRC-32C of octets 0..59
 * </pre>
 *
 * <p>Thread safety: immutable.
 */
public final class TableLayout {
    public static final int MAGIC = 0x52444331; // "RDC1"
    public static final int VERSION = 1;
    public static final int HEADER_SIZE = 64;
    public static final int BUCKET_SIZE = 128;
    public static final int SLOTS = 7;
    public static final int SLOT_SIZE = 16;
    /** Octets of a bucket before its first slot: CRC-32C and version. */
    public static final int BUCKET_HEADER = 8;
    public static final int ENTRY_HEADER = 40;
    /** Entries start on 8-octet boundaries in the log. */
    public static final int ALIGN = 8;
    /** The smallest region worth a table: the header, one bucket and room for a few entries. */
    public static final int MIN_REGION = HEADER_SIZE + BUCKET_SIZE + 4096;

    private final int bucketCount;
    private final int logOffset;
    private final int logLength;
    private final long tableId;

    private TableLayout(int bucketCount, int logOffset, int logLength, long tableId) {
        this.bucketCount = bucketCount;
        this.logOffset = logOffset;
        this.logLength = logLength;
        this.tableId = tableId;
    }

    /**
     * The layout of a region of {@code regionSize} octets with {@code bucketCount} buckets (a power of two; 0 picks
     * one bucket per KiB of region, i.e. seven slots per KiB, which fills the slots and the log together at entries of
     * about 150 octets).
     */
    public static TableLayout plan(long regionSize, int bucketCount, long tableId) {
        if (regionSize < MIN_REGION || regionSize > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("a cache region must be " + MIN_REGION + " to " + Integer.MAX_VALUE
                    + " octets, not " + regionSize);
        }
        int buckets = bucketCount == 0 ? defaultBuckets(regionSize) : bucketCount;
        if (buckets < 1 || Integer.bitCount(buckets) != 1) {
            throw new IllegalArgumentException("bucket count must be a power of two, not " + buckets);
        }
        long logOffset = HEADER_SIZE + (long) buckets * BUCKET_SIZE;
        long logLength = (regionSize - logOffset) & ~(ALIGN - 1L);
        if (logLength < 4096) {
            throw new IllegalArgumentException(buckets + " buckets leave " + Math.max(0, logLength)
                    + " octets of a " + regionSize + "-octet region for entries: use fewer buckets or a larger region");
        }
        return new TableLayout(buckets, (int) logOffset, (int) logLength, tableId);
    }

    static int defaultBuckets(long regionSize) {
        return Integer.highestOneBit((int) Math.max(1, regionSize / 1024));
    }

    /** Writes the header at index 0 of {@code region}. */
    public void writeHeader(ByteBuf region) {
        region.setZero(0, HEADER_SIZE);
        region.setInt(0, MAGIC);
        region.setInt(4, VERSION);
        region.setInt(8, bucketCount);
        region.setInt(12, SLOTS);
        region.setInt(16, BUCKET_SIZE);
        region.setInt(20, ENTRY_HEADER);
        region.setLong(24, logOffset);
        region.setLong(32, logLength);
        region.setLong(40, tableId);
        region.setInt(60, Checksums.crc32c(region, 0, 60));
    }

    /**
     * The layout a header describes ({@code header}'s first 64 readable octets), or an error saying what is wrong
     * with it: not a cache region, another layout version, or a torn header (a table formatted while it was read).
     */
    public static TableLayout readHeader(ByteBuf header) {
        int at = header.readerIndex();
        if (header.readableBytes() < HEADER_SIZE) {
            throw new IllegalStateException("a cache table header is " + HEADER_SIZE + " octets, got "
                    + header.readableBytes());
        }
        if (header.getInt(at) != MAGIC) {
            throw new IllegalStateException("not an RDMA cache region (magic " + Integer.toHexString(header.getInt(at))
                    + ")");
        }
        if (Checksums.crc32c(header, at, 60) != header.getInt(at + 60)) {
            throw new TornReadException("table header");
        }
        if (header.getInt(at + 4) != VERSION || header.getInt(at + 12) != SLOTS
                || header.getInt(at + 16) != BUCKET_SIZE || header.getInt(at + 20) != ENTRY_HEADER) {
            throw new IllegalStateException("cache table layout version " + header.getInt(at + 4)
                    + " is not supported here (version " + VERSION + ")");
        }
        int buckets = header.getInt(at + 8);
        long logOffset = header.getLong(at + 24);
        long logLength = header.getLong(at + 32);
        if (buckets < 1 || Integer.bitCount(buckets) != 1 || logOffset != HEADER_SIZE + (long) buckets * BUCKET_SIZE
                || logLength <= 0 || logOffset + logLength > Integer.MAX_VALUE) {
            throw new IllegalStateException("inconsistent cache table header: " + buckets + " buckets, log at "
                    + logOffset + " of " + logLength + " octets");
        }
        return new TableLayout(buckets, (int) logOffset, (int) logLength, header.getLong(at + 40));
    }

    public int bucketCount() {
        return bucketCount;
    }

    /** Offset in the region of bucket {@code index}. */
    public int bucketOffset(int index) {
        return HEADER_SIZE + index * BUCKET_SIZE;
    }

    /** Offset in the region of the entry log. */
    public int logOffset() {
        return logOffset;
    }

    public int logLength() {
        return logLength;
    }

    public long tableId() {
        return tableId;
    }

    /** Whether {@code offset}/{@code length} from a slot lies in the entry log (a torn slot may point anywhere). */
    public boolean inLog(long offset, int length) {
        return length >= ENTRY_HEADER && offset >= logOffset && offset + length <= (long) logOffset + logLength;
    }

    /** Octets an entry with this key and value takes in the log, aligned. */
    public static int allocation(int entryLength) {
        return (entryLength + ALIGN - 1) & -ALIGN;
    }

    @Override
    public String toString() {
        return "TableLayout{" + bucketCount + " buckets, log " + logOffset + "+" + logLength + ", id "
                + Long.toHexString(tableId) + "}";
    }
}
