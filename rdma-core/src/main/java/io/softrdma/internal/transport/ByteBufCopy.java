package io.softrdma.internal.transport;

import io.netty.buffer.ByteBuf;
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
 * buffer, a buffer it just allocated) is reached through Netty's cached internal NIO buffer.
 *
 * <p>Thread safety: stateless; each method is as safe as its arguments' stated confinement.
 */
public final class ByteBufCopy {
    /** Whether Netty's own copies between direct buffers are allocation-free memory copies. */
    private static final boolean NETTY_COPIES_WITHOUT_ALLOCATION = PlatformDependent.hasUnsafe();

    private static final VarHandle LONGS = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.BIG_ENDIAN);

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
        ByteBuffer from = NETTY_COPIES_WITHOUT_ALLOCATION || dstView == null ? null
                : confinedNioBuffer(src, srcIndex, length);
        if (from == null) {
            dst.setBytes(dstIndex, src, srcIndex, length);
            return;
        }
        dstView.put(dstIndex, from, from.position(), length);
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
        ByteBuffer to = confinedNioBuffer(dst, at, length);
        if (to == null) {
            dst.writeBytes(src, srcIndex, length);
            return;
        }
        to.put(to.position(), srcView, srcIndex, length);
        dst.writerIndex(at + length);
    }

    /**
     * {@code buf}'s octets {@code [index, index + length)} as the position and limit of its root buffer's
     * internal NIO buffer, which Netty keeps per buffer and reuses (a slice's own {@code internalNioBuffer} is a
     * new one each time); {@code null} where there is no single root with a memory address to find it by. Moves
     * that buffer's position and limit, so only for a buffer confined to the caller's thread.
     */
    private static ByteBuffer confinedNioBuffer(ByteBuf buf, int index, int length) {
        if (!buf.hasMemoryAddress()) {
            return null;
        }
        ByteBuf root = buf;
        for (ByteBuf parent = root.unwrap(); parent != null; parent = root.unwrap()) {
            root = parent;
        }
        if (!root.hasMemoryAddress() || root.nioBufferCount() != 1) {
            return null;
        }
        long offset = buf.memoryAddress() - root.memoryAddress();
        if (index < 0 || length < 0 || index > buf.capacity() - length || offset < 0
                || offset + index + length > root.capacity()) {
            return null;
        }
        return root.internalNioBuffer((int) offset + index, length);
    }
}
