package io.softrdma.memory;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.softrdma.memory.internal.JsonCodec;

/**
 * Turns values into octets and back for {@link RemoteRegion#read(long, Class)} and
 * {@link RemoteRegion#write(long, Object)}. The default, {@link #json()}, is Jackson's JSON.
 *
 * <p>Buffers: {@code encode} returns a buffer the caller owns; {@code decode} must not release or keep
 * {@code data} (it is the library's and released after the call).
 *
 * <p>Thread safety: implementations must be thread-safe; they run on event loops and must not block.
 */
public interface MemoryCodec {
    /** The octets of {@code value}. */
    ByteBuf encode(Object value, ByteBufAllocator allocator);

    /** The value of type {@code type} that {@code data}'s readable octets encode. */
    <T> T decode(ByteBuf data, Class<T> type);

    /** Jackson 3's JSON with its defaults (records and beans both work). */
    static MemoryCodec json() {
        return JsonCodec.DEFAULT;
    }
}
