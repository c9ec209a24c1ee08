package io.softrdma.fuzz;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.ByteBufUtil;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.util.ReferenceCountUtil;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;

/**
 * What every fuzz target shares: the input reader, the way a stream is cut into reads and made into
 * buffers, an embedded channel that allocates from a {@link Memory}, and a tail handler that records (and
 * releases) whatever reaches the end of a pipeline.
 *
 * <p>Findings are reported as {@link AssertionError}s (or as the unexpected exception itself), which
 * Jazzer treats as crashes.
 */
final class FuzzSupport {
    /** No target looks at more than this: an FPDU is at most 64 KiB, and inputs stay fast. */
    static final int MAX_INPUT = 64 * 1024;

    private FuzzSupport() {
    }

    /** Reads an input from the front: option octets first, then the payload. Past the end it reads zeros. */
    static final class Input {
        private final byte[] data;
        private int pos;

        Input(byte[] data) {
            this.data = data;
        }

        int u8() {
            return pos < data.length ? data[pos++] & 0xFF : 0;
        }

        int u16() {
            return u8() << 8 | u8();
        }

        int remaining() {
            return data.length - pos;
        }

        /** At most {@code n} octets. */
        byte[] take(int n) {
            int k = Math.max(0, Math.min(n, remaining()));
            byte[] out = Arrays.copyOfRange(data, pos, pos + k);
            pos += k;
            return out;
        }

        byte[] rest() {
            return take(remaining());
        }
    }

    // ---- cutting a stream into reads ----

    private static final int[] MAX_CHUNK = {1, 8, 64, 600};

    /**
     * The lengths of the reads a stream of {@code length} octets arrives in: one read for spec 0, else a
     * pseudo-random sequence seeded by {@code spec} whose reads are at most 1, 8, 64 or 600 octets
     * (by its two high bits) — octet by octet, small pieces, and pieces that cross a Marker interval.
     */
    static int[] chunks(int spec, int length) {
        if (spec == 0 || length == 0) {
            return new int[] {length};
        }
        int max = MAX_CHUNK[(spec >>> 6) & 3];
        int state = spec * 0x9E3779B1;
        List<Integer> out = new ArrayList<>();
        for (int left = length; left > 0; ) {
            state ^= state << 13;
            state ^= state >>> 17;
            state ^= state << 5;
            int n = Math.min(left, 1 + Integer.remainderUnsigned(state, max));
            out.add(n);
            left -= n;
        }
        return out.stream().mapToInt(Integer::intValue).toArray();
    }

    /** How the reads are made into buffers; each shape reaches other code in the cumulating decoders. */
    enum BufferStyle {
        /** A direct buffer per read. */
        DIRECT,
        /** A heap buffer per read. */
        HEAP,
        /** Retained slices of one direct buffer that holds the whole stream (as a socket read would). */
        SLICES,
        /** Direct buffers whose readable octets start a few octets in, with octets on both sides. */
        OFFSET;

        static BufferStyle of(int bits) {
            return values()[bits & 3];
        }
    }

    /** The stream as the buffers of its reads, allocated from {@code alloc}. */
    static List<ByteBuf> buffers(ByteBufAllocator alloc, byte[] stream, int chunkSpec, BufferStyle style) {
        int[] lengths = chunks(chunkSpec, stream.length);
        List<ByteBuf> out = new ArrayList<>(lengths.length);
        ByteBuf whole = null;
        if (style == BufferStyle.SLICES) {
            whole = alloc.directBuffer(Math.max(1, stream.length));
            whole.writeBytes(stream);
        }
        int at = 0;
        for (int n : lengths) {
            ByteBuf b;
            switch (style) {
                case HEAP -> b = alloc.heapBuffer(n).writeBytes(stream, at, n);
                case SLICES -> b = whole.retainedSlice(at, n);
                case OFFSET -> {
                    b = alloc.directBuffer(n + 7);
                    b.writeBytes(new byte[] {(byte) 0xA5, (byte) 0xA5, (byte) 0xA5});
                    b.writeBytes(stream, at, n);
                    b.writeBytes(new byte[] {(byte) 0x5A, (byte) 0x5A, (byte) 0x5A, (byte) 0x5A});
                    b.readerIndex(3).writerIndex(3 + n);
                }
                default -> b = alloc.directBuffer(n).writeBytes(stream, at, n);
            }
            out.add(b);
            at += n;
        }
        if (whole != null) {
            whole.release();
        }
        return out;
    }

    // ---- channels ----

    /** An unregistered embedded channel that allocates from {@code alloc}; add handlers, then register. */
    static EmbeddedChannel channel(ByteBufAllocator alloc) {
        EmbeddedChannel ch = new EmbeddedChannel(false, false);
        ch.config().setAllocator(alloc);
        return ch;
    }

    static void register(EmbeddedChannel ch) {
        try {
            ch.register();
        } catch (Exception e) {
            throw new AssertionError("could not register the embedded channel", e);
        }
    }

    /**
     * Writes the buffers one read at a time (each followed by a read-complete), while the channel is
     * open; the buffers not written are released.
     */
    static void feed(EmbeddedChannel ch, List<ByteBuf> reads) {
        int i = 0;
        for (; i < reads.size() && ch.isOpen(); i++) {
            // A read and its read-complete, then the tasks the handlers scheduled; rethrows what reached
            // the channel's own tail (nothing does: every pipeline here ends in a Tail).
            ch.writeInbound(reads.get(i));
        }
        for (; i < reads.size(); i++) {
            reads.get(i).release();
        }
    }

    /** Every outbound message, its octets concatenated; the messages are released. */
    static byte[] drainOutbound(EmbeddedChannel ch) {
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
        for (Object o; (o = ch.readOutbound()) != null; ) {
            try {
                if (o instanceof ByteBuf b) {
                    out.writeBytes(ByteBufUtil.getBytes(b));
                } else {
                    throw new AssertionError("unexpected outbound message " + o.getClass().getName());
                }
            } finally {
                ReferenceCountUtil.release(o);
            }
        }
        return out.toByteArray();
    }

    /**
     * Closes a channel whose run failed a check, and releases what it holds, so that the finding is reported
     * alone (and not followed by the leak reports of its abandoned buffers).
     */
    static void abandon(EmbeddedChannel ch) {
        try {
            ch.finishAndReleaseAll();
        } catch (RuntimeException | Error ignored) {
            // the first failure is the one reported
        }
        releaseQueued(ch);
    }

    /** Releases whatever is still queued in the channel's inbound and outbound buffers. */
    static void releaseQueued(EmbeddedChannel ch) {
        for (Object o; (o = ch.readInbound()) != null; ) {
            ReferenceCountUtil.release(o);
        }
        for (Object o; (o = ch.readOutbound()) != null; ) {
            ReferenceCountUtil.release(o);
        }
    }

    // ---- the end of a pipeline ----

    /**
     * The last handler: copies and releases every buffer that reaches it, records user events and every
     * exception (which would otherwise end up in the tail, where nobody looks).
     */
    static final class Tail extends ChannelInboundHandlerAdapter {
        final List<byte[]> messages = new ArrayList<>();
        final List<Object> events = new ArrayList<>();
        final List<Throwable> exceptions = new ArrayList<>();
        boolean inactive;

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            try {
                if (msg instanceof ByteBuf b) {
                    messages.add(ByteBufUtil.getBytes(b));
                } else {
                    exceptions.add(new AssertionError("non-buffer message reached the tail: " + msg));
                }
            } finally {
                ReferenceCountUtil.release(msg);
            }
        }

        @Override
        public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
            events.add(evt);
            ReferenceCountUtil.release(evt);
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            exceptions.add(cause);
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) {
            inactive = true;
        }
    }

    /** Fails unless {@code t} is one of the {@code allowed} types (or null). */
    @SafeVarargs
    static void expectOnly(Throwable t, String where, Class<? extends Throwable>... allowed) {
        if (t == null) {
            return;
        }
        for (Class<? extends Throwable> c : allowed) {
            if (c.isInstance(t)) {
                return;
            }
        }
        throw new AssertionError("unexpected " + t.getClass().getName() + " " + where + ": " + t.getMessage(), t);
    }

    static String hex(byte[] b) {
        return HexFormat.of().formatHex(b);
    }

    static String hex(List<byte[]> list) {
        StringBuilder sb = new StringBuilder("[");
        for (byte[] b : list) {
            sb.append(sb.length() > 1 ? ", " : "").append(b.length > 64 ? hex(Arrays.copyOf(b, 64)) + "..." : hex(b));
        }
        return sb.append(']').toString();
    }

    static boolean sameBytes(List<byte[]> a, List<byte[]> b) {
        if (a.size() != b.size()) {
            return false;
        }
        for (int i = 0; i < a.size(); i++) {
            if (!Arrays.equals(a.get(i), b.get(i))) {
                return false;
            }
        }
        return true;
    }
}
