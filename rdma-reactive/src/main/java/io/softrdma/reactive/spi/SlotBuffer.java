package io.softrdma.reactive.spi;

import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.UnpooledDirectByteBuf;
import java.nio.ByteBuffer;

/**
 * A view of one receive slot of registered memory, handed downstream as the received message: the
 * message is placed there by the queue pair (the only copy on receive), and when the subscriber
 * releases the view, the slot goes back to the session to be posted again — which is what turns
 * consumption into receive credit. One view per slot, reused: delivering a message allocates nothing.
 *
 * <p>Thread safety: released from any thread; {@code onFree} must hand over to the event loop.
 */
final class SlotBuffer extends UnpooledDirectByteBuf {
    private final Runnable onFree;

    SlotBuffer(ByteBufAllocator alloc, ByteBuffer slot, Runnable onFree) {
        super(alloc, slot, slot.remaining());
        this.onFree = onFree;
    }

    /** Makes the view live again for a message at {@code [from, to)} of the slot. */
    SlotBuffer reuse(int from, int to) {
        resetRefCnt();
        setIndex(from, to);
        return this;
    }

    /** The memory belongs to the registered region: it is returned, never freed. */
    @Override
    protected void deallocate() {
        onFree.run();
    }
}
