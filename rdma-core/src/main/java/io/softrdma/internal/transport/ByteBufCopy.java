package io.softrdma.internal.transport;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.util.concurrent.FastThreadLocal;
import io.netty.util.internal.PlatformDependent;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * Copies between buffers that allocate nothing whether or not Netty uses {@code sun.misc.Unsafe}.
 *
 * <p>Why: Netty 4.2 turns {@code sun.misc.Unsafe} off by default on Java 25 and later (unless
 * {@code --sun-misc-unsafe-memory-access=allow} or {@code -Dio.netty.noUnsafe=false} is given). Its pooled
 * direct buffers then copy through new {@link ByteBuffer} views made per call: {@code setBytes(int, ByteBuf,
 * int, int)} makes two views and an array of them, {@code getBytes(int, byte[], int, int)} one view, about 150
 * heap octets for a 64-octet RDMA Write (docs/jdk.md). With Unsafe (Java 17 to 24 by default) Netty's copies are
 * plain memory copies, and these methods call them unchanged.
 *
 * <p>Without Unsafe they never move the position or limit of a buffer other threads may use: a registered
 * region's memory is read and written by every connection it is used on. Memory shared that way is read with
 * absolute {@code getLong}s (short ranges) or addressed through a {@link ByteBuffer} view its owner made once
 * (a region's), with absolute bulk operations; a buffer confined to the caller's event loop (a received
 * buffer, a buffer it just allocated) is reached through the thread's {@link MemoryWindows}. A source in pieces (a
 * chain of reads) is copied by Netty, piece by piece, into a wrapper of the shared view that belongs to the calling
 * thread (each thread keeps a few).
 *
 * <p>Thread safety: any thread; each method is as safe as its arguments' stated confinement.
 */
public final class ByteBufCopy {
    /** Whether Netty's own copies between direct buffers are allocation-free memory copies. */
    private static final boolean NETTY_COPIES_WITHOUT_ALLOCATION = PlatformDependent.hasUnsafe();

    private static final VarHandle LONGS = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.BIG_ENDIAN);

    static {
        if (!NETTY_COPIES_WITHOUT_ALLOCATION) {
            // Linked now rather than by the first copy that needs them, on an event loop in steady state: Netty
            // reaches ByteBuffer's absolute bulk put through a method handle (its code runs on Java 8), and the
            // first call spins some 100 KB of classes (JFR), as the first FPDU across two reads would.
            PlatformDependent.absolutePut(ByteBuffer.allocate(Long.BYTES), 0, ByteBuffer.allocate(Long.BYTES), 0,
                    Long.BYTES);
            LONGS.set(new byte[Long.BYTES], 0, 0L);
        }
    }

    private ByteBufCopy() {
    }

    /**
     * As {@code src.getBytes(index, dst, dstIndex, length)}, for a {@code src} other threads may use too (a
     * slice of a registered region): without Unsafe, eight octets at a time with absolute reads, so for short
     * ranges (the encoder's and CRC's up to a KiB).
     */
    public static void getBytes(ByteBuf src, int index, byte[] dst, int dstIndex, int length) {
        if (NETTY_COPIES_WITHOUT_ALLOCATION || src.hasArray()) {
            src.getBytes(index, dst, dstIndex, length);
            return;
        }
        // The same checks getBytes makes, so a bad range fails the same way, before any octet is copied.
        if (index < 0 || length < 0 || index > src.capacity() - length || dstIndex < 0
                || dstIndex > dst.length - length) {
            src.getBytes(index, dst, dstIndex, length);
            return;
        }
        int i = 0;
        for (; i + Long.BYTES <= length; i += Long.BYTES) {
            LONGS.set(dst, dstIndex + i, src.getLong(index + i));
        }
        for (; i < length; i++) {
            dst[dstIndex + i] = src.getByte(index + i);
        }
    }

    /**
     * As {@code dst.setBytes(dstIndex, src, srcIndex, length)} for a {@code dst} other threads may use too,
     * reached through {@code dstView}: a view of all of {@code dst} (index 0 = {@code dst}'s index 0) that is
     * only ever used with absolute operations, or {@code null}. {@code src} must be confined to the caller's
     * thread (a received buffer).
     */
    public static void place(ByteBuf src, int srcIndex, ByteBuf dst, ByteBuffer dstView, int dstIndex, int length) {
        if (NETTY_COPIES_WITHOUT_ALLOCATION || dstView == null) {
            dst.setBytes(dstIndex, src, srcIndex, length);
            return;
        }
        for (int attempt = 0; ; attempt++) {
            ByteBuffer from = confinedNioBuffer(src, srcIndex, length);
            if (from == null) {
                break;
            }
            try {
                dstView.put(dstIndex, from, from.position(), length);
                return;
            } catch (IllegalStateException freed) {
                forget(from, freed, attempt);
            }
        }
        if (dstView.isDirect()) {
            // A source in pieces (an FPDU across two reads: the decoder's chain of them). Netty copies each
            // piece into the destination's internal NIO buffer with an absolute put: allocation-free when that
            // destination is this thread's own wrapper of the view.
            src.getBytes(srcIndex, Wrappers.LOCAL.get().of(dstView), dstIndex, length);
        } else {
            dst.setBytes(dstIndex, src, srcIndex, length);
        }
    }

    /**
     * As {@code dst.writeBytes(src, srcIndex, length)} for a {@code src} other threads may use too, reached
     * through {@code srcView} (as {@link #place}'s {@code dstView}, or {@code null}). {@code dst} must be
     * confined to the caller's thread (a buffer it just allocated).
     */
    public static void append(ByteBuf src, ByteBuffer srcView, int srcIndex, ByteBuf dst, int length) {
        if (NETTY_COPIES_WITHOUT_ALLOCATION || srcView == null) {
            dst.writeBytes(src, srcIndex, length);
            return;
        }
        dst.ensureWritable(length);
        int at = dst.writerIndex();
        for (int attempt = 0; ; attempt++) {
            ByteBuffer to = confinedNioBuffer(dst, at, length);
            if (to == null) {
                dst.writeBytes(src, srcIndex, length);
                return;
            }
            try {
                to.put(to.position(), srcView, srcIndex, length);
                dst.writerIndex(at + length);
                return;
            } catch (IllegalStateException freed) {
                forget(to, freed, attempt);
            }
        }
    }

    /**
     * A window threw because the memory it was learned over was freed (Java 22 and later: Netty's chunks live in
     * FFM arenas); the bulk operation copied nothing, so the window is dropped and the copy tried again with a
     * live one. A view that keeps throwing (never one of ours) fails the copy.
     */
    private static void forget(ByteBuffer window, IllegalStateException freed, int attempt) {
        if (attempt == MemoryWindows.SIZE) {
            throw freed;
        }
        MemoryWindows.current().forget(window);
    }

    /**
     * {@code buf}'s octets {@code [index, index + length)} as the position and limit of one of this thread's
     * {@link MemoryWindows}, learned over the whole pool chunk: a buffer's own {@code internalNioBuffer} is a
     * new view for each newly allocated buffer, a window over its chunk is not. {@code null} where there is no
     * single root with a memory address. Only for a buffer confined to the caller's thread.
     */
    private static ByteBuffer confinedNioBuffer(ByteBuf buf, int index, int length) {
        return MemoryWindows.current().window(buf, index, length, true);
    }

    /**
     * This thread's {@link ByteBuf}s over a few shared views (the last eight it copied into), so that Netty can
     * position their internal NIO buffers: a miss costs one wrapper. Holds the views until they are evicted.
     */
    private static final class Wrappers {
        static final FastThreadLocal<Wrappers> LOCAL = new FastThreadLocal<>() {
            @Override
            protected Wrappers initialValue() {
                return new Wrappers();
            }
        };
        private static final int SIZE = 8;

        private final ByteBuffer[] views = new ByteBuffer[SIZE];
        private final ByteBuf[] wrappers = new ByteBuf[SIZE];
        private int nextVictim;

        ByteBuf of(ByteBuffer view) {
            for (int i = 0; i < SIZE; i++) {
                if (views[i] == view) {
                    return wrappers[i];
                }
            }
            int i = nextVictim;
            nextVictim = (i + 1) % SIZE;
            views[i] = view;
            // Not reference counted in any way that matters: a wrapped buffer never frees the memory it wraps.
            wrappers[i] = Unpooled.wrappedBuffer(view.duplicate().clear());
            return wrappers[i];
        }
    }
}
