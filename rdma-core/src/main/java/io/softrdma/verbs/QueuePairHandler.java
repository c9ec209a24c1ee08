package io.softrdma.verbs;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandler;
import io.netty.channel.ChannelPromise;
import io.netty.util.ReferenceCountUtil;
import io.softrdma.internal.mpa.FpduDecoder;
import io.softrdma.internal.mpa.FpduEncoder;
import io.softrdma.internal.mpa.FpduException;
import io.softrdma.internal.mpa.MpaEstablishedEvent;
import io.softrdma.internal.rdmap.TerminateCause;
import io.softrdma.mpa.LlpErrorCode;
import io.softrdma.rdmap.TerminateCode;
import java.io.IOException;
import java.util.List;

/**
 * Binds a queue pair to its channel, above MPA: it becomes RTS on {@link MpaEstablishedEvent}, hands
 * every ULPDU to the receive engine, resumes sending when the channel becomes writable again, turns
 * MPA's CRC and Marker errors into Terminates (Layer 2, RFC 5044 §8), and takes the queue pair to
 * ERROR when the connection goes, telling a peer's FIN (RFC 5044 §7.2) from a lost connection (§8 code 1) and from a
 * close on this side. Of the outbound operations it sees only {@code close} (Netty skips it for the others).
 *
 * <p>Note: one per channel; all calls on the channel's event loop.
 */
public final class QueuePairHandler extends ChannelDuplexHandler {
    private final DefaultQueuePair qp;
    /** The decoder that hands this handler its ULPDUs directly, if it does. */
    private FpduDecoder decoder;
    /** Between the first segment of a read and channelReadComplete: inside the engine bracket of the read. */
    private boolean readCycle;
    /** Segments handed to the engine in the current read cycle. */
    private int cycleSegments;
    /**
     * The most segments one read cycle takes before what they caused is carried out and flushed — completion
     * events, the posts their consumers make, Read Responses — as a NIC moderates completions by a frame count as
     * well as by time ({@code ethtool -C rx-frames}). A read can bring a whole window of requests (128 Read
     * Requests are 3.6 KiB); answered only at the read's end, the peer idles while this side works through all of
     * them, and then this side idles in turn. Ending the cycle every 32 segments lets the peer start on the first
     * answers at once: both ends of a connection work at the same time, which doubled the 64 B Read and atomic rates
     * and reactive request/response on two cores (docs/benchmarks.md, "Read cycles of 32 segments"). 16 costs a
     * flush too many for what it gains; 64 leaves a 128-deep window two turns.
     */
    static final int SEGMENTS_PER_CYCLE = 32;

    private QueuePairHandler(DefaultQueuePair qp) {
        this.qp = qp;
    }

    /** The handler for a queue pair that is IDLE and not bound to another channel. */
    public static QueuePairHandler of(QueuePair queuePair) {
        if (!(queuePair instanceof DefaultQueuePair d)) {
            throw new IllegalArgumentException("use a queue pair created by ProtectionDomain.createQueuePair");
        }
        if (d.state() != QueuePairState.IDLE || d.ctx != null) {
            throw new IllegalStateException(queuePair + " is already bound to a connection");
        }
        return new QueuePairHandler(d);
    }

    public QueuePair queuePair() {
        return qp;
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) throws Exception {
        if (evt instanceof MpaEstablishedEvent established) {
            qp.attach(ctx, established.negotiation(), established.refusal(), established.reason());
            decoder = decoderJustBefore(ctx);
            if (decoder != null) {
                decoder.deliverTo(this::onUlpdu);
            }
        }
        super.userEventTriggered(ctx, evt);
    }

    /**
     * The FPDU decoder when it is the inbound handler right before this one, so that it may hand ULPDUs over
     * directly ({@link FpduDecoder#deliverTo}) without skipping a handler; else null.
     */
    private static FpduDecoder decoderJustBefore(ChannelHandlerContext ctx) {
        List<String> names = ctx.pipeline().names();
        for (int i = names.indexOf(ctx.name()) - 1; i >= 0; i--) {
            ChannelHandler h = ctx.pipeline().get(names.get(i));
            if (h instanceof FpduDecoder d) {
                return d;
            }
            if (h instanceof ChannelInboundHandler && !(h instanceof FpduEncoder)) {
                return null;
            }
        }
        return null;
    }

    @Override
    public void handlerRemoved(ChannelHandlerContext ctx) {
        if (decoder != null) {
            decoder.deliverTo(null);
            decoder = null;
        }
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (!(msg instanceof ByteBuf ulpdu) || qp.ctx == null) {
            ReferenceCountUtil.release(msg);
            return;
        }
        try {
            onUlpdu(ulpdu);
        } finally {
            ulpdu.release();
        }
    }

    /** One ULPDU, lent for the call: from {@link #channelRead}, or straight from the decoder. */
    private void onUlpdu(ByteBuf ulpdu) {
        if (qp.ctx == null) {
            return;
        }
        // The segments of one read cycle are one engine bracket: what they cause is carried out, flushed and
        // reported (completion events) once, at channelReadComplete or after SEGMENTS_PER_CYCLE segments.
        if (!readCycle) {
            readCycle = true;
            cycleSegments = 0;
            qp.sender.deferFlush(true);
            qp.beginReadCycle();
            qp.enter();
        }
        qp.receiver.onLentSegment(ulpdu);
        if (++cycleSegments == SEGMENTS_PER_CYCLE) {
            // As if the read had ended here: the next segment of this read opens a new cycle.
            endReadCycle();
            flush();
        }
    }

    /** Ends the read cycle's bracket: owed completion events, then the engine's drain and the flush. */
    private void endReadCycle() {
        if (!readCycle) {
            return;
        }
        readCycle = false;
        qp.sender.deferFlush(false);
        qp.endReadCycle();
        qp.exit();
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) throws Exception {
        endReadCycle();
        flush();
        super.channelReadComplete(ctx);
    }

    /** Flushes what the read cycle's end emitted, unless the connection went meanwhile. */
    private void flush() {
        if (qp.ctx != null) {
            qp.sender.flush();
        }
    }

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) throws Exception {
        if (ctx.channel().isWritable() && qp.ctx != null) {
            qp.drainNow();
        }
        super.channelWritabilityChanged(ctx);
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        if (cause instanceof FpduException e && e.code() != LlpErrorCode.TCP_CONNECTION_CLOSED && qp.ctx != null) {
            // RFC 5044 §8 codes 2 and 3: MPA stops delivering; DDP's consumer terminates (Layer 2, EType 0).
            qp.terminate(TerminateCause.withoutHeaders(TerminateCode.of(e.code()), e.getMessage()));
            return;
        }
        if (cause instanceof IOException) {
            qp.llpFailed(cause); // a reset or a timeout, seen on a read or a write: RFC 5044 §8 code 1
        } else if (!(cause instanceof FpduException)) {
            ctx.fireExceptionCaught(cause);
        }
        ctx.close();
    }

    /** A close from above this handler (the application, the layers over the queue pair) is this side's. */
    @Override
    public void close(ChannelHandlerContext ctx, ChannelPromise promise) throws Exception {
        qp.closedUnderneath();
        ctx.close(promise);
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) throws Exception {
        endReadCycle();
        qp.connectionClosed();
        super.channelInactive(ctx);
    }
}
