package io.softrdma.verbs;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOutboundBuffer;
import io.netty.channel.ChannelOutboundHandler;
import io.netty.channel.ChannelPromise;
import io.netty.channel.socket.DuplexChannel;
import io.softrdma.internal.ddp.DdpControl;
import io.softrdma.internal.ddp.TaggedHeaderCodec;
import io.softrdma.internal.ddp.UntaggedHeaderCodec;
import io.softrdma.internal.mpa.FpduEncoder;
import io.softrdma.internal.mpa.GatheredUlpdu;
import io.softrdma.internal.rdmap.AtomicRequestCodec;
import io.softrdma.internal.rdmap.AtomicResponseCodec;
import io.softrdma.internal.rdmap.ImmediateDataCodec;
import io.softrdma.internal.rdmap.ReadRequestCodec;
import io.softrdma.internal.rdmap.TerminateCause;
import io.softrdma.internal.rdmap.TerminateCodec;
import io.softrdma.internal.transport.BarrierPromise;
import io.softrdma.internal.transport.MemoryWindows;
import io.softrdma.internal.transport.PipelineNames;
import io.softrdma.internal.transport.WriteBarrier;
import io.softrdma.rdmap.AtomicOperation;
import io.softrdma.rdmap.RdmapError;
import io.softrdma.rdmap.RdmapOpcode;
import io.softrdma.rdmap.TerminateCode;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The transmit side of a queue pair: turns send work requests and accepted Read Requests into DDP
 * segments (RFC 5040 Appendix A, RFC 5041 §5) and writes them as ULPDUs.
 *
 * <ul>
 *   <li>Messages go out one at a time, in posting order (RFC 5040 §5.5 rule 13); Read Responses
 *       (in the order their Requests arrived, rule 20) alternate with send-queue messages. Segments of
 *       two messages never interleave, which Linux siw would treat as an error.
 *   <li>Each segment's payload is a slice of registered memory (no copy) no longer than the MULPDU
 *       allows, and never spans two scatter/gather entries, so no composite buffer is needed.
 *   <li>Writing stops while the channel is not writable and resumes when it is again.
 *   <li>A flush that hands everything to TCP completes the Sends and Writes in it at once (§5.5 rule
 *       14); one that leaves bytes queued completes them through a {@link WriteBarrier}'s promise. A
 *       Read waits for its Read Response; it may be sent only while fewer than ORD Reads are
 *       outstanding (§6.1), and the send queue waits behind it.
 * </ul>
 *
 * <p>Note: event loop only.
 *
 * <p>Why this class is long: it is the transmit half of the queue pair's state machine — segmentation (RFC 5041), the
 * RDMAP operations and their ordering (RFC 5040 §5), RFC 7306 requests — the counterpart of Linux siw_qp_tx.c; its
 * rules share the send queue's state and are read together.
 */
final class QueuePairSender {
    /** How long a Terminate may take to be written before the connection is closed anyway. */
    private static final long TERMINATE_LINGER_MILLIS = 2000;

    /** The STag of zero-length RTR messages and probes: any works (siw uses 1, and so does SoftRDMA). */
    static final int RTR_STAG = 1;

    private enum Current {
        NONE, SEND_QUEUE, READ_RESPONSE, ZERO_LENGTH
    }

    private final DefaultQueuePair qp;
    private ChannelHandlerContext ctx;
    private FpduEncoder encoder;
    /** The encoder's context when the encoder is the next outbound handler: segments are handed to it directly. */
    private ChannelHandlerContext encoderCtx;
    private ChannelPromise voidPromise;
    private int taggedPayload;
    private int untaggedPayload;
    private Current current = Current.NONE;
    private boolean preferReadResponses;
    private boolean stopped;
    /** Inside a read cycle: write, but flush once at its end (channelReadComplete), not per message. */
    private boolean deferFlush;
    private int sendMsn;
    private int readRequestMsn;
    /** RFC 7306: the Atomic Response queue's MSN (QN 3), and the last Atomic Request Identifier used. */
    private int atomicResponseMsn;
    private int atomicRequestId;
    /** Whether segments were written since the last flush. */
    private boolean unflushed;
    /** Where a segment's DDP header is written before it is framed ({@link #emitCopied}, {@link #emitGathered}). */
    private final byte[] header = new byte[UntaggedHeaderCodec.LENGTH];
    /** The highest send-queue position whose Send or Write is fully emitted. */
    private long emittedUpTo = -1;
    private long promisedUpTo = -1;
    /** The promise of the one {@link WriteBarrier} on its way at a time, armed again for each. */
    private BarrierPromise barrier;
    /** Whether a barrier is on its way, and the Sends and Writes emitted up to which it completes. */
    private boolean barrierOutstanding;
    private long barrierUpTo;
    /** Zero-length messages due ahead of everything else, at the next message boundary. */
    private boolean zeroLengthWriteDue;
    private boolean readRtrDue;
    private boolean sentAny;
    /**
     * With CRC32c, Read Response payloads are copied: the encoder computes the CRC when a segment is written, TCP
     * takes the octets at the flush, and the responder's memory may change in between (a Write from another
     * connection, an atomic on this one, the application), which would put a CRC on the wire that fails at the
     * peer. Sends and Writes stay zero-copy: their memory is the poster's, untouchable until they complete; so do
     * Read Responses from a region registered as unchanging ({@link ProtectionDomain#registerUnchanging}).
     * Payloads up to {@link FpduEncoder#COPY_LIMIT} need no copy here: the encoder copies them as it frames
     * them, so the CRC covers the octets sent.
     */
    private boolean copyReadResponses;

    QueuePairSender(DefaultQueuePair qp) {
        this.qp = qp;
    }

    void attach(ChannelHandlerContext ctx, int mulpdu, boolean crc) {
        this.copyReadResponses = crc;
        this.ctx = ctx;
        this.encoder = (FpduEncoder) ctx.pipeline().get(PipelineNames.FPDU_ENCODER);
        this.encoderCtx = encoder != null && encoderIsNextOutbound(ctx) ? ctx.pipeline().context(encoder) : null;
        this.voidPromise = ctx.channel().unsafe().voidPromise();
        this.barrier = new BarrierPromise(ctx.channel(), this::batchWritten);
        this.taggedPayload = mulpdu - TaggedHeaderCodec.LENGTH;
        this.untaggedPayload = mulpdu - UntaggedHeaderCodec.LENGTH;
    }

    /**
     * Whether nothing but inbound handlers (the FPDU decoder) lies between this queue pair and its encoder,
     * so that a segment handed straight to the encoder skips no handler. A pipeline changed between the two
     * after the connection is established (SoftRDMA never does) would be bypassed.
     */
    private static boolean encoderIsNextOutbound(ChannelHandlerContext ctx) {
        List<String> names = ctx.pipeline().names();
        for (int i = names.indexOf(ctx.name()) - 1; i >= 0; i--) {
            ChannelHandler h = ctx.pipeline().get(names.get(i));
            if (h instanceof FpduEncoder) {
                return true;
            }
            if (h instanceof ChannelOutboundHandler) {
                return false;
            }
        }
        return false;
    }

    /**
     * Writes a segment (not flushed). Straight into the encoder when it is the next outbound handler: the
     * pipeline's own hop costs about a fifth of a 64-octet Write's sending CPU (JFR, docs/benchmarks.md).
     */
    private void write(GatheredUlpdu u) {
        ChannelHandlerContext ec = directEncoder();
        if (ec != null) {
            encoder.write(ec, u, voidPromise);
        } else {
            ctx.write(u, voidPromise);
        }
    }

    boolean idle() {
        return current == Current.NONE && !unflushed && !barrierOutstanding;
    }

    void stop() {
        stopped = true;
    }

    /** Sends as much as the channel takes. */
    void pump() {
        if (stopped || ctx == null) {
            return;
        }
        while (ctx.channel().isWritable()) {
            if (current == Current.NONE) {
                current = choose();
                if (current == Current.NONE) {
                    break;
                }
            }
            boolean finished = switch (current) {
                case SEND_QUEUE -> sendQueueSegment();
                case READ_RESPONSE -> readResponseSegment();
                default -> zeroLengthMessage();
            };
            if (finished) {
                current = Current.NONE;
            }
            if (stopped) {
                return;
            }
        }
        flush();
    }

    private Current choose() {
        if ((zeroLengthWriteDue || readRtrDue) && !stopped) {
            return Current.ZERO_LENGTH;
        }
        boolean responses = qp.irqHead < qp.irqTail;
        boolean sends = sendQueueReady();
        if (stopped) {
            return Current.NONE;
        }
        if (responses && (preferReadResponses || !sends)) {
            preferReadResponses = false;
            return Current.READ_RESPONSE;
        }
        if (sends) {
            preferReadResponses = true;
            return Current.SEND_QUEUE;
        }
        return Current.NONE;
    }

    /** Whether the next send-queue request can go out now; local invalidates are carried out on the way. */
    private boolean sendQueueReady() {
        while (qp.sqNext < qp.sqTail) {
            SendQueueEntry e = qp.sendEntry(qp.sqNext);
            switch (e.wr.opcode()) {
                case LOCAL_INVALIDATE -> {
                    DefaultMemoryRegion region = qp.device.lookup(e.wr.invalidateStag());
                    boolean ok = region != null && region.pd() == qp.pd && region.stag() == e.wr.invalidateStag();
                    if (ok) {
                        region.invalidate();
                    }
                    e.finish(ok ? WorkCompletionStatus.SUCCESS : WorkCompletionStatus.LOCAL_PROTECTION_ERROR);
                    qp.sqNext++;
                }
                case RDMA_READ, ATOMIC_FETCH_ADD, ATOMIC_COMPARE_AND_SWAP -> {
                    // RFC 7306: an Atomic Request goes on the Read Request queue and counts against ORD.
                    return qp.readsOutstanding() < qp.ord() && localMemoryValid(e);
                }
                default -> {
                    return localMemoryValid(e);
                }
            }
        }
        return false;
    }

    /**
     * Local memory must still be registered and valid when a request goes out; if not, the request
     * fails and, as RFC 5040 §7.1 rule 1 asks, a Terminate is sent instead of it.
     */
    private boolean localMemoryValid(SendQueueEntry e) {
        List<ScatterGatherEntry> sgl = e.wr.sgl();
        for (int i = 0; i < sgl.size(); i++) {
            ScatterGatherEntry s = sgl.get(i);
            if (!s.region().isValid()) {
                e.finish(WorkCompletionStatus.LOCAL_PROTECTION_ERROR);
                qp.sqNext++;
                qp.terminate(TerminateCause.withoutHeaders(TerminateCode.of(RdmapError.LOCAL_CATASTROPHIC),
                        "work request " + e.wr.wrId() + " uses " + s.region() + ", no longer valid"));
                return false;
            }
        }
        return true;
    }

    /** Emits the next segment of the current send-queue message; true when the message is complete. */
    private boolean sendQueueSegment() {
        long seq = qp.sqNext;
        SendQueueEntry e = qp.sendEntry(seq);
        SendWorkRequest wr = e.wr;
        switch (wr.opcode()) {
            case RDMA_READ -> {
                emitReadRequest(seq, e);
                return true;
            }
            case ATOMIC_FETCH_ADD, ATOMIC_COMPARE_AND_SWAP -> {
                emitAtomicRequest(seq, e);
                return true;
            }
            case IMMEDIATE_DATA -> {
                emitImmediateData(seq, e);
                return true;
            }
            default -> {
                if (e.immediatePending) {
                    // RFC 7306 §6: the Write is out; its Immediate Data follows at once, nothing in between.
                    emitImmediateData(seq, e);
                    return true;
                }
            }
        }
        boolean withImmediate = wr.opcode() == SendWorkRequest.Opcode.RDMA_WRITE_WITH_IMMEDIATE;
        boolean tagged = wr.opcode() == SendWorkRequest.Opcode.RDMA_WRITE || withImmediate;
        if (e.messageOffset == 0 && e.sge == 0 && e.sgeOffset == 0) {
            e.byteLength = wr.length();
            if (!tagged) {
                e.msn = ++sendMsn;
            }
        }
        while (e.sge < wr.sgl().size() && e.sgeOffset == wr.sgl().get(e.sge).length()) {
            e.sge++;
            e.sgeOffset = 0;
        }
        ByteBuf memory = null;
        int index = 0;
        int n;
        if (e.sge < wr.sgl().size()) {
            ScatterGatherEntry s = wr.sgl().get(e.sge);
            n = (int) Math.min(tagged ? taggedPayload : untaggedPayload, s.length() - e.sgeOffset);
            memory = ((DefaultMemoryRegion) s.region()).memory();
            index = (int) (s.offset() + e.sgeOffset);
        } else {
            n = 0;
        }
        boolean last = e.messageOffset + n == e.byteLength;
        // A short payload is copied in after the header (the encoder would copy it anyway); a longer one is a slice.
        boolean copied = n <= FpduEncoder.COPY_LIMIT;
        RdmapOpcode opcode = tagged ? RdmapOpcode.RDMA_WRITE : sendOpcode(wr);
        int invalidate = wr.invalidate() ? wr.invalidateStag() : 0;
        int h = tagged ? TaggedHeaderCodec.write(header, 0, opcode.code(), last, wr.remoteStag(),
                wr.remoteTaggedOffset() + e.messageOffset)
                : UntaggedHeaderCodec.write(header, 0, opcode.code(), last, invalidate, UntaggedHeaderCodec.QN_SEND,
                        e.msn, (int) e.messageOffset);
        if (copied) {
            emitCopied(opcode, last, h, memory, index, n);
        } else {
            emitGathered(h, memory.retainedSlice(index, n));
        }
        return segmentEmitted(seq, e, n, last, withImmediate);
    }

    /** Advances the message past a segment of {@code n} octets just emitted; true when the message is complete. */
    private boolean segmentEmitted(long seq, SendQueueEntry e, int n, boolean last, boolean withImmediate) {
        e.sgeOffset += n;
        e.messageOffset += n;
        if (last && withImmediate) {
            e.immediatePending = true;
            return false;
        }
        if (last) {
            emittedUpTo = seq;
            qp.sqNext++;
        }
        return last;
    }

    /** RFC 7306 §6.3: one untagged segment on the Send queue (QN 0, the next Send MSN) with 8 octets of data. */
    private void emitImmediateData(long seq, SendQueueEntry e) {
        SendWorkRequest wr = e.wr;
        e.msn = ++sendMsn;
        e.immediatePending = false;
        GatheredUlpdu u = GatheredUlpdu.newInstance(Unpooled.EMPTY_BUFFER);
        RdmapOpcode opcode = wr.solicited() ? RdmapOpcode.IMMEDIATE_DATA_WITH_SE : RdmapOpcode.IMMEDIATE_DATA;
        UntaggedHeaderCodec.write(u.header(), opcode.code(), true, 0, UntaggedHeaderCodec.QN_SEND, e.msn, 0);
        ImmediateDataCodec.write(u.header(), wr.immediateData());
        emit(u);
        emittedUpTo = seq;
        qp.sqNext++;
    }

    /**
     * RFC 7306 §5.2.1: one untagged segment on the Read Request queue (QN 1, the next MSN there); the operation waits
     * in the ORQ for its Atomic Response, like a Read for its Read Response.
     */
    private void emitAtomicRequest(long seq, SendQueueEntry e) {
        SendWorkRequest wr = e.wr;
        SendWorkRequest.AtomicOperands a = wr.atomic();
        e.msn = ++readRequestMsn;
        e.atomicRequestId = ++atomicRequestId;
        AtomicOperation op = wr.opcode() == SendWorkRequest.Opcode.ATOMIC_FETCH_ADD ? AtomicOperation.FETCH_ADD
                : AtomicOperation.COMPARE_AND_SWAP;
        GatheredUlpdu u = GatheredUlpdu.newInstance(Unpooled.EMPTY_BUFFER);
        UntaggedHeaderCodec.write(u.header(), RdmapOpcode.ATOMIC_REQUEST.code(), true, 0,
                UntaggedHeaderCodec.QN_READ_REQUEST, e.msn, 0);
        // §5.2.1: a Fetch-and-Add's Compare Data is "set to zero on transmit", its Compare Mask to all ones.
        boolean add = op == AtomicOperation.FETCH_ADD;
        AtomicRequestCodec.write(u.header(), op, e.atomicRequestId, wr.remoteStag(), wr.remoteTaggedOffset(),
                a.addOrSwapData(), a.addOrSwapMask(), add ? 0 : a.compareData(), add ? -1L : a.compareMask());
        emit(u);
        qp.orq[(int) (qp.orqTail % qp.orq.length)] = seq;
        qp.orqTail++;
        qp.sqNext++;
    }

    private static RdmapOpcode sendOpcode(SendWorkRequest wr) {
        if (wr.invalidate()) {
            return wr.solicited() ? RdmapOpcode.SEND_WITH_SE_AND_INVALIDATE : RdmapOpcode.SEND_WITH_INVALIDATE;
        }
        return wr.solicited() ? RdmapOpcode.SEND_WITH_SE : RdmapOpcode.SEND;
    }

    /** RFC 5040 §5.2.1: one untagged segment on QN 1 naming both buffers; the Read waits in the ORQ. */
    private void emitReadRequest(long seq, SendQueueEntry e) {
        SendWorkRequest wr = e.wr;
        ScatterGatherEntry sink = wr.sgl().get(0);
        e.msn = ++readRequestMsn;
        e.sinkStag = sink.region().stag();
        e.sinkTaggedOffset = sink.taggedOffset();
        e.readLength = sink.length();
        GatheredUlpdu u = GatheredUlpdu.newInstance(Unpooled.EMPTY_BUFFER);
        UntaggedHeaderCodec.write(u.header(), RdmapOpcode.RDMA_READ_REQUEST.code(), true, 0,
                UntaggedHeaderCodec.QN_READ_REQUEST, e.msn, 0);
        ReadRequestCodec.write(u.header(), e.sinkStag, e.sinkTaggedOffset, sink.length(), wr.remoteStag(),
                wr.remoteTaggedOffset());
        emit(u);
        qp.orq[(int) (qp.orqTail % qp.orq.length)] = seq;
        qp.orqTail++;
        qp.sqNext++;
    }

    /** A zero-length RDMA Write goes out at the next message boundary (RFC 6581 RTR, or a probe). */
    void queueZeroLengthWrite() {
        zeroLengthWriteDue = true;
    }

    /** A zero-length RDMA Read Request goes out first: RFC 6581's Read RTR; its Response comes back. */
    void queueReadRtr() {
        readRtrDue = true;
    }

    /** Emits a due zero-length message: one segment, L = 1 (RFC 5041 §5: a zero-length message). */
    private boolean zeroLengthMessage() {
        GatheredUlpdu u = GatheredUlpdu.newInstance(Unpooled.EMPTY_BUFFER);
        if (readRtrDue) {
            readRtrDue = false;
            // RFC 5040 §4.4 zero length: the peer answers without checking the STags (§7.2 rule 4).
            UntaggedHeaderCodec.write(u.header(), RdmapOpcode.RDMA_READ_REQUEST.code(), true, 0,
                    UntaggedHeaderCodec.QN_READ_REQUEST, ++readRequestMsn, 0);
            ReadRequestCodec.write(u.header(), RTR_STAG, 0, 0, RTR_STAG, 0);
            qp.rtrReadOutstanding = true;
        } else {
            zeroLengthWriteDue = false;
            TaggedHeaderCodec.write(u.header(), RdmapOpcode.RDMA_WRITE.code(), true, RTR_STAG, 0);
        }
        emit(u);
        return true;
    }

    /**
     * Emits the next segment of the oldest Read Response (RFC 5040 §5.2.2), or the oldest Atomic Response (RFC
     * 7306 §5.2.2: one segment on QN 3); true when it is complete.
     */
    private boolean readResponseSegment() {
        InboundRead r = qp.irq[(int) (qp.irqHead % qp.irq.length)];
        if (r.atomic) {
            return atomicResponse(r);
        }
        int n = (int) Math.min(taggedPayload, r.length - r.sent);
        long to = r.sourceTaggedOffset + r.sent;
        if (n > 0 && r.source.check(r.sourceStag, to, n, false, qp.pd) != DefaultMemoryRegion.Check.OK) {
            // Invalidated after the Request was accepted.
            qp.terminate(TerminateCause.withoutHeaders(TerminateCode.of(RdmapError.PROTECTION_INVALID_STAG),
                    String.format("the source STag 0x%08x of an accepted RDMA Read became invalid", r.sourceStag)));
            return true;
        }
        // A short payload is copied in after the header, so its CRC covers the octets sent (see copyReadResponses).
        boolean copied = n <= FpduEncoder.COPY_LIMIT;
        boolean last = r.sent + n == r.length;
        int h = TaggedHeaderCodec.write(header, 0, RdmapOpcode.RDMA_READ_RESPONSE.code(), last, r.sinkStag,
                r.sinkTaggedOffset + r.sent);
        if (copied) {
            // A zero-length Read's source is not looked up (RFC 5040 §7.2 rule 4): no memory then.
            emitCopied(RdmapOpcode.RDMA_READ_RESPONSE, last, h, n > 0 ? r.source.memory() : null,
                    n > 0 ? r.source.indexOf(to) : 0, n);
            return readResponseEmitted(r, n, last);
        }
        ByteBuf payload;
        if (copyReadResponses && !r.source.unchanging()) {
            payload = ctx.alloc().directBuffer(n, n);
            r.source.appendTo(r.source.indexOf(to), payload, n);
            // The copy is this event loop's own: a window over its pool chunk lets the encoder's CRC read it without
            // a new view per segment (a new buffer's first view is one).
            MemoryWindows.current().cover(payload);
        } else {
            payload = r.source.retainedSlice(r.source.indexOf(to), n);
        }
        emitGathered(h, payload);
        return readResponseEmitted(r, n, last);
    }

    private boolean readResponseEmitted(InboundRead r, int n, boolean last) {
        r.sent += n;
        if (last) {
            r.source = null;
            qp.irqHead++;
        }
        return last;
    }

    /**
     * Carries out the oldest inbound atomic and emits its Atomic Response (RFC 7306 §5.2.2: one segment on QN 3).
     * Only now, so that it runs after every earlier Read Response has read its memory and before any later one
     * does (§7: "Atomic Response Message will not be generated until RDMA Read Response has been generated", and
     * the reverse), and after the earlier atomic's Response (§7, Atomic then Atomic). A Write that arrived after the
     * request may already be placed, which §7 allows ("RDMA Write Payload MAY be Placed before Atomic Response is
     * generated"; §5.4 rule 4).
     */
    private boolean atomicResponse(InboundRead r) {
        DefaultMemoryRegion region = r.source;
        r.source = null;
        r.atomic = false;
        long original;
        try {
            original = region.atomic(r.sourceStag, r.sourceTaggedOffset, r.atomicOperation, r.addOrSwapData,
                    r.addOrSwapMask, r.compareData, r.compareMask);
        } catch (IllegalStateException closedMeanwhile) {
            // As for a Read whose source became invalid after it was accepted; the DDP header names the request.
            qp.terminate(new TerminateCause(TerminateCode.of(RdmapError.PROTECTION_INVALID_STAG),
                    UntaggedHeaderCodec.LENGTH + AtomicRequestCodec.LENGTH, atomicRequestDdpHeader(r.atomicRequestMsn),
                    new byte[0], String.format("%s on STag 0x%08x: the region was closed or invalidated before the"
                            + " operation's turn came", r.atomicOperation, r.sourceStag)));
            return true;
        }
        GatheredUlpdu u = GatheredUlpdu.newInstance(Unpooled.EMPTY_BUFFER);
        UntaggedHeaderCodec.write(u.header(), RdmapOpcode.ATOMIC_RESPONSE.code(), true, 0,
                UntaggedHeaderCodec.QN_ATOMIC_RESPONSE, ++atomicResponseMsn, 0);
        AtomicResponseCodec.write(u.header(), r.atomicRequestId, original);
        emit(u);
        qp.irqHead++;
        return true;
    }

    /** The DDP header of the Atomic Request with {@code msn}, as it arrived (a SoftRDMA sender's always is). */
    private static byte[] atomicRequestDdpHeader(int msn) {
        ByteBuf h = Unpooled.buffer(UntaggedHeaderCodec.LENGTH);
        UntaggedHeaderCodec.write(h, RdmapOpcode.ATOMIC_REQUEST.code(), true, 0, UntaggedHeaderCodec.QN_READ_REQUEST,
                msn, 0);
        byte[] bytes = new byte[UntaggedHeaderCodec.LENGTH];
        h.getBytes(h.readerIndex(), bytes);
        h.release();
        return bytes;
    }

    private void emit(GatheredUlpdu u) {
        ByteBuf h = u.header();
        int control = h.getUnsignedByte(h.readerIndex());
        qp.counters.segment(false, DdpControl.opcode(h.getUnsignedByte(h.readerIndex() + 1)), DdpControl.last(control),
                u.payloadLength());
        firstSegment();
        write(u);
        unflushed = true;
    }

    /**
     * Emits a segment whose payload (at most {@link FpduEncoder#COPY_LIMIT} octets) is copied, after the header
     * written into {@link #header}: through the encoder's array path ({@link FpduEncoder#writeInline}: no holder, no
     * header buffer, one copy fewer) when the encoder is the next outbound handler, else copied into a holder.
     */
    private void emitCopied(RdmapOpcode opcode, boolean last, int headerLength, ByteBuf memory, int index, int n) {
        ChannelHandlerContext ec = directEncoder();
        if (ec == null) {
            GatheredUlpdu u = GatheredUlpdu.newInstance(Unpooled.EMPTY_BUFFER);
            u.header().writeBytes(header, 0, headerLength);
            if (n > 0) {
                u.appendPayload(memory, index, n);
            }
            emit(u);
            return;
        }
        qp.counters.segment(false, opcode.code(), last, n);
        firstSegment();
        encoder.writeInline(ec, header, headerLength, memory, index, n);
        unflushed = true;
    }

    /** Emits a segment of the header written into {@link #header} and {@code payload}, whose reference it takes. */
    private void emitGathered(int headerLength, ByteBuf payload) {
        GatheredUlpdu u = GatheredUlpdu.newInstance(payload);
        u.header().writeBytes(header, 0, headerLength);
        emit(u);
    }

    /** The encoder's context when segments may be handed to it directly, else null. */
    private ChannelHandlerContext directEncoder() {
        ChannelHandlerContext ec = encoderCtx;
        return ec != null && !ec.isRemoved() ? ec : null;
    }

    private void firstSegment() {
        if (!sentAny) {
            sentAny = true;
            qp.firstFpduSent();
        }
    }

    void deferFlush(boolean defer) {
        this.deferFlush = defer;
    }

    /**
     * Writes the last segment and flushes. If that completes Sends or Writes (§5.5 rule 14: once TCP
     * took them), they complete at once when the flush handed everything to TCP — the usual case, at
     * no cost — and otherwise when a {@link WriteBarrier} written after them is (its promise is the sender's one
     * {@link BarrierPromise}, armed again for each barrier).
     */
    void flush() {
        if (!unflushed || deferFlush) {
            return;
        }
        unflushed = false;
        ctx.flush();
        if (!barrierOutstanding) {
            promiseEmitted();
        }
        // Else a barrier is on its way: when it is written, what was emitted since is seen to (batchWritten), so at
        // most one barrier is outstanding however many flushes leave bytes queued.
    }

    /**
     * Completes the Sends and Writes emitted and not yet promised: at once if everything is in TCP's hands, else
     * when a {@link WriteBarrier} written after them is. Call with no barrier outstanding and nothing pending.
     */
    private void promiseEmitted() {
        if (emittedUpTo <= promisedUpTo) {
            return;
        }
        long upTo = emittedUpTo;
        promisedUpTo = upTo;
        if (allHandedToTcp()) {
            qp.enter();
            try {
                qp.sendsWritten(upTo);
            } finally {
                qp.exit();
            }
        } else {
            barrierOutstanding = true;
            barrierUpTo = upTo;
            ctx.writeAndFlush(WriteBarrier.INSTANCE, barrier.arm());
        }
    }

    /** Whether every octet written so far has left the channel for TCP (none held, none queued). */
    private boolean allHandedToTcp() {
        ChannelOutboundBuffer out = ctx.channel().unsafe().outboundBuffer();
        return out != null && out.totalPendingWriteBytes() == 0 && out.isEmpty()
                && (encoder == null || !encoder.isHolding());
    }

    private void batchWritten(boolean success) {
        long upTo = barrierUpTo;
        barrierOutstanding = false;
        if (!success) {
            qp.llpFailed(barrier.cause()); // e.g. a reset met by writev; the channel closes next
        }
        if (success && !stopped) {
            qp.enter();
            try {
                qp.sendsWritten(upTo);
                if (!unflushed) {
                    // What was flushed while this barrier was outstanding (a segment not flushed yet waits for its
                    // own flush, which promises it).
                    promiseEmitted();
                }
            } finally {
                // This runs inside Netty's flush: what the completions post is sent by a task just after it.
                qp.exitLater();
            }
        }
    }

    /**
     * Sends a Terminate now (RFC 5040 §5.4: nothing more on this stream after it; §6.2.1: then tear the
     * stream down), closing once it is written — or after a grace period if it cannot be (a responder
     * may not send before it received a valid FPDU, RFC 5044 §7.1.2 rule 4).
     */
    void sendTerminateAndClose(TerminateCause cause) {
        stopped = true;
        current = Current.NONE;
        if (ctx == null) {
            return;
        }
        unflushed = false;
        GatheredUlpdu u = GatheredUlpdu.newInstance(Unpooled.EMPTY_BUFFER);
        // siw expects MSN 1 on the Terminate queue: it is the only message there.
        UntaggedHeaderCodec.write(u.header(), RdmapOpcode.TERMINATE.code(), true, 0, UntaggedHeaderCodec.QN_TERMINATE,
                1, 0);
        TerminateCodec.write(u.header(), cause);
        ChannelHandlerContext c = ctx;
        c.writeAndFlush(u).addListener(ChannelFutureListener.CLOSE_ON_FAILURE).addListener(f -> {
            if (f.isSuccess()) {
                halfClose(c);
            }
        });
        c.executor().schedule(() -> {
            c.close();
        }, TERMINATE_LINGER_MILLIS, TimeUnit.MILLISECONDS);
    }

    /**
     * After the Terminate: a FIN behind it, not a close. Closing a socket whose peer's octets are still unread (its
     * Read Requests and Sends in flight keep coming) makes the kernel reset the connection and drop what it has not
     * sent yet — the Terminate with it, when it waited behind Read Responses the peer had not taken (RFC 5040 §6.2
     * wants the Terminate delivered, then the stream closed). So the output is shut, reading goes on (a terminated
     * queue pair drops what arrives), and the channel closes when the peer closes or the linger ends.
     */
    private static void halfClose(ChannelHandlerContext c) {
        if (c.channel() instanceof DuplexChannel duplex && duplex.isActive() && !duplex.isOutputShutdown()) {
            duplex.shutdownOutput().addListener(ChannelFutureListener.CLOSE_ON_FAILURE);
            c.channel().config().setAutoRead(true);
        } else {
            c.close();
        }
    }
}
