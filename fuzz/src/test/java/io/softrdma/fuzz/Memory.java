package io.softrdma.fuzz;

import io.netty.buffer.AdaptiveByteBufAllocator;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.CompositeByteBuf;
import io.netty.buffer.PoolArenaMetric;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.UnpooledByteBufAllocator;
import java.util.ArrayList;
import java.util.List;

/**
 * The memory of one fuzz run: an allocator whose every buffer is accounted for, so that after the run
 * (channel finished, everything read out released) a leak is a finding of that very input.
 *
 * <p>Four kinds, chosen by the input, because the decoders take different paths for each (slices of the
 * read buffer by memory address, wrapper-aware fallbacks):
 * <ol start="0">
 *   <li>unpooled direct buffers, not leak-tracked: used memory must return to exactly 0;</li>
 *   <li>the same, but tracked by Netty's leak detector (wrapped buffers);</li>
 *   <li>pooled buffers ({@link PooledByteBufAllocator} without thread caches, shared by all runs): the arenas'
 *       active allocations must return to where they were;</li>
 *   <li>Netty 4.2's default, {@link AdaptiveByteBufAllocator} (shared by all runs).</li>
 * </ol>
 * Whatever the kind, every buffer handed out is also remembered and must have a reference count of 0 at
 * the end.
 */
final class Memory {
    private static final PooledByteBufAllocator POOLED =
            new PooledByteBufAllocator(true, 1, 1, 8192, 9, 0, 0, false);
    private static final AdaptiveByteBufAllocator ADAPTIVE = new AdaptiveByteBufAllocator(true);

    final int kind;
    final Tracking alloc;
    private final UnpooledByteBufAllocator unpooled;
    private final long pooledBaseline;

    private Memory(int kind) {
        this.kind = kind;
        switch (kind) {
            case 0, 1 -> {
                unpooled = new UnpooledByteBufAllocator(true, kind == 0);
                alloc = new Tracking(unpooled);
                pooledBaseline = 0;
            }
            case 2 -> {
                unpooled = null;
                alloc = new Tracking(POOLED);
                pooledBaseline = activePooled();
            }
            default -> {
                unpooled = null;
                alloc = new Tracking(ADAPTIVE);
                pooledBaseline = 0;
            }
        }
    }

    /** The kind from the two low bits of {@code bits}. */
    static Memory of(int bits) {
        return new Memory(bits & 3);
    }

    private static long activePooled() {
        long n = 0;
        for (PoolArenaMetric a : POOLED.metric().directArenas()) {
            n += a.numActiveAllocations();
        }
        for (PoolArenaMetric a : POOLED.metric().heapArenas()) {
            n += a.numActiveAllocations();
        }
        return n;
    }

    /** Fails if anything allocated during the run is still referenced. */
    void assertAllReleased(String what) {
        List<String> live = new ArrayList<>();
        for (ByteBuf b : alloc.handedOut) {
            if (b.refCnt() != 0) {
                live.add(b.getClass().getSimpleName() + "(refCnt " + b.refCnt() + ", capacity " + b.capacity() + ")");
            }
        }
        if (!live.isEmpty()) {
            throw new AssertionError("buffer leak after " + what + ": " + live.size() + " of " + alloc.handedOut.size()
                    + " buffers still referenced: " + live.subList(0, Math.min(5, live.size())));
        }
        if (unpooled != null) {
            long used = unpooled.metric().usedDirectMemory() + unpooled.metric().usedHeapMemory();
            if (used != 0) {
                throw new AssertionError("buffer leak after " + what + ": " + used + " octets still allocated");
            }
        }
        if (kind == 2 && activePooled() != pooledBaseline) {
            throw new AssertionError("buffer leak after " + what + ": " + (activePooled() - pooledBaseline)
                    + " pooled allocations still active");
        }
    }

    /** Delegates to another allocator and remembers every buffer it hands out. */
    static final class Tracking implements ByteBufAllocator {
        private final ByteBufAllocator delegate;
        final List<ByteBuf> handedOut = new ArrayList<>();

        Tracking(ByteBufAllocator delegate) {
            this.delegate = delegate;
        }

        private <T extends ByteBuf> T track(T b) {
            handedOut.add(b);
            return b;
        }

        @Override
        public ByteBuf buffer() {
            return track(delegate.buffer());
        }

        @Override
        public ByteBuf buffer(int initialCapacity) {
            return track(delegate.buffer(initialCapacity));
        }

        @Override
        public ByteBuf buffer(int initialCapacity, int maxCapacity) {
            return track(delegate.buffer(initialCapacity, maxCapacity));
        }

        @Override
        public ByteBuf ioBuffer() {
            return track(delegate.ioBuffer());
        }

        @Override
        public ByteBuf ioBuffer(int initialCapacity) {
            return track(delegate.ioBuffer(initialCapacity));
        }

        @Override
        public ByteBuf ioBuffer(int initialCapacity, int maxCapacity) {
            return track(delegate.ioBuffer(initialCapacity, maxCapacity));
        }

        @Override
        public ByteBuf heapBuffer() {
            return track(delegate.heapBuffer());
        }

        @Override
        public ByteBuf heapBuffer(int initialCapacity) {
            return track(delegate.heapBuffer(initialCapacity));
        }

        @Override
        public ByteBuf heapBuffer(int initialCapacity, int maxCapacity) {
            return track(delegate.heapBuffer(initialCapacity, maxCapacity));
        }

        @Override
        public ByteBuf directBuffer() {
            return track(delegate.directBuffer());
        }

        @Override
        public ByteBuf directBuffer(int initialCapacity) {
            return track(delegate.directBuffer(initialCapacity));
        }

        @Override
        public ByteBuf directBuffer(int initialCapacity, int maxCapacity) {
            return track(delegate.directBuffer(initialCapacity, maxCapacity));
        }

        @Override
        public CompositeByteBuf compositeBuffer() {
            return track(delegate.compositeBuffer());
        }

        @Override
        public CompositeByteBuf compositeBuffer(int maxNumComponents) {
            return track(delegate.compositeBuffer(maxNumComponents));
        }

        @Override
        public CompositeByteBuf compositeHeapBuffer() {
            return track(delegate.compositeHeapBuffer());
        }

        @Override
        public CompositeByteBuf compositeHeapBuffer(int maxNumComponents) {
            return track(delegate.compositeHeapBuffer(maxNumComponents));
        }

        @Override
        public CompositeByteBuf compositeDirectBuffer() {
            return track(delegate.compositeDirectBuffer());
        }

        @Override
        public CompositeByteBuf compositeDirectBuffer(int maxNumComponents) {
            return track(delegate.compositeDirectBuffer(maxNumComponents));
        }

        @Override
        public boolean isDirectBufferPooled() {
            return delegate.isDirectBufferPooled();
        }

        @Override
        public int calculateNewCapacity(int minNewCapacity, int maxCapacity) {
            return delegate.calculateNewCapacity(minNewCapacity, maxCapacity);
        }
    }
}
