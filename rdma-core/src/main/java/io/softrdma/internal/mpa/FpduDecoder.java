package io.softrdma.internal.mpa;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;
import io.netty.util.internal.logging.InternalLogger;
import io.netty.util.internal.logging.InternalLoggerFactory;
import io.softrdma.mpa.LlpErrorCode;
import io.softrdma.mpa.MpaNegotiation;
import java.util.List;
import java.util.zip.CRC32C;

/**
 * Finds the FPDUs in the received stream (RFC 5044 §6), checks each one's CRC (§4.4) and Markers
 * (§4.3), strips the Markers, and passes each ULPDU upward as a retained slice of the read buffers:
 * the payload is not copied here, only by the layer that places it. (A ULPDU with Markers inside it
 * is the exception: it is copied out around them.)
 *
 * <p>Reads are cumulated without copying (a chain of the socket buffers, {@link ChainedByteBuf}), so an FPDU
 * split across reads costs no copy and no allocation either; many FPDUs in one read are handed on one by one.
 *
 * <p>An FPDU whose CRC does not match, whose ULPDU_Length exceeds what a sender may post (64768, §3),
 * or whose Markers do not point to its ULPDU_Length field is reported as an {@link FpduException}
 * through {@code exceptionCaught}, carrying the LLP error code of RFC 5044 §8. After an error no
 * further FPDU is passed on and the stream is not read further (§8); the connection stays open for
 * the layer above to send its Terminate and close.
 *
 * <p>RFC 5044 §8 code 1 (the TCP connection closed, by FIN, reset or loss) and the §7.2 notice of a
 * graceful close reach the layer above as {@code channelInactive}, after every complete FPDU received
 * before it.
 *
 * <p>Ownership: every ULPDU passed to {@code channelRead} must be released by the handler above. A {@link
 * UlpduSink} ({@link #deliverTo}) instead borrows each ULPDU for the length of its call.
 *
 * <p>Thread safety: a channel handler; all methods run on the channel's event loop.
 */
public final class FpduDecoder extends ByteToMessageDecoder {
    private static final InternalLogger logger = InternalLoggerFactory.getInstance(FpduDecoder.class);

    private final boolean crcEnabled;
    private final boolean markers;
    private final Crc32c crc = Crc32c.confined();
    /** Octets received since the first FPDU: where the peer's Markers fall (§4.3). */
    private long streamPosition;
    private long fpdusReceived;
    private boolean failed;
    private Runnable firstFpduListener;
    private Runnable failureListener;
    private UlpduSink sink;

    /**
     * Takes each ULPDU where the decoder finds it, instead of a retained slice of it sent through the pipeline: the
     * queue pair's receive engine, when it is the next inbound handler. A slice, its retain and release on the read
     * buffer, and the pipeline's hop cost about a third of a 64-octet Write's receiving CPU (docs/benchmarks.md,
     * issue 18).
     */
    @FunctionalInterface
    public interface UlpduSink {
        /**
         * Handles one ULPDU: {@code ulpdu}'s readable octets, read with absolute gets. The buffer is lent for the
         * call only: do not retain, release or keep it, nor move its indices.
         */
        void onUlpdu(ByteBuf ulpdu);
    }

    /**
     * @param crcEnabled check the CRC32c of each FPDU (only when negotiated; else it is not checked)
     * @param markers the peer inserts Markers, because this endpoint declared M = 1
     */
    public FpduDecoder(boolean crcEnabled, boolean markers) {
        this.crcEnabled = crcEnabled;
        this.markers = markers;
        setCumulator(CHAINING);
    }

    /** A decoder for this endpoint's side of a negotiated connection. */
    public static FpduDecoder of(MpaNegotiation negotiation) {
        return new FpduDecoder(negotiation.crc(), negotiation.markersReceived());
    }

    /**
     * Runs {@code listener} once, on the event loop, right after the first FPDU has been validated;
     * a responder opens its {@link FpduEncoder} with it (RFC 5044 §7.1.2 rule 4).
     */
    public void onFirstFpdu(Runnable listener) {
        this.firstFpduListener = listener;
    }

    /**
     * Runs {@code listener} once, on the event loop, when a framing error stops this decoder; a
     * responder that has not received a valid FPDU yet then refuses to send any (RFC 5044 §7.1.2 rule 4).
     */
    public void onFailure(Runnable listener) {
        this.failureListener = listener;
    }

    /**
     * Hands every later ULPDU to {@code sink} instead of {@code channelRead}; null goes back to the pipeline. Call
     * from the handler right after this one, on the event loop.
     */
    public void deliverTo(UlpduSink sink) {
        this.sink = sink;
    }

    /** The number of valid FPDUs passed on so far. */
    public long fpdusReceived() {
        return fpdusReceived;
    }

    /** Whether a framing error stopped this decoder. */
    public boolean isFailed() {
        return failed;
    }

    /** Decodes at most one FPDU per call, so that ULPDUs before an error reach DDP before the error does. */
    @Override
    protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
        if (failed) {
            in.skipBytes(in.readableBytes());
            return;
        }
        int start = in.readerIndex();
        int available = in.readableBytes();
        long position = streamPosition;
        int leading = markers && FpduCodec.octetsBeforeMarker(position) == 0 ? FpduCodec.MARKER_LENGTH : 0;
        if (available < leading + FpduCodec.LENGTH_FIELD_LENGTH) {
            return;
        }
        int ulpduLength = FpduCodec.ulpduLength(in, start + leading);
        if (ulpduLength > FpduCodec.MAX_ULPDU_LENGTH) {
            // A local choice: RFC 5044 has no code for a ULPDU_Length no sender may post (§3); it is the
            // length field that cannot be right, so it is reported as the framing error code 3.
            fail(ctx, in, LlpErrorCode.MARKER_AND_ULPDU_LENGTH_MISMATCH, "FPDU at stream octet " + position
                    + ": ULPDU_Length " + ulpduLength + " exceeds the largest ULPDU a sender may post, "
                    + FpduCodec.MAX_ULPDU_LENGTH + " octets (RFC 5044 §3)");
            return;
        }
        long fpduStart = position + leading;
        int unmarkedLength = FpduCodec.fpduLength(ulpduLength);
        int innerMarkers = markers ? FpduEncoder.innerMarkerCount(fpduStart, unmarkedLength) : 0;
        int wireLength = leading + unmarkedLength + FpduCodec.MARKER_LENGTH * innerMarkers;
        if (available < wireLength) {
            return;
        }
        // The FPDU's own buffer: the read buffer it lies in when the cumulation is a chain of reads (as it is
        // nearly always, a read ending inside an FPDU), so that the CRC and the layer above read it without going
        // through the chain for every octet.
        ByteBuf frame = in;
        int at = start;
        if (in instanceof ChainedByteBuf chain && !markers) {
            int piece = chain.pieceAt(start);
            int pieceStart = chain.pieceStart(piece);
            if (start + wireLength <= pieceStart + chain.pieceLength(piece)) {
                frame = chain.piece(piece);
                at = chain.pieceOffset(piece) + start - pieceStart;
            }
        }
        if (crcEnabled) {
            int computed = crc.reset().update(frame, at, wireLength - FpduCodec.CRC_LENGTH).value();
            int received = FpduCodec.crcLittleEndian(frame, at + wireLength - FpduCodec.CRC_LENGTH);
            if (computed != received) {
                fail(ctx, in, LlpErrorCode.CRC_ERROR, String.format(
                        "FPDU at stream octet %d (ULPDU_Length %d): CRC32c received 0x%08x, computed 0x%08x"
                                + " (RFC 5044 §4.4); %s", position, ulpduLength, received, computed,
                        secondOpinion(in, start, wireLength - FpduCodec.CRC_LENGTH, received, computed)));
                return;
            }
        }
        if (markers && !markersValid(ctx, in, start, position, leading, fpduStart, innerMarkers)) {
            return;
        }
        int ulpduIndex = start + leading + FpduCodec.LENGTH_FIELD_LENGTH;
        boolean extract = markerInsideUlpdu(fpduStart, ulpduLength, innerMarkers);
        UlpduSink s = sink;
        ByteBuf ulpdu = extract ? extractAroundMarkers(ctx, in, start, position, fpduStart, ulpduLength)
                // A recycled slice of the read buffer when the ULPDU lies within one read (a chain slices its
                // pieces so), a pooled chain of the reads it spans otherwise.
                : s == null ? in.retainedSlice(ulpduIndex, ulpduLength) : null;
        streamPosition = position + wireLength;
        fpdusReceived++;
        if (s == null) {
            in.skipBytes(wireLength);
            out.add(ulpdu);
            firstFpdu();
        } else if (ulpdu != null) {
            in.skipBytes(wireLength);
            firstFpdu();
            try {
                s.onUlpdu(ulpdu);
            } finally {
                ulpdu.release();
            }
        } else {
            // Lent in place: the read buffer's readable octets narrowed to the ULPDU for the call.
            in.skipBytes(wireLength);
            firstFpdu();
            int from = at + ulpduIndex - start;
            int reader = frame.readerIndex();
            int writer = frame.writerIndex();
            frame.setIndex(from, from + ulpduLength);
            try {
                s.onUlpdu(frame);
            } finally {
                frame.setIndex(reader, writer);
            }
        }
    }

    /**
     * Runs the first-FPDU listener after the first valid FPDU, before its ULPDU is handled (a responder's encoder
     * opens before anything the ULPDU causes is sent).
     */
    private void firstFpdu() {
        Runnable listener = firstFpduListener;
        if (listener != null) {
            firstFpduListener = null;
            listener.run();
        }
    }

    /**
     * Cumulates reads without copying them and without allocating: a read that leaves part of an FPDU behind is
     * chained to the next one ({@link ChainedByteBuf}), and the chain grows by a piece per read until its
     * pieces are read out.
     */
    private static final Cumulator CHAINING = (alloc, cumulation, in) -> {
        if (cumulation instanceof ChainedByteBuf chain && chain.refCnt() == 1) {
            return chain.append(in);
        }
        if (!cumulation.isReadable()) {
            cumulation.release();
            return in;
        }
        return ChainedByteBuf.newInstance().append(cumulation).append(in);
    };

    /** Whether a Marker falls between the first and the last octet of the ULPDU. */
    private static boolean markerInsideUlpdu(long fpduStart, int ulpduLength, int innerMarkers) {
        if (innerMarkers == 0 || ulpduLength == 0) {
            return false;
        }
        long firstMarker = (fpduStart / FpduCodec.MARKER_INTERVAL + 1) * FpduCodec.MARKER_INTERVAL;
        return firstMarker < fpduStart + FpduCodec.LENGTH_FIELD_LENGTH + ulpduLength;
    }

    /** §4.3 and §8 code 3: a Marker between FPDUs holds 0; one inside points back to ULPDU_Length. */
    private boolean markersValid(ChannelHandlerContext ctx, ByteBuf in, int start, long position, int leading,
            long fpduStart, int innerMarkers) {
        if (leading != 0) {
            int pointer = FpduCodec.markerFpduPointer(in, start);
            if (pointer != 0) {
                fail(ctx, in, LlpErrorCode.MARKER_AND_ULPDU_LENGTH_MISMATCH, "Marker at stream octet " + position
                        + " precedes an FPDU and must hold FPDUPTR 0, received " + pointer + " (RFC 5044 §4.3)");
                return false;
            }
        }
        long marker = (fpduStart / FpduCodec.MARKER_INTERVAL + 1) * FpduCodec.MARKER_INTERVAL;
        for (int i = 0; i < innerMarkers; i++, marker += FpduCodec.MARKER_INTERVAL) {
            int pointer = FpduCodec.markerFpduPointer(in, start + (int) (marker - position));
            int expected = (int) (marker - fpduStart);
            if (pointer != expected) {
                fail(ctx, in, LlpErrorCode.MARKER_AND_ULPDU_LENGTH_MISMATCH, "Marker at stream octet " + marker
                        + ": FPDUPTR " + pointer + ", but the FPDU's ULPDU_Length field is " + expected
                        + " octets back (RFC 5044 §4.3)");
                return false;
            }
        }
        return true;
    }

    /**
     * The ULPDU of an FPDU with Markers inside it, copied out around them into one buffer: a
     * composite of some 128 slices of a 64 KiB ULPDU measured five times slower than the copy
     * (docs/benchmarks.md), and Markers are used only when this endpoint asked for them.
     */
    private static ByteBuf extractAroundMarkers(ChannelHandlerContext ctx, ByteBuf in, int start, long position,
            long fpduStart, int ulpduLength) {
        long p = fpduStart + FpduCodec.LENGTH_FIELD_LENGTH;
        int index = start + (int) (p - position);
        ByteBuf ulpdu = ctx.alloc().ioBuffer(ulpduLength);
        int remaining = ulpduLength;
        while (remaining > 0) {
            int beforeMarker = FpduCodec.octetsBeforeMarker(p);
            if (beforeMarker == 0) {
                p += FpduCodec.MARKER_LENGTH;
                index += FpduCodec.MARKER_LENGTH;
                continue;
            }
            int chunk = Math.min(remaining, beforeMarker);
            ulpdu.writeBytes(in, index, chunk);
            p += chunk;
            index += chunk;
            remaining -= chunk;
        }
        return ulpdu;
    }

    /**
     * The CRC again, on the error path only, over a heap copy made by Netty's own {@code getBytes} and the JDK's
     * {@link CRC32C} on an array: a path that shares nothing with {@link Crc32c}'s windows over pool chunks. If it
     * agrees with the received value, the octets were right and the fast path misread them (a SoftRDMA bug); if
     * it agrees with the first computation, the octets in the read buffers are what it says, as received.
     */
    private static String secondOpinion(ByteBuf in, int start, int length, int received, int computed) {
        CRC32C check = new CRC32C();
        check.update(ByteBufUtil.getBytes(in, start, length, true));
        int again = (int) check.getValue();
        String verdict = again == computed ? "the octets read hold that CRC"
                : again == received ? "the fast CRC path misread the octets, a SoftRDMA bug"
                : "the octets changed while being checked";
        return String.format("over a heap copy 0x%08x: %s", again, verdict);
    }

    private void fail(ChannelHandlerContext ctx, ByteBuf in, LlpErrorCode code, String message) {
        failed = true;
        in.skipBytes(in.readableBytes());
        // RFC 5044 §8: deliver nothing more on this half connection; do not close (DDP's ULP does).
        ctx.channel().config().setAutoRead(false);
        logger.debug("{} MPA framing error {}: {}", ctx.channel(), code, message);
        Runnable listener = failureListener;
        failureListener = null;
        if (listener != null) {
            listener.run();
        }
        ctx.fireExceptionCaught(new FpduException(code, message));
    }

    /**
     * After an error nothing more is read: ByteToMessageDecoder would ask for another read whenever one
     * produced no message and auto-read is off, which after an error is every read.
     */
    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) throws Exception {
        if (failed) {
            ctx.fireChannelReadComplete();
            return;
        }
        super.channelReadComplete(ctx);
    }

    @Override
    protected void decodeLast(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) throws Exception {
        super.decodeLast(ctx, in, out);
        if (!failed && in.isReadable() && logger.isDebugEnabled()) {
            logger.debug("{} stream closed {} octets into an FPDU at stream octet {}", ctx.channel(),
                    in.readableBytes(), streamPosition);
        }
    }
}
