package io.softrdma.rsocket;

import io.netty.buffer.AbstractByteBufAllocator;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Netty's pooled allocator, remembering the largest buffer asked of it: set as a channel's allocator it shows whether
 * the transport copied a frame on the sending side (a copy of a 10 MiB frame asks for 10 MiB), since RSocket and
 * SoftRDMA both allocate through the channel's allocator ({@code DuplexConnection.alloc()}, {@code ByteBuf.alloc()}
 * of the composite frames RSocket makes here). Composites are leak-tracked as Netty's own allocators track them.
 */
final class LargestAllocation extends AbstractByteBufAllocator {
    private final AtomicInteger largest = new AtomicInteger();

    LargestAllocation() {
        super(true);
    }

    /** The largest initial capacity asked for so far, in octets. */
    int largest() {
        return largest.get();
    }

    @Override
    protected ByteBuf newHeapBuffer(int initialCapacity, int maxCapacity) {
        largest.accumulateAndGet(initialCapacity, Math::max);
        return PooledByteBufAllocator.DEFAULT.heapBuffer(initialCapacity, maxCapacity);
    }

    @Override
    protected ByteBuf newDirectBuffer(int initialCapacity, int maxCapacity) {
        largest.accumulateAndGet(initialCapacity, Math::max);
        return PooledByteBufAllocator.DEFAULT.directBuffer(initialCapacity, maxCapacity);
    }

    @Override
    public boolean isDirectBufferPooled() {
        return true;
    }
}
