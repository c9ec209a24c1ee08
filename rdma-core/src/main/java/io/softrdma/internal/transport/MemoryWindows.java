package io.softrdma.internal.transport;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.CompositeByteBuf;
import io.netty.util.concurrent.FastThreadLocal;
import java.nio.ByteBuffer;

/**
 * A thread's own {@link ByteBuffer} views ("windows") over direct memory, each mapping a range of addresses, so
 * that a range of any direct {@link ByteBuf} with a memory address reaches an API that takes only a
 * {@code ByteBuffer} ({@link java.util.zip.CRC32C}, an absolute bulk put) without a new view per call.
 *
 * <p>Why: a view of a pooled buffer ({@code nioBuffer}) is two new objects, and so is the first
 * {@code internalNioBuffer} of each newly allocated one; at one per read buffer or per copied Read Response
 * segment that was most of the heap a verbs operation allocated. Netty carves its pooled buffers out of a few
 * chunks of 4 MiB, so a window over a whole chunk serves every buffer in it, for as long as the table keeps it.
 *
 * <p>A window over a whole chunk is learned only from a buffer confined to this thread (a received buffer, a
 * buffer just allocated): its {@code internalNioBuffer}, which moves that buffer's own position and limit, is a
 * view of the chunk. A buffer other threads may use (a registered region's memory) is learned as a view of that
 * buffer alone, made with {@code nioBuffer}, which moves nothing shared. Either way the window is this thread's
 * own copy, so positioning it disturbs no one.
 *
 * <p>A window is found by address, and a range is read through a window only when the range lies within it:
 * a range of a live buffer is live memory, whatever the window was learned from, even after that buffer or
 * chunk is gone. Except where the JDK knows the memory is gone: Netty on Java 25 allocates chunks in FFM
 * arenas, and a view of a chunk it has freed throws {@link IllegalStateException} on use (before it reads
 * or writes anything), also for addresses a new chunk now occupies. A caller then {@link #forget}s that
 * window and asks again, which learns a live one.
 *
 * <p>Thread safety: {@link #current()} is the calling thread's table; a table and the windows it returns are
 * used only by that thread, and a window only until the next call.
 */
public final class MemoryWindows {
    /** Enough for the chunks of an event loop's arena and the regions its connections use at a time. */
    public static final int SIZE = 16;

    private static final FastThreadLocal<MemoryWindows> LOCAL = new FastThreadLocal<>() {
        @Override
        protected MemoryWindows initialValue() {
            return new MemoryWindows();
        }
    };

    private final long[] base = new long[SIZE];
    private final long[] end = new long[SIZE];
    private final ByteBuffer[] windows = new ByteBuffer[SIZE];
    private int nextVictim;

    private MemoryWindows() {
    }

    /** The calling thread's windows. */
    public static MemoryWindows current() {
        return LOCAL.get();
    }

    /**
     * {@code buf}'s octets {@code [index, index + length)} as the position and limit of one of this thread's
     * windows, or {@code null} where {@code buf} has no memory address or no single root buffer to learn a window
     * from. {@code confined}: {@code buf}'s root buffer is used by this thread only, so the window may be learned
     * over its whole pool chunk.
     */
    public ByteBuffer window(ByteBuf buf, int index, int length, boolean confined) {
        if (length < 0 || index < 0 || index > buf.capacity() - length || !buf.hasMemoryAddress()) {
            return null;
        }
        long address = buf.memoryAddress() + index;
        int slot = find(address, length);
        if (slot < 0) {
            slot = learn(buf, confined);
            if (slot < 0 || address < base[slot] || address + length > end[slot]) {
                return null;
            }
        }
        ByteBuffer w = windows[slot];
        int at = (int) (address - base[slot]);
        w.limit(at + length);
        w.position(at);
        return w;
    }

    /**
     * Learns a window over the pool chunk of {@code buf}, a buffer used by this thread only, unless one covers it
     * already: then ranges of it, and of any buffer in the same chunk, are found by {@link #window} with
     * {@code confined} false too, as the FPDU encoder's CRC looks for a Read Response segment it is handed.
     */
    public void cover(ByteBuf buf) {
        int capacity = buf.capacity();
        if (capacity > 0 && buf.hasMemoryAddress() && find(buf.memoryAddress(), capacity) < 0) {
            learn(buf, true);
        }
    }

    /**
     * Drops {@code window}, which threw {@link IllegalStateException} because the memory it was learned over
     * was freed, so that the next {@link #window} call learns one over the memory there now.
     */
    public void forget(ByteBuffer window) {
        for (int i = 0; i < SIZE; i++) {
            if (windows[i] == window) {
                windows[i] = null;
            }
        }
    }

    private int find(long address, int length) {
        long last = address + length;
        for (int i = 0; i < SIZE; i++) {
            if (windows[i] != null && address >= base[i] && last <= end[i]) {
                return i;
            }
        }
        return -1;
    }

    private int learn(ByteBuf buf, boolean confined) {
        ByteBuf root = buf;
        for (ByteBuf parent = root.unwrap(); parent != null; parent = root.unwrap()) {
            root = parent;
        }
        int capacity = root.capacity();
        if (capacity == 0 || !root.hasMemoryAddress() || root instanceof CompositeByteBuf
                || root.nioBufferCount() != 1) {
            return -1;
        }
        long rootAddress = root.memoryAddress();
        ByteBuffer view;
        long viewBase;
        if (confined) {
            // The root's own internal view: for a pooled buffer, a view of its whole chunk, positioned at the
            // root's first octet. The window is a duplicate, over all of that view's memory.
            ByteBuffer internal = root.internalNioBuffer(0, capacity);
            viewBase = rootAddress - internal.position();
            view = internal.duplicate();
        } else {
            view = root.nioBuffer(0, capacity);
            viewBase = rootAddress;
        }
        if (!view.isDirect()) {
            return -1;
        }
        view.clear();
        int i = nextVictim;
        nextVictim = (i + 1) % SIZE;
        base[i] = viewBase;
        end[i] = viewBase + view.capacity();
        windows[i] = view;
        return i;
    }
}
