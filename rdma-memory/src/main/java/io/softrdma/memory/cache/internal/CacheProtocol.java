package io.softrdma.memory.cache.internal;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import java.nio.charset.StandardCharsets;

/**
 * The requests a client sends the owner through the memory server's SERVICE call (docs/protocol.md, "RDMA cache
 * table"): everything but GET, which clients do with one-sided Reads, and GET too when those keep racing writers.
 *
 * <pre>
 * request:  u8 op, u8 0, u16 0, u32 key length, i64 TTL in ms (-1 the cache's default, 0 none), key, value
 * response: u8 status, then the value (FOUND, EXISTS) or a UTF-8 reason (REFUSED)
 * </pre>
 *
 * <p>Thread safety: stateless. Buffer ownership: encoders return a buffer the caller owns; {@link #handle} reads the
 * request without releasing it and returns a response the caller owns.
 */
public final class CacheProtocol {
    public static final byte GET = 1;
    public static final byte PUT = 2;
    public static final byte PUT_IF_ABSENT = 3;
    public static final byte DELETE = 4;
    public static final byte CLEAR = 5;

    public static final byte STORED = 0;
    public static final byte FOUND = 1;
    public static final byte ABSENT = 2;
    public static final byte DELETED = 3;
    public static final byte EXISTS = 4;
    public static final byte TOO_LARGE = 5;
    public static final byte REFUSED = 6;

    static final int REQUEST_HEADER = 16;

    private CacheProtocol() {
    }

    /** A request; {@code key} and {@code value} (either may be null) stay the caller's. */
    public static ByteBuf request(ByteBufAllocator alloc, byte op, ByteBuf key, ByteBuf value, long ttlMillis) {
        int k = key == null ? 0 : key.readableBytes();
        int v = value == null ? 0 : value.readableBytes();
        ByteBuf out = alloc.buffer(REQUEST_HEADER + k + v);
        out.writeByte(op).writeByte(0).writeShort(0).writeInt(k).writeLong(ttlMillis);
        if (key != null) {
            out.writeBytes(key, key.readerIndex(), k);
        }
        if (value != null) {
            out.writeBytes(value, value.readerIndex(), v);
        }
        return out;
    }

    /**
     * Does one request on {@code table} (the caller holds its lock) and returns the response. A malformed request is
     * REFUSED with the reason, never an exception: the table stays as it was.
     *
     * @param defaultTtlMillis the TTL a request with -1 gets (0: none)
     */
    public static ByteBuf handle(CacheTable table, ByteBuf request, ByteBufAllocator alloc, long nowMillis,
                                 long defaultTtlMillis) {
        int at = request.readerIndex();
        int length = request.readableBytes();
        if (length < REQUEST_HEADER) {
            return refused(alloc, "a cache request has a " + REQUEST_HEADER + "-octet header, got " + length
                    + " octets");
        }
        byte op = request.getByte(at);
        int k = request.getInt(at + 4);
        long ttl = request.getLong(at + 8);
        if (k < 0 || k > length - REQUEST_HEADER) {
            return refused(alloc, "key length " + k + " exceeds the request's " + (length - REQUEST_HEADER)
                    + " octets of key and value");
        }
        if (ttl < -1) {
            return refused(alloc, "TTL must be -1 (default), 0 (none) or positive ms, not " + ttl);
        }
        ByteBuf key = request.slice(at + REQUEST_HEADER, k);
        ByteBuf value = request.slice(at + REQUEST_HEADER + k, length - REQUEST_HEADER - k);
        switch (op) {
            case GET -> {
                ByteBuf found = table.get(key, alloc);
                return found == null ? status(alloc, ABSENT) : withValue(alloc, FOUND, found);
            }
            case PUT, PUT_IF_ABSENT -> {
                long effective = ttl == -1 ? defaultTtlMillis : ttl;
                long expiresAt = effective == 0 ? 0 : saturatedAdd(nowMillis, effective);
                CacheTable.PutResult result = table.put(key, value, expiresAt, op == PUT_IF_ABSENT);
                return switch (result) {
                    case STORED -> status(alloc, STORED);
                    case TOO_LARGE -> refusedWith(alloc, TOO_LARGE, "a key and value of " + (k + value.readableBytes())
                            + " octets exceed the cache's largest, " + (table.maxEntry() - TableLayout.ENTRY_HEADER));
                    case EXISTS -> {
                        ByteBuf existing = table.get(key, alloc);
                        yield existing == null ? status(alloc, STORED) : withValue(alloc, EXISTS, existing);
                    }
                };
            }
            case DELETE -> {
                return status(alloc, table.delete(key) ? DELETED : ABSENT);
            }
            case CLEAR -> {
                table.clear();
                return status(alloc, DELETED);
            }
            default -> {
                return refused(alloc, "unknown cache operation " + op);
            }
        }
    }

    private static long saturatedAdd(long a, long b) {
        long sum = a + b;
        return ((a ^ sum) & (b ^ sum)) < 0 ? Long.MAX_VALUE : sum;
    }

    private static ByteBuf status(ByteBufAllocator alloc, byte status) {
        return alloc.buffer(1).writeByte(status);
    }

    private static ByteBuf withValue(ByteBufAllocator alloc, byte status, ByteBuf value) {
        try {
            return alloc.buffer(1 + value.readableBytes()).writeByte(status).writeBytes(value);
        } finally {
            value.release();
        }
    }

    private static ByteBuf refused(ByteBufAllocator alloc, String reason) {
        return refusedWith(alloc, REFUSED, reason);
    }

    private static ByteBuf refusedWith(ByteBufAllocator alloc, byte status, String reason) {
        byte[] text = reason.getBytes(StandardCharsets.UTF_8);
        return alloc.buffer(1 + text.length).writeByte(status).writeBytes(text);
    }

    /** The reason text of a REFUSED or TOO_LARGE response. */
    public static String reason(ByteBuf response) {
        return response.toString(response.readerIndex() + 1, response.readableBytes() - 1, StandardCharsets.UTF_8);
    }
}
