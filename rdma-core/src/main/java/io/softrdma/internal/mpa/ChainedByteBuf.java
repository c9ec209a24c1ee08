package io.softrdma.internal.mpa;

import io.netty.buffer.AbstractReferenceCountedByteBuf;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.netty.util.internal.ObjectPool;
import io.softrdma.internal.transport.ByteBufCopy;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.ReadOnlyBufferException;
import java.nio.channels.FileChannel;
import java.nio.channels.GatheringByteChannel;
import java.nio.channels.ScatteringByteChannel;
import java.util.Arrays;

/**
 * Received octets in several buffers, read as one read-only {@link ByteBuf}: the {@link FpduDecoder}'s
 * cumulation when an FPDU spans two reads, and the ULPDU it passes up for such an FPDU.
 *
 * <p>Why not Netty's {@code CompositeByteBuf}: it allocates an object per component added, a slice per
 * component read and a slice per range sliced, so an FPDU across two 64 KiB reads cost some 90 heap octets
 * (docs/benchmarks.md, issue 18). A chain is pooled, keeps its pieces in arrays it reuses, and a range of it
 * within one piece is that piece's own (recycled) retained slice; a range across pieces is another pooled chain.
 *
 * <p>Ownership: a chain holds one reference to each piece and releases them when its own count reaches
 * zero; {@link #append} takes the caller's reference. Indexes are the chain's own, from 0 at its first piece's
 * first octet; {@link #discardSomeReadBytes()} drops pieces read to the end and shifts them.
 *
 * <p>Why this class is long: a {@code ByteBuf} has some forty abstract methods; here they are reads across
 * pieces, each a few lines, and refusals to write, each one line.
 *
 * <p>Thread safety: not thread-safe; a chain belongs to the event loop of the channel it was read from.
 */
final class ChainedByteBuf extends AbstractReferenceCountedByteBuf {
    private static final ObjectPool<ChainedByteBuf> POOL = ObjectPool.newPool(ChainedByteBuf::new);
    /** Pieces a chain starts with room for: an FPDU of at most 64 KiB across 64 KiB reads spans two or three. */
    private static final int INITIAL_PIECES = 4;

    private final ObjectPool.Handle<ChainedByteBuf> handle;
    private ByteBuf[] pieces = new ByteBuf[INITIAL_PIECES];
    /** Where each piece's octets start in its own buffer. */
    private int[] offsets = new int[INITIAL_PIECES];
    /** The chain index just past each piece. */
    private int[] ends = new int[INITIAL_PIECES];
    private int count;
    private int capacity;

    private ChainedByteBuf(ObjectPool.Handle<ChainedByteBuf> handle) {
        super(Integer.MAX_VALUE);
        this.handle = handle;
    }

    /** An empty chain with a reference count of one. */
    static ChainedByteBuf newInstance() {
        ChainedByteBuf chain = POOL.get();
        chain.resetRefCnt();
        chain.setIndex(0, 0);
        chain.discardMarks();
        return chain;
    }

    /** Appends {@code buf}'s readable octets as the last piece, taking over the caller's reference to it. */
    ChainedByteBuf append(ByteBuf buf) {
        ensureAccessible();
        int length = buf.readableBytes();
        if (length == 0) {
            buf.release();
            return this;
        }
        add(buf, buf.readerIndex(), length);
        writerIndex(capacity);
        return this;
    }

    private void add(ByteBuf buf, int offset, int length) {
        if (count == pieces.length) {
            pieces = Arrays.copyOf(pieces, count * 2);
            offsets = Arrays.copyOf(offsets, count * 2);
            ends = Arrays.copyOf(ends, count * 2);
        }
        pieces[count] = buf;
        offsets[count] = offset;
        capacity += length;
        ends[count] = capacity;
        count++;
    }

    /** The number of pieces. */
    int pieceCount() {
        return count;
    }

    /** The index of the piece that holds chain index {@code index} (the last one for the index just past it). */
    int pieceAt(int index) {
        for (int i = 0; i < count; i++) {
            if (index < ends[i]) {
                return i;
            }
        }
        return count - 1;
    }

    /** Piece {@code i}'s buffer: its octets are {@code [pieceOffset(i), pieceOffset(i) + pieceLength(i))}. */
    ByteBuf piece(int i) {
        return pieces[i];
    }

    int pieceOffset(int i) {
        return offsets[i];
    }

    /** The chain index of piece {@code i}'s first octet. */
    int pieceStart(int i) {
        return i == 0 ? 0 : ends[i - 1];
    }

    int pieceLength(int i) {
        return ends[i] - pieceStart(i);
    }

    /**
     * The range as a ULPDU: within one piece, that piece's retained slice (Netty recycles those of pooled
     * buffers); across pieces, a new chain holding a reference to each piece it covers.
     */
    @Override
    public ByteBuf retainedSlice(int index, int length) {
        checkIndex(index, length);
        if (count == 0) {
            return Unpooled.EMPTY_BUFFER;
        }
        int first = pieceAt(index);
        int start = pieceStart(first);
        if (index + length <= ends[first]) {
            return pieces[first].retainedSlice(offsets[first] + index - start, length);
        }
        ChainedByteBuf range = newInstance();
        for (int i = first; index + length > start; start = ends[i], i++) {
            int from = Math.max(index, start);
            int to = Math.min(index + length, ends[i]);
            range.add(pieces[i].retain(), offsets[i] + from - start, to - from);
        }
        range.writerIndex(range.capacity);
        return range;
    }

    /** Drops the pieces read to their end: the read buffers behind them go back to their pool. */
    @Override
    public ByteBuf discardSomeReadBytes() {
        ensureAccessible();
        int read = readerIndex();
        int dropped = 0;
        while (dropped < count - 1 && ends[dropped] <= read) {
            dropped++;
        }
        if (dropped == 0) {
            return this;
        }
        int shift = ends[dropped - 1];
        for (int i = 0; i < dropped; i++) {
            pieces[i].release();
        }
        int kept = count - dropped;
        System.arraycopy(pieces, dropped, pieces, 0, kept);
        System.arraycopy(offsets, dropped, offsets, 0, kept);
        for (int i = 0; i < kept; i++) {
            ends[i] = ends[i + dropped] - shift;
        }
        Arrays.fill(pieces, kept, count, null);
        count = kept;
        capacity -= shift;
        setIndex(read - shift, writerIndex() - shift);
        discardMarks();
        return this;
    }

    @Override
    public ByteBuf discardReadBytes() {
        return discardSomeReadBytes();
    }

    private void discardMarks() {
        markReaderIndex();
        markWriterIndex();
    }

    @Override
    protected void deallocate() {
        for (int i = 0; i < count; i++) {
            pieces[i].release();
            pieces[i] = null;
        }
        count = 0;
        capacity = 0;
        setIndex(0, 0);
        handle.recycle(this);
    }

    // ---- reads ----

    @Override
    protected byte _getByte(int index) {
        int i = pieceAt(index);
        return pieces[i].getByte(offsets[i] + index - pieceStart(i));
    }

    @Override
    protected short _getShort(int index) {
        int i = pieceAt(index);
        if (index + Short.BYTES <= ends[i]) {
            return pieces[i].getShort(offsets[i] + index - pieceStart(i));
        }
        return (short) ((_getByte(index) & 0xff) << 8 | _getByte(index + 1) & 0xff);
    }

    @Override
    protected short _getShortLE(int index) {
        return Short.reverseBytes(_getShort(index));
    }

    @Override
    protected int _getUnsignedMedium(int index) {
        return (_getShort(index) & 0xffff) << 8 | _getByte(index + 2) & 0xff;
    }

    @Override
    protected int _getUnsignedMediumLE(int index) {
        return _getByte(index) & 0xff | (_getShortLE(index + 1) & 0xffff) << 8;
    }

    @Override
    protected int _getInt(int index) {
        int i = pieceAt(index);
        if (index + Integer.BYTES <= ends[i]) {
            return pieces[i].getInt(offsets[i] + index - pieceStart(i));
        }
        return (_getShort(index) & 0xffff) << 16 | _getShort(index + 2) & 0xffff;
    }

    @Override
    protected int _getIntLE(int index) {
        return Integer.reverseBytes(_getInt(index));
    }

    @Override
    protected long _getLong(int index) {
        int i = pieceAt(index);
        if (index + Long.BYTES <= ends[i]) {
            return pieces[i].getLong(offsets[i] + index - pieceStart(i));
        }
        return (_getInt(index) & 0xffffffffL) << 32 | _getInt(index + 4) & 0xffffffffL;
    }

    @Override
    protected long _getLongLE(int index) {
        return Long.reverseBytes(_getLong(index));
    }

    @Override
    public ByteBuf getBytes(int index, ByteBuf dst, int dstIndex, int length) {
        checkDstIndex(index, length, dstIndex, dst.capacity());
        for (int i = pieceAt(index); length > 0; i++) {
            int n = Math.min(length, ends[i] - index);
            pieces[i].getBytes(offsets[i] + index - pieceStart(i), dst, dstIndex, n);
            index += n;
            dstIndex += n;
            length -= n;
        }
        return this;
    }

    @Override
    public ByteBuf getBytes(int index, byte[] dst, int dstIndex, int length) {
        checkDstIndex(index, length, dstIndex, dst.length);
        for (int i = pieceAt(index); length > 0; i++) {
            int n = Math.min(length, ends[i] - index);
            ByteBufCopy.getBytes(pieces[i], offsets[i] + index - pieceStart(i), dst, dstIndex, n);
            index += n;
            dstIndex += n;
            length -= n;
        }
        return this;
    }

    @Override
    public ByteBuf getBytes(int index, ByteBuffer dst) {
        int length = dst.remaining();
        checkIndex(index, length);
        int limit = dst.limit();
        try {
            for (int i = pieceAt(index); length > 0; i++) {
                int n = Math.min(length, ends[i] - index);
                dst.limit(dst.position() + n);
                pieces[i].getBytes(offsets[i] + index - pieceStart(i), dst);
                index += n;
                length -= n;
            }
        } finally {
            dst.limit(limit);
        }
        return this;
    }

    // Octets to streams and channels: on no SoftRDMA path, so through one merged copy.

    @Override
    public ByteBuf getBytes(int index, OutputStream out, int length) throws IOException {
        byte[] bytes = new byte[length];
        getBytes(index, bytes, 0, length);
        out.write(bytes);
        return this;
    }

    @Override
    public int getBytes(int index, GatheringByteChannel out, int length) throws IOException {
        checkIndex(index, length);
        return out.write(nioBuffer(index, length));
    }

    @Override
    public int getBytes(int index, FileChannel out, long position, int length) throws IOException {
        checkIndex(index, length);
        return out.write(nioBuffer(index, length), position);
    }

    @Override
    public ByteBuf copy(int index, int length) {
        checkIndex(index, length);
        ByteBuf copy = alloc().buffer(length);
        getBytes(index, copy, 0, length);
        return copy.writerIndex(length);
    }

    @Override
    public int nioBufferCount() {
        int n = 0;
        for (int i = 0; i < count; i++) {
            int c = pieces[i].nioBufferCount();
            if (c < 0) {
                return -1;
            }
            n += c;
        }
        return n;
    }

    @Override
    public ByteBuffer nioBuffer(int index, int length) {
        checkIndex(index, length);
        int i = pieceAt(index);
        if (index + length <= ends[i]) {
            return pieces[i].nioBuffer(offsets[i] + index - pieceStart(i), length);
        }
        ByteBuffer merged = ByteBuffer.allocate(length);
        getBytes(index, merged);
        return merged.flip();
    }

    @Override
    public ByteBuffer[] nioBuffers(int index, int length) {
        checkIndex(index, length);
        if (length == 0) {
            return new ByteBuffer[0];
        }
        int first = pieceAt(index);
        int last = pieceAt(index + length - 1);
        ByteBuffer[] buffers = new ByteBuffer[last - first + 1];
        for (int i = first; i <= last; i++) {
            int from = Math.max(index, pieceStart(i));
            int to = Math.min(index + length, ends[i]);
            buffers[i - first] = pieces[i].nioBuffer(offsets[i] + from - pieceStart(i), to - from);
        }
        return buffers;
    }

    @Override
    public ByteBuffer internalNioBuffer(int index, int length) {
        throw new UnsupportedOperationException("received octets in several buffers have no single NIO buffer");
    }

    @Override
    public int capacity() {
        return capacity;
    }

    @Override
    public ByteBuf capacity(int newCapacity) {
        throw new ReadOnlyBufferException();
    }

    @Override
    public ByteBufAllocator alloc() {
        return count == 0 ? ByteBufAllocator.DEFAULT : pieces[0].alloc();
    }

    @Override
    public ByteOrder order() {
        return ByteOrder.BIG_ENDIAN;
    }

    @Override
    public ByteBuf unwrap() {
        return null;
    }

    @Override
    public boolean isDirect() {
        for (int i = 0; i < count; i++) {
            if (!pieces[i].isDirect()) {
                return false;
            }
        }
        return count > 0;
    }

    @Override
    public boolean isReadOnly() {
        return true;
    }

    @Override
    public boolean hasArray() {
        return false;
    }

    @Override
    public byte[] array() {
        throw new UnsupportedOperationException("received octets in several buffers have no single array");
    }

    @Override
    public int arrayOffset() {
        throw new UnsupportedOperationException("received octets in several buffers have no single array");
    }

    @Override
    public boolean hasMemoryAddress() {
        return false;
    }

    @Override
    public long memoryAddress() {
        throw new UnsupportedOperationException("received octets in several buffers have no single address");
    }

    // ---- writes: received octets are read-only ----

    @Override
    protected void _setByte(int index, int value) {
        throw new ReadOnlyBufferException();
    }

    @Override
    protected void _setShort(int index, int value) {
        throw new ReadOnlyBufferException();
    }

    @Override
    protected void _setShortLE(int index, int value) {
        throw new ReadOnlyBufferException();
    }

    @Override
    protected void _setMedium(int index, int value) {
        throw new ReadOnlyBufferException();
    }

    @Override
    protected void _setMediumLE(int index, int value) {
        throw new ReadOnlyBufferException();
    }

    @Override
    protected void _setInt(int index, int value) {
        throw new ReadOnlyBufferException();
    }

    @Override
    protected void _setIntLE(int index, int value) {
        throw new ReadOnlyBufferException();
    }

    @Override
    protected void _setLong(int index, long value) {
        throw new ReadOnlyBufferException();
    }

    @Override
    protected void _setLongLE(int index, long value) {
        throw new ReadOnlyBufferException();
    }

    @Override
    public ByteBuf setBytes(int index, ByteBuf src, int srcIndex, int length) {
        throw new ReadOnlyBufferException();
    }

    @Override
    public ByteBuf setBytes(int index, byte[] src, int srcIndex, int length) {
        throw new ReadOnlyBufferException();
    }

    @Override
    public ByteBuf setBytes(int index, ByteBuffer src) {
        throw new ReadOnlyBufferException();
    }

    @Override
    public int setBytes(int index, InputStream in, int length) {
        throw new ReadOnlyBufferException();
    }

    @Override
    public int setBytes(int index, ScatteringByteChannel in, int length) {
        throw new ReadOnlyBufferException();
    }

    @Override
    public int setBytes(int index, FileChannel in, long position, int length) {
        throw new ReadOnlyBufferException();
    }
}
