package io.softrdma.internal.mpa;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.CompositeByteBuf;
import io.softrdma.internal.transport.ByteBufCopy;
import java.nio.ByteBuffer;
import java.util.zip.CRC32C;

/**
 * CRC32c (Castagnoli) over {@link ByteBuf} ranges, computed with {@link CRC32C} (a JDK intrinsic) as
 * RFC 5044 §4.4 requires ("the CRC32c polynomial in the manner described in the iSCSI Protocol").
 *
 * <p>The FPDU trailer carries the standard CRC32c value least-significant octet first, as iSCSI and
 * Linux siw do: RFC 5044 Figure 5's trailer {@code 52 23 99 83} is the value {@code 0x83992352}.
 *
 * <p>On Java 17, {@link CRC32C} reads direct memory only through a {@link ByteBuffer}, and a slice of
 * a pooled buffer makes a new one per call. So an instance keeps a few reusable windows, each a
 * {@code ByteBuffer} over a whole root buffer (a registered region, a read buffer), keyed by that
 * buffer's memory address and capacity: a range of a live buffer is read through a window of the same
 * address and capacity, which therefore covers live memory. Sends from registered memory hit the
 * cache; a received FPDU costs at most one window per read buffer.
 *
 * <p>Thread safety: an instance belongs to one encoder or decoder, on one event loop.
 */
public final class Crc32c {
    /** Roots remembered: enough for the few regions a connection sends from at a time. */
    private static final int WINDOWS = 8;

    /**
     * Ranges of direct memory up to this long are copied into an array first: cheaper than positioning
     * a window, and read buffers, new at every read, would each need a new window.
     */
    private static final int COPY_LIMIT = 1024;

    private final CRC32C crc = new CRC32C();
    private final byte[] scratch = new byte[COPY_LIMIT];
    private final long[] windowAddress = new long[WINDOWS];
    private final int[] windowCapacity = new int[WINDOWS];
    private final ByteBuffer[] windows = new ByteBuffer[WINDOWS];
    private int nextVictim;

    /** Starts a new value. */
    public Crc32c reset() {
        crc.reset();
        return this;
    }

    /** The CRC32c of what was fed since {@link #reset}, as the unsigned 32-bit value. */
    public int value() {
        return (int) crc.getValue();
    }

    public Crc32c update(byte[] bytes, int offset, int length) {
        crc.update(bytes, offset, length);
        return this;
    }

    /** Feeds {@code length} octets of {@code buf} from absolute {@code index}. */
    public Crc32c update(ByteBuf buf, int index, int length) {
        if (length == 0) {
            return this;
        }
        if (buf.hasArray()) {
            crc.update(buf.array(), buf.arrayOffset() + index, length);
        } else if (length <= COPY_LIMIT) {
            ByteBufCopy.getBytes(buf, index, scratch, 0, length);
            crc.update(scratch, 0, length);
        } else if (buf instanceof CompositeByteBuf composite) {
            updateComposite(composite, index, length);
        } else if (buf.hasMemoryAddress() && updateThroughWindow(buf, index, length)) {
            return this;
        } else if (buf.nioBufferCount() == 1) {
            crc.update(buf.nioBuffer(index, length));
        } else {
            for (ByteBuffer nio : buf.nioBuffers(index, length)) {
                crc.update(nio);
            }
        }
        return this;
    }

    private boolean updateThroughWindow(ByteBuf buf, int index, int length) {
        ByteBuf root = buf;
        for (ByteBuf parent = root.unwrap(); parent != null; parent = root.unwrap()) {
            root = parent;
        }
        if (!root.hasMemoryAddress() || root instanceof CompositeByteBuf) {
            return false;
        }
        long rootAddress = root.memoryAddress();
        long offset = buf.memoryAddress() + index - rootAddress;
        int capacity = root.capacity();
        if (offset < 0 || offset + length > capacity) {
            return false;
        }
        ByteBuffer window = window(root, rootAddress, capacity);
        window.limit((int) offset + length).position((int) offset);
        crc.update(window);
        return true;
    }

    private ByteBuffer window(ByteBuf root, long address, int capacity) {
        for (int i = 0; i < WINDOWS; i++) {
            if (windowAddress[i] == address && windowCapacity[i] == capacity && windows[i] != null) {
                return windows[i];
            }
        }
        int i = nextVictim;
        nextVictim = (nextVictim + 1) % WINDOWS;
        windowAddress[i] = address;
        windowCapacity[i] = capacity;
        windows[i] = root.nioBuffer(0, capacity);
        return windows[i];
    }

    private void updateComposite(CompositeByteBuf composite, int index, int length) {
        int component = composite.toComponentIndex(index);
        while (length > 0) {
            int start = composite.toByteIndex(component);
            ByteBuf part = composite.internalComponent(component);
            int offset = index - start;
            int n = Math.min(length, part.capacity() - offset);
            update(part, offset, n);
            index += n;
            length -= n;
            component++;
        }
    }

    /** The CRC32c of a range, as the unsigned 32-bit value. */
    public static int compute(ByteBuf buf, int index, int length) {
        return new Crc32c().update(buf, index, length).value();
    }
}
