package io.softrdma.memory.internal;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.softrdma.memory.RecordLayout;
import io.softrdma.memory.TornRecordException;
import java.nio.ByteBuffer;
import java.util.function.Supplier;
import java.util.zip.CRC32C;

/**
 * Versioned records (docs/protocol.md, "Versioned records"): the check every reader makes, and the owner's local
 * reads and writes, which follow the same lock protocol as remote writers.
 *
 * <p>A reader accepts a record only if its version is even and the CRC32C of version, length and payload matches
 * the checksum. A remote reader sees the record through one RDMA Read, which is not atomic: the octets may mix two
 * writes, or catch one in progress. A writer first makes the version odd, so a copy that caught the version while a
 * write was in progress is refused for its parity; a copy whose version is even but whose octets mix another write
 * has a checksum computed for another version or other octets, and is refused (a false match has probability
 * 2^-32 per torn copy).
 *
 * <p>Thread safety: the static methods are pure; an instance is used from any thread.
 */
public final class Records {
    /** Busy tries before parking: a local writer holds a record for a microsecond. */
    private static final int SPINS = 64;
    /** The longest park between tries: a remote writer holds a record for a round trip or two. */
    private static final long MAX_PARK_NANOS = 1_000_000;

    private final String region;
    private final Supplier<ByteBuf> memory;
    private final Supplier<Words> words;
    private final int attempts;

    public Records(String region, Supplier<ByteBuf> memory, Supplier<Words> words, int attempts) {
        this.region = region;
        this.memory = memory;
        this.words = words;
        this.attempts = attempts;
    }

    /** The checksum of a record: CRC32C over the version (8 octets), the length (4) and the payload. */
    public static int checksum(long version, int length, ByteBuf payload, int index) {
        CRC32C crc = new CRC32C();
        ByteBuffer header = ByteBuffer.allocate(12).putLong(version).putInt(length).flip();
        crc.update(header);
        if (length > 0) {
            if (payload.nioBufferCount() == 1) {
                crc.update(payload.nioBuffer(index, length));
            } else {
                byte[] octets = new byte[length];
                payload.getBytes(index, octets);
                crc.update(octets);
            }
        }
        return (int) crc.getValue();
    }

    /**
     * The payload's length if {@code record} (its readable octets, starting at a record's first octet) holds a
     * consistent record, or -1 if it is torn: odd version, a length beyond what was read, or a checksum mismatch.
     */
    public static int verify(ByteBuf record) {
        int at = record.readerIndex();
        if (record.readableBytes() < RecordLayout.HEADER) {
            return -1;
        }
        long version = record.getLong(at + RecordLayout.VERSION);
        int length = record.getInt(at + RecordLayout.LENGTH);
        if ((version & 1) != 0 || length < 0 || length > record.readableBytes() - RecordLayout.HEADER) {
            return -1;
        }
        int expected = record.getInt(at + RecordLayout.CHECKSUM);
        return checksum(version, length, record, at + RecordLayout.HEADER) == expected ? length : -1;
    }

    /** Checks that a record at {@code offset} with {@code payload} octets fits {@code size} and is aligned. */
    public static void checkPlace(String region, long offset, long payload, long size) {
        if ((offset & 7) != 0 || offset < 0) {
            throw new IllegalArgumentException("record offset " + offset + " in region '" + region + "' must be a"
                    + " non-negative multiple of 8 (its version word is an RFC 7306 atomic word)");
        }
        if (offset + RecordLayout.HEADER + payload > size) {
            throw new IllegalArgumentException("a record of " + payload + " octets at " + offset + " does not fit"
                    + " region '" + region + "' of " + size + " octets (it needs " + RecordLayout.HEADER
                    + " octets of header too)");
        }
    }

    /** Writes {@code payload} as the record at {@code offset} under the record's lock; releases {@code payload}. */
    public void write(long offset, ByteBuf payload) {
        try {
            ByteBuf mem = memory.get();
            int length = payload.readableBytes();
            checkPlace(region, offset, length, mem.capacity());
            Words w = words.get();
            for (int attempt = 0; attempt < SPINS + attempts; attempt++) {
                long version = w.getLong(offset);
                if ((version & 1) == 0 && w.compareAndSwap(offset, version, version + 1) == version) {
                    int at = (int) offset;
                    mem.setInt(at + RecordLayout.LENGTH, length);
                    mem.setInt(at + RecordLayout.CHECKSUM, checksum(version + 2, length, payload,
                            payload.readerIndex()));
                    mem.setBytes(at + RecordLayout.HEADER, payload, payload.readerIndex(), length);
                    w.putLong(offset, version + 2); // volatile: the octets above are visible before it
                    return;
                }
                pause(attempt);
            }
            throw new TornRecordException(region, "the record at " + offset + " of region '" + region + "' stayed"
                    + " locked by another writer (odd version) for " + (SPINS + attempts) + " attempts");
        } finally {
            payload.release();
        }
    }

    /** A copy of the payload of the record at {@code offset}, which the caller owns; never a torn one. */
    public ByteBuf read(long offset) {
        ByteBuf mem = memory.get();
        checkPlace(region, offset, 0, mem.capacity());
        Words w = words.get();
        int at = (int) offset;
        for (int attempt = 0; attempt < SPINS + attempts; attempt++) {
            long before = w.getLong(offset);
            int length = mem.getInt(at + RecordLayout.LENGTH);
            if ((before & 1) == 0 && length >= 0 && at + RecordLayout.HEADER + (long) length <= mem.capacity()) {
                ByteBuf copy = Unpooled.buffer(RecordLayout.HEADER + length);
                copy.writeBytes(mem, at, RecordLayout.HEADER + length);
                Words.loadFence();
                if (w.getLong(offset) == before && verify(copy) == length) {
                    return copy.skipBytes(RecordLayout.HEADER);
                }
                copy.release();
            }
            pause(attempt);
        }
        throw new TornRecordException(region, "the record at " + offset + " of region '" + region + "' was"
                + " inconsistent (odd version or checksum mismatch) for " + (SPINS + attempts) + " attempts");
    }

    /** Spins at first, then parks for longer and longer, up to a millisecond: never a busy wait on a remote writer. */
    private static void pause(int attempt) {
        if (attempt < SPINS) {
            Thread.onSpinWait();
        } else {
            java.util.concurrent.locks.LockSupport.parkNanos(Math.min(MAX_PARK_NANOS,
                    1000L << Math.min(20, attempt - SPINS)));
        }
    }
}
