package io.softrdma.internal.mpa;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.CompositeByteBuf;
import io.softrdma.internal.transport.ByteBufCopy;
import io.softrdma.internal.transport.MemoryWindows;
import java.nio.ByteBuffer;
import java.util.zip.CRC32C;

/**
 * CRC32c (Castagnoli) over {@link ByteBuf} ranges, computed with {@link CRC32C} (a JDK intrinsic) as
 * RFC 5044 §4.4 requires ("the CRC32c polynomial in the manner described in the iSCSI Protocol").
 *
 * <p>The FPDU trailer carries the standard CRC32c value least-significant octet first, as iSCSI and
 * Linux siw do: RFC 5044 Figure 5's trailer {@code 52 23 99 83} is the value {@code 0x83992352}.
 *
 * <p>On Java 17, {@link CRC32C} reads direct memory only through a {@link ByteBuffer}, and a view of a
 * pooled buffer is a new object or two per call. So direct ranges are read through the thread's
 * {@link MemoryWindows}: views over whole pool chunks (learned from buffers confined to the thread) and
 * over registered regions, which allocate nothing once learned. An instance made by {@link #confined()}
 * reads only buffers confined to its thread (the decoder's read buffers) and may learn chunk windows from
 * them; the default one may read memory other threads use (a region a Send comes from) and learns windows
 * without touching such a buffer's state.
 *
 * <p>Thread safety: an instance belongs to one encoder or decoder, on one event loop.
 */
public final class Crc32c {
    /**
     * Ranges of direct memory up to this long are copied into an array first: cheaper than positioning
     * a window.
     */
    private static final int COPY_LIMIT = 1024;

    private final CRC32C crc = new CRC32C();
    private final byte[] scratch = new byte[COPY_LIMIT];
    /** Whether every buffer this instance reads is confined to the calling thread. */
    private final boolean confined;

    /** An instance for buffers other threads may use too (registered memory). */
    public Crc32c() {
        this(false);
    }

    private Crc32c(boolean confined) {
        this.confined = confined;
    }

    /**
     * An instance for buffers used by the calling thread only, such as received buffers: it may learn a window
     * over a buffer's whole pool chunk through the buffer's own internal NIO buffer.
     */
    public static Crc32c confined() {
        return new Crc32c(true);
    }

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
        } else if (buf instanceof ChainedByteBuf chain) {
            updateChain(chain, index, length);
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
        MemoryWindows windows = MemoryWindows.current();
        for (int attempt = 0; ; attempt++) {
            ByteBuffer window = windows.window(buf, index, length, confined);
            if (window == null) {
                return false;
            }
            try {
                crc.update(window);
                return true;
            } catch (IllegalStateException freed) {
                // A window over memory the JDK has freed (Java 22 and later): it read nothing; learn a live one.
                if (attempt == MemoryWindows.SIZE) {
                    throw freed;
                }
                windows.forget(window);
            }
        }
    }

    /** Piece by piece: each is a read buffer, reached without a view of its own. */
    private void updateChain(ChainedByteBuf chain, int index, int length) {
        for (int i = chain.pieceAt(index); length > 0; i++) {
            int start = chain.pieceStart(i);
            int n = Math.min(length, start + chain.pieceLength(i) - index);
            update(chain.piece(i), chain.pieceOffset(i) + index - start, n);
            index += n;
            length -= n;
        }
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
