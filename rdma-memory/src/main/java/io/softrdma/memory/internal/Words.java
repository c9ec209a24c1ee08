package io.softrdma.memory.internal;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * 64-bit words of a region's memory, accessed the way rdma-core's responder carries out RFC 7306 atomics: through a
 * big-endian byte-buffer view {@link VarHandle} on an aligned word, so that the owner's atomics here and the peers'
 * remote atomics are atomic with each other. rdma-core falls back to a lock for unaligned words; a region's memory
 * is aligned (checked when it is allocated) and offsets must be multiples of 8, so that path is never taken and
 * the two sides always agree.
 *
 * <p>Thread safety: any thread.
 */
public final class Words {
    private static final VarHandle WORD = MethodHandles.byteBufferViewVarHandle(long[].class, ByteOrder.BIG_ENDIAN);

    private final ByteBuffer memory;

    public Words(ByteBuffer memory) {
        if (!memory.isDirect() || memory.alignmentOffset(0, Long.BYTES) != 0) {
            throw new IllegalStateException("a region's memory must be direct and 8-aligned");
        }
        this.memory = memory;
    }

    private int index(long offset) {
        if ((offset & 7) != 0 || offset < 0 || offset + 8 > memory.capacity()) {
            throw new IllegalArgumentException("word offset " + offset + " must be a multiple of 8 within the "
                    + memory.capacity() + " octets of the region");
        }
        return (int) offset;
    }

    public long getLong(long offset) {
        return (long) WORD.getVolatile(memory, index(offset));
    }

    public void putLong(long offset, long value) {
        WORD.setVolatile(memory, index(offset), value);
    }

    public long fetchAdd(long offset, long delta) {
        return (long) WORD.getAndAdd(memory, index(offset), delta);
    }

    public long compareAndSwap(long offset, long expect, long update) {
        return (long) WORD.compareAndExchange(memory, index(offset), expect, update);
    }

    /** Orders the plain reads before it with the volatile read after it (a seqlock reader's second check). */
    public static void loadFence() {
        VarHandle.acquireFence();
    }
}
