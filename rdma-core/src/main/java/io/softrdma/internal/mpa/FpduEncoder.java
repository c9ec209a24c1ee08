package io.softrdma.internal.mpa;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import io.netty.handler.codec.UnsupportedMessageTypeException;
import io.netty.util.ReferenceCountUtil;
import io.softrdma.internal.transport.ByteBufCopy;
import io.softrdma.internal.transport.WriteBarrier;
import io.softrdma.mpa.MpaException;
import io.softrdma.mpa.MpaNegotiation;
import io.softrdma.mpa.MpaRole;
import java.nio.channels.ClosedChannelException;
import java.util.ArrayDeque;

/**
 * Frames each outgoing ULPDU as one FPDU (RFC 5044 §4): ULPDU_Length, the ULPDU, PAD to a multiple
 * of four, CRC32c (or zero when CRCs are off), and Markers at every 512th octet of the stream when the
 * peer asked for them (§4.3).
 *
 * <p>Accepts a {@link ByteBuf} (the whole ULPDU) or a {@link GatheredUlpdu} (a header plus a payload
 * slice). Without Markers, FPDUs are framed into a pooled arena: a payload of up to {@link #COPY_LIMIT}
 * octets is copied next to its header, a longer one is never copied — its prefix (ULPDU_Length and
 * header) and trailer (PAD and CRC) are framed around it and the payload buffer itself is written
 * between them. Consecutive framed octets reach the channel as one buffer at the flush, so a flush of a
 * thousand 64-octet Writes is a handful of buffers and one gathering write, which starts on an FPDU
 * boundary (§5.1). With Markers the FPDU is assembled in one buffer (see {@code writeWithMarkers}).
 * The caller's promise completes when the whole FPDU is written. A {@link WriteBarrier} passes through
 * unframed, in order.
 *
 * <p>A responder's encoder starts closed: RFC 5044 §7.1.2 rule 4 forbids a responder to send any FPDU
 * or Marker before it has received and validated one, so writes are held until
 * {@link #releaseHeldWrites()} (which the {@link FpduDecoder} triggers).
 *
 * <p>Why this class is long: it is MPA's whole transmit side (RFC 5044 §4 framing, §4.3 Markers, §7.1.2 rule 4's
 * held writes) and the arena its FPDUs are framed into; the two framings share the stream position and the run.
 *
 * <p>Thread safety: a channel handler; all methods run on the channel's event loop.
 */
public final class FpduEncoder extends ChannelDuplexHandler {
    private static final byte[] ZEROS = new byte[4];
    /**
     * Payloads of at most this many octets are copied into their FPDU instead of being written as a
     * buffer of their own. Measured on the 64-octet Write row (docs/benchmarks.md, issue 18), a buffer
     * handed to Netty costs a slice, a pipeline write and an outbound-buffer entry each way, several
     * times the cost of copying half a kilobyte; Linux siw likewise copies short payloads next to their
     * headers (siw_qp_tx.c, MAX_HDR_INLINE), and verbs offer the same for small Sends (inline data).
     * The copy is taken when the FPDU is encoded, so its CRC covers exactly the octets sent, whatever
     * happens to the source memory later.
     */
    public static final int COPY_LIMIT = 512;
    /**
     * Octets of one pooled buffer into which FPDUs are framed: whole FPDUs with short payloads, and the
     * prefix and trailer of the others. Consecutive framed octets go to the channel as one slice (a
     * "run") at the next flush, barrier, promise or large payload.
     */
    private static final int ARENA_SIZE = 64 * 1024;

    private final boolean crcEnabled;
    private final boolean markers;
    private final Crc32c crc = new Crc32c();
    /** Octets sent since the first FPDU: where the next Marker falls (§4.3). */
    private long streamPosition;
    /** Writes held back until the first FPDU arrives (responder only); msg, promise pairs. */
    private ArrayDeque<Object> held;
    /** Set when the first FPDU turned out invalid: a responder may then send nothing at all. */
    private MpaException refusal;
    private ChannelHandlerContext ctx;
    private ChannelPromise quietVoidPromise;
    /** Where an FPDU's framed octets are assembled, so that its CRC is computed over an array. */
    private final byte[] scratch = new byte[FpduCodec.LENGTH_FIELD_LENGTH + GatheredUlpdu.CAPACITY + COPY_LIMIT
            + ZEROS.length + FpduCodec.CRC_LENGTH];
    /** Where FPDUs are framed; freed when it and every slice of it are released. */
    private ByteBuf arena;
    /** Where the run not yet written to the channel starts in the arena; the run ends at its writer index. */
    private int runStart;
    /** The void promise to write the run with: a caller's, which reports failures, or the quiet one. */
    private ChannelPromise runVoidPromise;

    /**
     * @param crcEnabled generate CRC32c trailers (else the CRC field is zero)
     * @param markers insert Markers, because the peer declared M = 1
     * @param holdUntilFirstFpduReceived hold every write until {@link #releaseHeldWrites()} (responder)
     */
    public FpduEncoder(boolean crcEnabled, boolean markers, boolean holdUntilFirstFpduReceived) {
        this.crcEnabled = crcEnabled;
        this.markers = markers;
        this.held = holdUntilFirstFpduReceived ? new ArrayDeque<>() : null;
    }

    /** An encoder for this endpoint's side of a negotiated connection. */
    public static FpduEncoder of(MpaNegotiation negotiation) {
        return new FpduEncoder(negotiation.crc(), negotiation.markersSent(), negotiation.role() == MpaRole.RESPONDER);
    }

    /** Whether writes are still held back because no FPDU has been received yet. */
    public boolean isHolding() {
        return held != null;
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        this.ctx = ctx;
        // A void promise that does not fire exceptionCaught: a failed prefix write implies a failed
        // trailer write, whose promise is the caller's.
        this.quietVoidPromise = ctx.channel().unsafe().voidPromise();
        this.runVoidPromise = quietVoidPromise;
    }

    @Override
    public void handlerRemoved(ChannelHandlerContext ctx) {
        failHeld(new ClosedChannelException());
        if (arena != null) {
            arena.release();
            arena = null;
        }
    }

    /** The arena, with at least {@code length} writable octets; a full arena's run is written first. */
    private ByteBuf reserve(ChannelHandlerContext ctx, int length) {
        ByteBuf a = arena;
        if (a != null && a.writableBytes() >= length) {
            return a;
        }
        if (a != null) {
            writeRun(runVoidPromise);
            a.release();
            arena = null;
        }
        a = ctx.alloc().ioBuffer(ARENA_SIZE, ARENA_SIZE);
        arena = a;
        runStart = 0;
        return a;
    }

    /** Writes the framed octets not yet written, if any, as one slice of the arena, with {@code promise}. */
    private void writeRun(ChannelPromise promise) {
        ByteBuf a = arena;
        int end = a == null ? 0 : a.writerIndex();
        if (end > runStart) {
            int start = runStart;
            runStart = end;
            runVoidPromise = quietVoidPromise;
            ctx.write(a.retainedSlice(start, end - start), promise);
        } else if (!promise.isVoid()) {
            promise.trySuccess();
        }
    }

    /** Hands the run to the channel, then flushes: one flush, one gathering write of every FPDU so far. */
    @Override
    public void flush(ChannelHandlerContext ctx) {
        writeRun(runVoidPromise);
        ctx.flush();
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) throws Exception {
        failHeld(new ClosedChannelException());
        super.channelInactive(ctx);
    }

    /**
     * A responder whose first received FPDU was invalid may never send (RFC 5044 §7.1.2 rule 4): every
     * held and later write fails, so that whoever waits for a Terminate to be written can close.
     *
     * <p>Note: event loop only; no effect once the encoder is open.
     */
    public void refuseWrites() {
        if (held == null) {
            return;
        }
        refusal = new MpaException("a responder sends no FPDU before it has received a valid one"
                + " (RFC 5044 §7.1.2 rule 4), and the first FPDU received was invalid");
        failHeld(refusal);
    }

    @Override
    public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
        if (refusal != null) {
            releaseMessage(msg);
            promise.tryFailure(refusal);
            return;
        }
        boolean barrier = msg == WriteBarrier.INSTANCE;
        if (!(msg instanceof ByteBuf) && !(msg instanceof GatheredUlpdu) && !barrier) {
            ReferenceCountUtil.release(msg);
            promise.setFailure(new UnsupportedMessageTypeException(msg, ByteBuf.class, GatheredUlpdu.class));
            return;
        }
        if (held != null) {
            if (!ctx.channel().isActive()) {
                failHeld(new ClosedChannelException());
                releaseMessage(msg);
                promise.tryFailure(new ClosedChannelException());
                return;
            }
            held.add(msg);
            held.add(promise);
            return;
        }
        if (barrier) {
            // Not an FPDU: it only tells the writer when what came before has left.
            writeRun(runVoidPromise);
            ctx.write(msg, promise);
            return;
        }
        encode(ctx, msg, promise);
    }

    /**
     * Frames one ULPDU of {@code headerLength} octets of {@code header} followed by {@code length} octets of {@code
     * memory} from absolute {@code index} (at most {@link #COPY_LIMIT}), as {@link #write} would frame the same
     * octets as a {@link GatheredUlpdu}, with the quiet void promise. The caller must be the handler just before
     * this one (the queue pair's sender, issue 18): the FPDU is assembled in the scratch array, CRC'd there and
     * appended to the run, with no holder, no header buffer and one copy of the payload fewer. While writes are
     * held or refused, or with Markers, it takes the holder's path.
     *
     * <p>Note: event loop only.
     */
    public void writeInline(ChannelHandlerContext ctx, byte[] header, int headerLength, ByteBuf memory, int index,
            int length) {
        if (held != null || refusal != null || markers || length > COPY_LIMIT) {
            GatheredUlpdu u = GatheredUlpdu.newInstance(Unpooled.EMPTY_BUFFER);
            u.header().writeBytes(header, 0, headerLength);
            if (length > 0) {
                u.appendPayload(memory, index, length);
            }
            write(ctx, u, quietVoidPromise);
            return;
        }
        int ulpduLength = headerLength + length;
        byte[] bytes = scratch;
        bytes[0] = (byte) (ulpduLength >>> 8);
        bytes[1] = (byte) ulpduLength;
        int n = FpduCodec.LENGTH_FIELD_LENGTH;
        System.arraycopy(header, 0, bytes, n, headerLength);
        n += headerLength;
        if (length > 0) {
            ByteBufCopy.getBytes(memory, index, bytes, n, length);
            n += length;
        }
        for (int pad = FpduCodec.padLength(ulpduLength); pad > 0; pad--) {
            bytes[n++] = 0;
        }
        int crcValue = crcEnabled ? crc.reset().update(bytes, 0, n).value() : 0;
        reserve(ctx, n + FpduCodec.CRC_LENGTH).writeBytes(bytes, 0, n).writeIntLE(crcValue);
        streamPosition += n + FpduCodec.CRC_LENGTH;
    }

    private static void releaseMessage(Object msg) {
        ReferenceCountUtil.release(msg);
    }

    /**
     * Opens a responder's encoder: sends, in order, every write held so far. Idempotent.
     *
     * <p>Note: event loop only.
     */
    public void releaseHeldWrites() {
        ArrayDeque<Object> q = held;
        if (q == null) {
            return;
        }
        held = null;
        if (q.isEmpty() || ctx == null) {
            return;
        }
        while (!q.isEmpty()) {
            Object msg = q.poll();
            ChannelPromise promise = (ChannelPromise) q.poll();
            if (msg == WriteBarrier.INSTANCE) {
                writeRun(runVoidPromise);
                ctx.write(msg, promise);
            } else {
                encode(ctx, msg, promise);
            }
        }
        writeRun(runVoidPromise);
        ctx.flush();
    }

    private void failHeld(Throwable cause) {
        ArrayDeque<Object> q = held;
        if (q == null) {
            return;
        }
        while (!q.isEmpty()) {
            Object msg = q.poll();
            ChannelPromise promise = (ChannelPromise) q.poll();
            releaseMessage(msg);
            promise.tryFailure(cause);
        }
    }

    private void encode(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
        ByteBuf header;
        ByteBuf payload;
        GatheredUlpdu gathered = null;
        if (msg instanceof GatheredUlpdu g) {
            gathered = g;
            header = g.header();
            payload = g.payload();
        } else {
            header = null;
            payload = (ByteBuf) msg;
        }
        int headerLength = header == null ? 0 : header.readableBytes();
        int ulpduLength = headerLength + payload.readableBytes();
        if (ulpduLength > FpduCodec.MAX_ULPDU_LENGTH) {
            releaseMessage(msg);
            promise.setFailure(new IllegalArgumentException("a ULPDU of " + ulpduLength
                    + " octets exceeds the maximum of " + FpduCodec.MAX_ULPDU_LENGTH + " (RFC 5044 §3)"));
            return;
        }
        try {
            if (markers) {
                writeWithMarkers(ctx, header, payload, ulpduLength, promise);
            } else {
                writePlain(ctx, header, payload, ulpduLength, promise);
            }
        } catch (Throwable t) {
            // Only allocation can fail before the payload is handed on.
            ReferenceCountUtil.safeRelease(payload);
            promise.tryFailure(t);
        } finally {
            if (gathered != null) {
                gathered.recycleTakingPayload();
            }
        }
    }

    /**
     * Frames the FPDU into the arena: a short payload is copied in with its header, and the whole FPDU
     * joins the run; a longer one is written as the run up to its prefix, the payload buffer itself, and
     * its trailer, which starts the next run. A caller's non-void promise ends the run with this FPDU.
     */
    private void writePlain(ChannelHandlerContext ctx, ByteBuf header, ByteBuf payload, int ulpduLength,
            ChannelPromise promise) {
        int pad = FpduCodec.padLength(ulpduLength);
        int headerLength = header == null ? 0 : header.readableBytes();
        int payloadLength = payload.readableBytes();
        int prefixLength = FpduCodec.LENGTH_FIELD_LENGTH + headerLength;
        byte[] bytes = scratch;
        bytes[0] = (byte) (ulpduLength >>> 8);
        bytes[1] = (byte) ulpduLength;
        if (header != null) {
            header.getBytes(header.readerIndex(), bytes, FpduCodec.LENGTH_FIELD_LENGTH, headerLength);
        }
        if (payloadLength <= COPY_LIMIT) {
            int n = prefixLength;
            ByteBufCopy.getBytes(payload, payload.readerIndex(), bytes, n, payloadLength);
            n += payloadLength;
            for (int i = 0; i < pad; i++) {
                bytes[n++] = 0;
            }
            int crcValue = crcEnabled ? crc.reset().update(bytes, 0, n).value() : 0;
            ByteBuf a = reserve(ctx, n + FpduCodec.CRC_LENGTH);
            a.writeBytes(bytes, 0, n).writeIntLE(crcValue);
            payload.release();
        } else {
            int crcValue = 0;
            if (crcEnabled) {
                crcValue = crc.reset().update(bytes, 0, prefixLength)
                        .update(payload, payload.readerIndex(), payloadLength).update(ZEROS, 0, pad).value();
            }
            // Prefix and trailer in one reservation, so that the trailer needs no arena of its own.
            ByteBuf a = reserve(ctx, prefixLength + pad + FpduCodec.CRC_LENGTH);
            a.writeBytes(bytes, 0, prefixLength);
            writeRun(runVoidPromise);
            ctx.write(payload, quietVoidPromise);
            a.writeBytes(ZEROS, 0, pad).writeIntLE(crcValue);
        }
        streamPosition += FpduCodec.fpduLength(ulpduLength);
        if (!promise.isVoid()) {
            writeRun(promise);
        } else if (promise != quietVoidPromise) {
            runVoidPromise = promise;
        }
    }

    /**
     * §4.3: a Marker at every stream octet {@code p} with {@code p mod 512 == 0}. One that falls
     * before the ULPDU_Length field belongs to this FPDU with FPDUPTR 0; one inside the FPDU (also
     * right after the PAD) points back to the ULPDU_Length field; all are covered by the CRC (§4.4).
     *
     * <p>With Markers the FPDU is assembled in one buffer, which copies the payload once: gathering a
     * 64 KiB FPDU as some 256 pieces around its 127 Markers measured ten times slower than the copy
     * (docs/benchmarks.md), and Markers are used only when a peer requires them.
     */
    private void writeWithMarkers(ChannelHandlerContext ctx, ByteBuf header, ByteBuf payload, int ulpduLength,
            ChannelPromise promise) {
        int pad = FpduCodec.padLength(ulpduLength);
        int headerLength = header == null ? 0 : header.readableBytes();
        long start = streamPosition;
        boolean leading = FpduCodec.octetsBeforeMarker(start) == 0;
        long fpduStart = leading ? start + FpduCodec.MARKER_LENGTH : start;
        int unmarked = FpduCodec.fpduLength(ulpduLength);
        int markerCount = innerMarkerCount(fpduStart, unmarked) + (leading ? 1 : 0);
        int wireLength = unmarked + FpduCodec.MARKER_LENGTH * markerCount;

        ByteBuf fpdu = ctx.alloc().ioBuffer(wireLength);
        try {
            long p = start;
            if (leading) {
                p = putMarker(fpdu, p, 0);
            }
            fpdu.writeShort(ulpduLength);
            p += FpduCodec.LENGTH_FIELD_LENGTH;
            if (header != null) {
                p = putSpanning(fpdu, header, header.readerIndex(), headerLength, p, fpduStart);
            }
            p = putSpanning(fpdu, payload, payload.readerIndex(), payload.readableBytes(), p, fpduStart);
            for (int i = 0; i < pad; i++) {
                // PAD never straddles a Marker: both are 4-aligned in the stream.
                fpdu.writeByte(0);
                p++;
            }
            if (FpduCodec.octetsBeforeMarker(p) == 0) {
                // A Marker right after the PAD is part of this FPDU and of its CRC (§4.4 rule 1).
                p = putMarker(fpdu, p, (int) (p - fpduStart));
            }
            int crcValue = 0;
            if (crcEnabled) {
                crcValue = crc.reset().update(fpdu, fpdu.readerIndex(), fpdu.readableBytes()).value();
            }
            fpdu.writeIntLE(crcValue);
            streamPosition = p + FpduCodec.CRC_LENGTH;
        } catch (Throwable t) {
            fpdu.release();
            throw t;
        }
        payload.release();
        ctx.write(fpdu, promise);
    }

    /** The number of Markers that fall inside an FPDU of {@code length} unmarked octets at {@code fpduStart}. */
    static int innerMarkerCount(long fpduStart, int length) {
        long end = fpduStart + length;
        long next = (fpduStart / FpduCodec.MARKER_INTERVAL + 1) * FpduCodec.MARKER_INTERVAL;
        int count = 0;
        while (next < end) {
            end += FpduCodec.MARKER_LENGTH;
            next += FpduCodec.MARKER_INTERVAL;
            count++;
        }
        return count;
    }

    private static long putSpanning(ByteBuf fpdu, ByteBuf source, int index, int length, long p, long fpduStart) {
        while (length > 0) {
            int beforeMarker = FpduCodec.octetsBeforeMarker(p);
            if (beforeMarker == 0) {
                p = putMarker(fpdu, p, (int) (p - fpduStart));
                continue;
            }
            int chunk = Math.min(length, beforeMarker);
            fpdu.writeBytes(source, index, chunk);
            p += chunk;
            index += chunk;
            length -= chunk;
        }
        return p;
    }

    private static long putMarker(ByteBuf fpdu, long p, int fpduPointer) {
        fpdu.writeShort(0);
        fpdu.writeShort(fpduPointer);
        return p + FpduCodec.MARKER_LENGTH;
    }
}
