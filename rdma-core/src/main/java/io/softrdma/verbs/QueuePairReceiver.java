package io.softrdma.verbs;

import io.netty.buffer.ByteBuf;
import io.softrdma.ddp.DdpError;
import io.softrdma.internal.ddp.DdpControl;
import io.softrdma.internal.ddp.TaggedHeaderCodec;
import io.softrdma.internal.ddp.UntaggedHeaderCodec;
import io.softrdma.internal.rdmap.AtomicRequestCodec;
import io.softrdma.internal.rdmap.AtomicResponseCodec;
import io.softrdma.internal.rdmap.ImmediateDataCodec;
import io.softrdma.internal.rdmap.ReadRequestCodec;
import io.softrdma.internal.rdmap.TerminateCause;
import io.softrdma.internal.rdmap.TerminateCodec;
import io.softrdma.mpa.LlpErrorCode;
import io.softrdma.rdmap.AtomicOperation;
import io.softrdma.rdmap.RdmapError;
import io.softrdma.rdmap.RdmapOpcode;
import io.softrdma.rdmap.TerminateCode;
import java.util.List;

/**
 * The receive side of a queue pair: validates each incoming DDP segment (RFC 5041 §5–§7, RFC 5040
 * §7.2), places its payload — the one copy on receive, from the read buffer into registered memory —
 * and carries out its RDMAP semantics (RFC 5040 §5).
 *
 * <p>Tagged and untagged messages have separate contexts, so a Write may interleave with a Send; two
 * tagged (or two untagged) messages may not. Every segment is checked (STag, bounds, QN, MSN, MO).
 * The first error wins: it becomes a {@link TerminateCause} with the exact Layer/EType/Code and the
 * offending headers, the queue pair terminates, and nothing more is processed.
 *
 * <p>Where Linux siw reports an error differently from the RFC, the RFC's code is used and siw's is
 * noted (siw accepts any Terminate, and resets the stream on it).
 *
 * <p>Note: event loop only.
 *
 * <p>Why this class is long: it is the receive half of the queue pair's state machine — placement, every validation of
 * RFC 5040 §7 and RFC 5041 §7 with its Terminate, RFC 7306 responders — the counterpart of Linux siw_qp_rx.c; each
 * check needs the state the others keep.
 */
final class QueuePairReceiver {
    private final DefaultQueuePair qp;
    private boolean stopped;
    private boolean receivedAny;

    // Tagged context: a Write or Read Response whose last segment has not arrived.
    private boolean taggedInProgress;
    private RdmapOpcode taggedOpcode;
    private int taggedStag;
    private long taggedNextTo;

    // Untagged context.
    private boolean untaggedInProgress;
    private int untaggedQn;
    /** Expected MSN per queue (RFC 5041 §5.3: the first message of each queue has MSN 1). */
    private int sendMsn = 1;
    private int readRequestMsn = 1;
    /** RFC 7306: the Atomic Response queue (QN 3) has its own MSNs, from 1. */
    private int atomicResponseMsn = 1;
    /** Octets of the current Send placed so far: its next MO. */
    private long sendReceived;
    private boolean sendTooLong;

    QueuePairReceiver(DefaultQueuePair qp) {
        this.qp = qp;
    }

    void stop() {
        stopped = true;
    }

    /** Whether any ULPDU arrived on this stream. */
    boolean receivedAny() {
        return receivedAny;
    }

    /**
     * Processes one ULPDU lent for the call ({@link io.softrdma.internal.mpa.FpduDecoder.UlpduSink}): its readable
     * octets, read with absolute gets only; whatever is kept is copied (placement, a Terminate's headers).
     */
    void onLentSegment(ByteBuf ulpdu) {
        if (stopped) {
            return;
        }
        if (!receivedAny) {
            receivedAny = true;
            qp.firstUlpduReceived();
        }
        TerminateCause error = process(ulpdu);
        if (error != null) {
            qp.terminate(error);
        }
    }

    private TerminateCause process(ByteBuf u) {
        int base = u.readerIndex();
        int length = u.readableBytes();
        if (length < 2) {
            return shortUlpdu(length, "no DDP header at all");
        }
        int ddp = u.getUnsignedByte(base);
        int rdmap = u.getUnsignedByte(base + 1);
        boolean tagged = DdpControl.tagged(ddp);
        int headerLength = tagged ? TaggedHeaderCodec.LENGTH : UntaggedHeaderCodec.LENGTH;
        if (length < headerLength) {
            return shortUlpdu(length, "shorter than the " + (tagged ? "tagged" : "untagged") + " DDP header of "
                    + headerLength + " its first octet announces (RFC 5041 §4)");
        }
        if (DdpControl.ddpVersion(ddp) != DdpControl.DDP_VERSION) {
            return segmentError(tagged ? DdpError.TAGGED_INVALID_VERSION : DdpError.UNTAGGED_INVALID_VERSION, u, tagged,
                    "DDP version " + DdpControl.ddpVersion(ddp) + ", expected 1 (RFC 5041 §4.2)");
        }
        if (DdpControl.rdmapVersion(rdmap) != DdpControl.RDMAP_VERSION) {
            return segmentError(RdmapError.OPERATION_INVALID_VERSION, u, tagged, false,
                    "RDMAP version " + DdpControl.rdmapVersion(rdmap) + ", expected 1 (RFC 5040 §4.1)");
        }
        RdmapOpcode opcode = RdmapOpcode.fromCode(DdpControl.opcode(rdmap));
        if (opcode == null || opcode.tagged() != tagged) {
            return segmentError(RdmapError.OPERATION_UNEXPECTED_OPCODE, u, tagged, false, "opcode "
                    + DdpControl.opcode(rdmap) + (opcode == null ? " is reserved" : " with T=" + (tagged ? 1 : 0))
                    + " (RFC 5040 §4.2 Figure 4)");
        }
        if (opcode.isExtension() && !(opcode.isImmediateData() ? qp.extensions().immediateData()
                : qp.extensions().atomics())) {
            // As for any reserved opcode: this stream did not agree to RFC 7306 (siw would answer the same).
            return segmentError(RdmapError.OPERATION_UNEXPECTED_OPCODE, u, tagged, false, "opcode " + opcode.code()
                    + " (" + opcode + ", RFC 7306) on a stream whose ends did not agree to it at connection setup");
        }
        if (length < headerLength + opcode.headerLength()) {
            // As siw: the minimum ULPDU_Length is that of the opcode's fixed headers (Read Request, Terminate, and
            // RFC 7306 §5.2.1, §5.2.2, §6.2's 52, 12 and 8 octets); a longer one is DDP's "message too long" below.
            return shortUlpdu(length, "shorter than the " + headerLength + "-octet DDP header and the "
                    + opcode.headerLength() + "-octet header of " + opcode);
        }
        boolean last = DdpControl.last(ddp);
        qp.counters.segment(true, opcode.code(), last, Math.max(0, length - headerLength - opcode.headerLength()));
        return switch (opcode) {
            case RDMA_WRITE -> write(u, last);
            case RDMA_READ_RESPONSE -> readResponse(u, last);
            case RDMA_READ_REQUEST -> readRequest(u, last);
            case TERMINATE -> terminate(u);
            case IMMEDIATE_DATA, IMMEDIATE_DATA_WITH_SE -> immediateData(u, opcode, last);
            case ATOMIC_REQUEST -> atomicRequest(u, last);
            case ATOMIC_RESPONSE -> atomicResponse(u, last);
            default -> send(u, opcode, last);
        };
    }

    /**
     * A ULPDU too short for the DDP header it starts (or for any): the FPDU's ULPDU_Length, not its content, is
     * wrong. RFC 5041 has no code for it (its codes are about buffers, QN, MSN, MO and version) and RFC 5040's
     * would name a message that never was; RFC 5044 §8 code 3 is the framing error — the ULPDU_Length does not
     * agree with where the next FPDU starts — and it is what Linux siw sends for this since its fix of
     * CVE-2026-64102 (TERM_ERROR_LAYER_LLP, LLP_ETYPE_MPA, LLP_ECODE_FPDU_START). An LLP error carries no
     * headers (RFC 5040 §7.1 Figure 10).
     */
    private static TerminateCause shortUlpdu(int length, String what) {
        return TerminateCause.withoutHeaders(TerminateCode.of(LlpErrorCode.MARKER_AND_ULPDU_LENGTH_MISMATCH),
                "an FPDU whose ULPDU_Length is " + length + ": " + what + " (RFC 5044 §8 code 3)");
    }

    // ---- tagged (RFC 5041 §5.1, §7.2; RFC 5040 §5.1, §5.2.2) ----

    private TerminateCause write(ByteBuf u, boolean last) {
        int base = u.readerIndex();
        int stag = TaggedHeaderCodec.stag(u, base);
        long to = TaggedHeaderCodec.taggedOffset(u, base);
        int payload = u.readableBytes() - TaggedHeaderCodec.LENGTH;
        TerminateCause continuation = checkContinuation(u, RdmapOpcode.RDMA_WRITE, stag, to);
        if (continuation != null) {
            return continuation;
        }
        if (payload > 0 || taggedInProgress) {
            DefaultMemoryRegion region = qp.device.lookup(stag);
            DefaultMemoryRegion.Check check = region == null ? DefaultMemoryRegion.Check.INVALID_STAG
                    : region.check(stag, to, payload, true, qp.pd);
            if (check != DefaultMemoryRegion.Check.OK) {
                return segmentError(taggedError(check), u, true, String.format("RDMA Write to STag 0x%08x TO 0x%x"
                        + " length %d: %s (RFC 5041 §7.2)", stag, to, payload, describe(check, region)));
            }
            region.place(region.indexOf(to), u, base + TaggedHeaderCodec.LENGTH, payload);
        }
        // A zero-length Write places nothing and is not checked, as Linux siw does: RFC 6581's
        // ready-to-receive message is a zero-length Write with an arbitrary STag.
        advanceTagged(RdmapOpcode.RDMA_WRITE, stag, to + payload, last);
        return null;
    }

    private TerminateCause readResponse(ByteBuf u, boolean last) {
        int base = u.readerIndex();
        int stag = TaggedHeaderCodec.stag(u, base);
        long to = TaggedHeaderCodec.taggedOffset(u, base);
        int payload = u.readableBytes() - TaggedHeaderCodec.LENGTH;
        if (qp.rtrReadOutstanding) {
            // RFC 6581 §5: the answer to the Read RTR comes before any other (§5.5 rule 20: in order).
            if (stag != QueuePairSender.RTR_STAG) {
                return segmentError(DdpError.TAGGED_INVALID_STAG, u, true, String.format("the Read Response to the"
                        + " zero-length Read RTR goes to STag 0x%08x, not 0x%08x (RFC 6581 §5, RFC 5040 §5.2.2)",
                        stag, QueuePairSender.RTR_STAG));
            }
            if (payload != 0 || !last || to != 0 || taggedInProgress) {
                return segmentError(DdpError.TAGGED_BASE_OR_BOUNDS, u, true, String.format("the Read Response to"
                        + " the zero-length Read RTR must be one empty segment at TO 0; got %d octets at TO 0x%x"
                        + " (RFC 6581 §5, RFC 5040 §5.2.2)", payload, to));
            }
            qp.rtrReadOutstanding = false;
            return null;
        }
        SendQueueEntry read = qp.oldestOutstanding(false);
        if (read == null) {
            // siw reports DDP 1/0/0x00 here; RFC 5040 Figure 9's "unexpected opcode" names the error.
            return segmentError(RdmapError.OPERATION_UNEXPECTED_OPCODE, u, true, false,
                    "a Read Response arrived with no RDMA Read outstanding (RFC 5040 §5.2.2)");
        }
        TerminateCause continuation = checkContinuation(u, RdmapOpcode.RDMA_READ_RESPONSE, stag, to);
        if (continuation != null) {
            return continuation;
        }
        if (stag != read.sinkStag) {
            return segmentError(DdpError.TAGGED_INVALID_STAG, u, true, String.format("Read Response to STag 0x%08x;"
                    + " the outstanding Read's sink is 0x%08x (RFC 5040 §5.2.2)", stag, read.sinkStag));
        }
        long expectedTo = read.sinkTaggedOffset + read.received;
        if (to != expectedTo || read.received + payload > read.readLength) {
            return segmentError(DdpError.TAGGED_BASE_OR_BOUNDS, u, true, String.format("Read Response segment at TO"
                    + " 0x%x, %d octets; expected TO 0x%x and at most %d more (RFC 5040 §5.2.2)", to, payload,
                    expectedTo, read.readLength - read.received));
        }
        if (last && read.received + payload != read.readLength) {
            return segmentError(DdpError.TAGGED_BASE_OR_BOUNDS, u, true, "the Read Response ended after "
                    + (read.received + payload) + " of " + read.readLength + " octets (RFC 5040 §5.2.2)");
        }
        ScatterGatherEntry sink = read.wr.sgl().get(0);
        DefaultMemoryRegion region = (DefaultMemoryRegion) sink.region();
        if (payload > 0) {
            if (!region.isValid()) {
                read.finish(WorkCompletionStatus.LOCAL_PROTECTION_ERROR);
                return segmentError(DdpError.TAGGED_INVALID_STAG, u, true, "the sink " + region
                        + " of the outstanding RDMA Read is no longer valid");
            }
            region.place((int) (sink.offset() + read.received), u, base + TaggedHeaderCodec.LENGTH, payload);
        }
        read.received += payload;
        advanceTagged(RdmapOpcode.RDMA_READ_RESPONSE, stag, to + payload, last);
        if (last) {
            // §5.5 rule 19: the Read completes when its Read Response is delivered.
            read.byteLength = read.readLength;
            read.finish(WorkCompletionStatus.SUCCESS);
            qp.retireAnswered();
            qp.completeSends();
        }
        return null;
    }

    /** A later segment of a tagged message must continue it (siw: STag → invalid STag, TO → bounds). */
    private TerminateCause checkContinuation(ByteBuf u, RdmapOpcode opcode, int stag, long to) {
        if (!taggedInProgress) {
            return null;
        }
        if (taggedOpcode != opcode) {
            return segmentError(RdmapError.OPERATION_UNEXPECTED_OPCODE, u, true, false, opcode
                    + " segment inside an unfinished " + taggedOpcode + " (tagged messages do not interleave)");
        }
        if (stag != taggedStag) {
            return segmentError(DdpError.TAGGED_INVALID_STAG, u, true, String.format("segment to STag 0x%08x"
                    + " continues a message to STag 0x%08x", stag, taggedStag));
        }
        if (to != taggedNextTo) {
            return segmentError(DdpError.TAGGED_BASE_OR_BOUNDS, u, true, String.format("segment at TO 0x%x"
                    + " continues a message whose next TO is 0x%x", to, taggedNextTo));
        }
        return null;
    }

    private void advanceTagged(RdmapOpcode opcode, int stag, long nextTo, boolean last) {
        taggedInProgress = !last;
        taggedOpcode = opcode;
        taggedStag = stag;
        taggedNextTo = nextTo;
    }

    /**
     * RFC 5041 §7.2 tagged-buffer codes. It has none for access rights; like Linux siw, a Write without
     * REMOTE_WRITE reports "invalid STag".
     */
    private static DdpError taggedError(DefaultMemoryRegion.Check check) {
        return switch (check) {
            case NOT_ASSOCIATED -> DdpError.TAGGED_STAG_NOT_ASSOCIATED;
            case BASE_OR_BOUNDS -> DdpError.TAGGED_BASE_OR_BOUNDS;
            case TO_WRAP -> DdpError.TAGGED_TO_WRAP;
            default -> DdpError.TAGGED_INVALID_STAG;
        };
    }

    // ---- untagged (RFC 5041 §5.2, §5.3, §7.2; RFC 5040 §5.2.1, §5.3, §5.4) ----

    /** QN, MSN and MO (RFC 5041 §5.3, §7.2), and no interleaving with another untagged message. */
    private TerminateCause checkUntagged(ByteBuf u, int queue, int expectedMsn, long expectedMo) {
        int base = u.readerIndex();
        long qn = UntaggedHeaderCodec.queueNumber(u, base);
        if (qn != queue) {
            return segmentError(DdpError.UNTAGGED_INVALID_QN, u, false, "QN " + qn + " for an RDMAP message of queue "
                    + queue + " (RFC 5040 §3.1)");
        }
        if (untaggedInProgress && untaggedQn != queue) {
            return segmentError(RdmapError.OPERATION_UNEXPECTED_OPCODE, u, false, false, "a message on QN " + queue
                    + " inside an unfinished message on QN " + untaggedQn + " (untagged messages do not interleave)");
        }
        int msn = UntaggedHeaderCodec.msn(u, base);
        if (msn != expectedMsn) {
            return segmentError(DdpError.UNTAGGED_MSN_RANGE, u, false, "MSN " + Integer.toUnsignedString(msn)
                    + " on QN " + queue + ", expected " + Integer.toUnsignedString(expectedMsn) + " (RFC 5041 §5.3)");
        }
        long mo = UntaggedHeaderCodec.messageOffset(u, base);
        if (mo != expectedMo) {
            return segmentError(DdpError.UNTAGGED_INVALID_MO, u, false, "MO " + mo + " on QN " + queue + ", expected "
                    + expectedMo + " (RFC 5041 §5.3)");
        }
        return null;
    }

    private TerminateCause send(ByteBuf u, RdmapOpcode opcode, boolean last) {
        int base = u.readerIndex();
        TerminateCause error = checkUntagged(u, UntaggedHeaderCodec.QN_SEND, sendMsn, sendReceived);
        if (error != null) {
            return error;
        }
        ReceiveQueueEntry rqe = qp.receiveHead();
        if (rqe == null) {
            return segmentError(DdpError.UNTAGGED_NO_BUFFER, u, false,
                    "a Send with MSN " + Integer.toUnsignedString(sendMsn) + " and no receive posted (RFC 5041 §7.2)");
        }
        int stagToInvalidate = UntaggedHeaderCodec.invalidateStag(u, base);
        if (opcode.invalidates() && sendReceived == 0) {
            DefaultMemoryRegion region = qp.device.lookup(stagToInvalidate);
            if (region == null || region.pd() != qp.pd || !region.isValid() || region.stag() != stagToInvalidate) {
                // RFC 5040 §5.3; siw reports 0/2/0x09 for an unknown index and 0/1/0x09 otherwise.
                return segmentError(RdmapError.PROTECTION_CANNOT_INVALIDATE, u, false, false, String.format(
                        "Send with Invalidate names STag 0x%08x, %s (RFC 5040 §5.3)", stagToInvalidate,
                        region == null || region.stag() != stagToInvalidate ? "no valid STag"
                                : region.pd() != qp.pd ? "not associated with this stream" : "already invalid"));
            }
        }
        int payload = u.readableBytes() - UntaggedHeaderCodec.LENGTH;
        if (sendReceived + payload > rqe.capacity) {
            // RFC 5041 code 5 (siw reports 0x02); the receive completes with a local length error.
            qp.completeReceive(WorkCompletionStatus.LOCAL_LENGTH_ERROR, sendReceived, false, false, 0);
            return segmentError(DdpError.UNTAGGED_MESSAGE_TOO_LONG, u, false, "a Send of at least "
                    + (sendReceived + payload) + " octets for a receive buffer of " + rqe.capacity + " (RFC 5041 §7.2)");
        }
        if (!scatter(rqe.wr, sendReceived, u, base + UntaggedHeaderCodec.LENGTH, payload)) {
            qp.completeReceive(WorkCompletionStatus.LOCAL_PROTECTION_ERROR, sendReceived, false, false, 0);
            return segmentError(DdpError.LOCAL_CATASTROPHIC, u, false, "a receive buffer's memory region is no"
                    + " longer valid");
        }
        sendReceived += payload;
        untaggedInProgress = !last;
        untaggedQn = UntaggedHeaderCodec.QN_SEND;
        if (last) {
            boolean invalidated = false;
            if (opcode.invalidates()) {
                DefaultMemoryRegion region = qp.device.lookup(stagToInvalidate);
                invalidated = region != null && region.pd() == qp.pd && region.invalidateRemotely(stagToInvalidate);
                if (!invalidated) {
                    qp.completeReceive(WorkCompletionStatus.REMOTE_OPERATION_ERROR, sendReceived, false, false, 0);
                    return segmentError(RdmapError.PROTECTION_CANNOT_INVALIDATE, u, false, false, String.format(
                            "STag 0x%08x was invalidated while the Send with Invalidate arrived", stagToInvalidate));
                }
            }
            // §5.5 rules 10 and 16: delivered in order, once the whole message is placed.
            qp.completeReceive(WorkCompletionStatus.SUCCESS, sendReceived, opcode.solicited(), invalidated,
                    invalidated ? stagToInvalidate : 0);
            sendMsn++;
            sendReceived = 0;
        }
        return null;
    }

    /** Copies {@code length} octets into the receive's scatter list at message offset {@code offset}. */
    private static boolean scatter(ReceiveWorkRequest wr, long offset, ByteBuf from, int index, int length) {
        long skip = offset;
        List<ScatterGatherEntry> sgl = wr.sgl();
        for (int i = 0; i < sgl.size(); i++) {
            ScatterGatherEntry s = sgl.get(i);
            if (length == 0) {
                return true;
            }
            if (skip >= s.length()) {
                skip -= s.length();
                continue;
            }
            DefaultMemoryRegion region = (DefaultMemoryRegion) s.region();
            if (!region.isValid()) {
                return false;
            }
            int n = (int) Math.min(length, s.length() - skip);
            region.place((int) (s.offset() + skip), from, index, n);
            index += n;
            length -= n;
            skip = 0;
        }
        return true;
    }

    private TerminateCause readRequest(ByteBuf u, boolean last) {
        int base = u.readerIndex();
        TerminateCause error = checkUntagged(u, UntaggedHeaderCodec.QN_READ_REQUEST, readRequestMsn, 0);
        if (error != null) {
            return error;
        }
        int length = u.readableBytes() - UntaggedHeaderCodec.LENGTH;
        if (length != ReadRequestCodec.LENGTH || !last) {
            return segmentError(DdpError.UNTAGGED_MESSAGE_TOO_LONG, u, false, "a Read Request of " + length
                    + " octets" + (last ? "" : " continued in another segment") + "; it is one segment of "
                    + ReadRequestCodec.LENGTH + " (RFC 5040 §4.4)");
        }
        if (qp.inboundReadsQueued() >= qp.ird()) {
            // RFC 5040 defines no code; Linux siw reports a catastrophic stream error.
            return segmentError(RdmapError.OPERATION_CATASTROPHIC_STREAM, u, false, false, "an RDMA Read Request"
                    + " beyond IRD " + qp.ird() + " (RFC 5040 §6.1: the peer exceeded its ORD)");
        }
        int h = base + UntaggedHeaderCodec.LENGTH;
        long size = ReadRequestCodec.size(u, h);
        int sourceStag = ReadRequestCodec.sourceStag(u, h);
        long sourceTo = ReadRequestCodec.sourceTaggedOffset(u, h);
        DefaultMemoryRegion source = null;
        if (size > 0) {
            // §7.2 4a-e, only for non-zero lengths (§5.2.1).
            source = qp.device.lookup(sourceStag);
            DefaultMemoryRegion.Check check = source == null ? DefaultMemoryRegion.Check.INVALID_STAG
                    : source.check(sourceStag, sourceTo, size, false, qp.pd);
            if (check != DefaultMemoryRegion.Check.OK) {
                return segmentError(protectionError(check), u, false, true, String.format("RDMA Read of %d octets"
                        + " from STag 0x%08x TO 0x%x: %s (RFC 5040 §7.2)", size, sourceStag, sourceTo,
                        describe(check, source)));
            }
        }
        InboundRead r = qp.irq[(int) (qp.irqTail % qp.irq.length)];
        r.atomic = false;
        r.source = source;
        r.sourceStag = sourceStag;
        r.sourceTaggedOffset = sourceTo;
        r.length = size;
        r.sinkStag = ReadRequestCodec.sinkStag(u, h);
        r.sinkTaggedOffset = ReadRequestCodec.sinkTaggedOffset(u, h);
        r.sent = 0;
        qp.irqTail++;
        readRequestMsn++;
        return null;
    }

    // ---- RFC 7306 ----

    /**
     * Immediate Data (RFC 7306 §6.3): one segment of 8 octets on the Send queue, in its MSN sequence; it consumes
     * the oldest posted receive, whose completion carries the data (nothing is placed in its buffer).
     */
    private TerminateCause immediateData(ByteBuf u, RdmapOpcode opcode, boolean last) {
        int base = u.readerIndex();
        if (untaggedInProgress) {
            // A message of its own, never a segment of the Send still being received.
            return segmentError(RdmapError.OPERATION_UNEXPECTED_OPCODE, u, false, false, "Immediate Data inside an"
                    + " unfinished message on QN " + untaggedQn + " (untagged messages do not interleave)");
        }
        TerminateCause error = checkUntagged(u, UntaggedHeaderCodec.QN_SEND, sendMsn, 0);
        if (error != null) {
            return error;
        }
        int length = u.readableBytes() - UntaggedHeaderCodec.LENGTH;
        if (length != ImmediateDataCodec.LENGTH || !last) {
            return segmentError(DdpError.UNTAGGED_MESSAGE_TOO_LONG, u, false, "Immediate Data of " + length
                    + " octets" + (last ? "" : " continued in another segment") + "; it is one segment of "
                    + ImmediateDataCodec.LENGTH + " (RFC 7306 §6.3)");
        }
        if (qp.receiveHead() == null) {
            return segmentError(DdpError.UNTAGGED_NO_BUFFER, u, false, "Immediate Data with MSN "
                    + Integer.toUnsignedString(sendMsn) + " and no receive posted (RFC 7306 §6.3, RFC 5041 §7.2)");
        }
        qp.completeReceiveImmediate(ImmediateDataCodec.data(u, base + UntaggedHeaderCodec.LENGTH), opcode.solicited());
        sendMsn++;
        return null;
    }

    /**
     * An Atomic Request (RFC 7306 §5.2.1): one segment of 52 octets on the Read Request queue, in its MSN sequence
     * and under IRD like an RDMA Read Request (§5.2). It is validated on arrival as a Read's source is (RFC 5040
     * §7.2, with the REMOTE_ATOMIC right) and for an aligned word (§8.2), then queued with the Read Requests: the
     * sender carries it out when its Atomic Response's turn comes (§7). So it sees every Write that arrived before
     * it, and perhaps Writes that arrived after (§7 allows it).
     */
    private TerminateCause atomicRequest(ByteBuf u, boolean last) {
        int base = u.readerIndex();
        TerminateCause error = checkUntagged(u, UntaggedHeaderCodec.QN_READ_REQUEST, readRequestMsn, 0);
        if (error != null) {
            return error;
        }
        int length = u.readableBytes() - UntaggedHeaderCodec.LENGTH;
        if (length != AtomicRequestCodec.LENGTH || !last) {
            return segmentError(DdpError.UNTAGGED_MESSAGE_TOO_LONG, u, false, "an Atomic Request of " + length
                    + " octets" + (last ? "" : " continued in another segment") + "; it is one segment of "
                    + AtomicRequestCodec.LENGTH + " (RFC 7306 §5.2)");
        }
        if (qp.inboundReadsQueued() >= qp.ird()) {
            return segmentError(RdmapError.OPERATION_CATASTROPHIC_STREAM, u, false, false, "an Atomic Request beyond"
                    + " IRD " + qp.ird() + " (RFC 7306 §5.2.1: atomics share the Read Request queue; the peer exceeded"
                    + " its ORD)");
        }
        int h = base + UntaggedHeaderCodec.LENGTH;
        AtomicOperation op = AtomicOperation.fromCode(AtomicRequestCodec.atomicOpcode(u, h));
        if (op == null) {
            return segmentError(RdmapError.OPERATION_UNEXPECTED_OPCODE, u, false, false, "atomic operation "
                    + AtomicRequestCodec.atomicOpcode(u, h) + " is reserved (RFC 7306 §5.2.1, §10.1: 0"
                    + " Fetch-and-Add, 2 Compare-and-Swap)");
        }
        int stag = AtomicRequestCodec.remoteStag(u, h);
        long to = AtomicRequestCodec.remoteTaggedOffset(u, h);
        DefaultMemoryRegion region = qp.device.lookup(stag);
        DefaultMemoryRegion.Check check = region == null ? DefaultMemoryRegion.Check.INVALID_STAG
                : region.checkAtomic(stag, to, qp.pd);
        if (check != DefaultMemoryRegion.Check.OK) {
            return segmentError(protectionError(check), u, false, false, String.format("%s on STag 0x%08x TO 0x%x:"
                    + " %s (RFC 7306 §5.2.1, RFC 5040 §7.2)", op, stag, to, describe(check, region)));
        }
        if (!region.wordAligned(to)) {
            // §8.2: not performed, memory untouched, and this code; the Terminate carries the DDP header (§8.1).
            return segmentError(RdmapError.OPERATION_CATASTROPHIC_STREAM, u, false, false, String.format("%s on"
                    + " STag 0x%08x TO 0x%x: the word's address is not 64-bit aligned (RFC 7306 §5.1.1, §5.1.2,"
                    + " §8.2)", op, stag, to));
        }
        // Carried out when its Atomic Response is generated, behind the Read Responses queued before it (§7).
        InboundRead r = qp.irq[(int) (qp.irqTail % qp.irq.length)];
        r.source = region;
        r.sourceStag = stag;
        r.sourceTaggedOffset = to;
        r.length = 0;
        r.sent = 0;
        r.atomic = true;
        r.atomicOperation = op;
        r.addOrSwapData = AtomicRequestCodec.addOrSwapData(u, h);
        r.addOrSwapMask = AtomicRequestCodec.addOrSwapMask(u, h);
        r.compareData = AtomicRequestCodec.compareData(u, h);
        r.compareMask = AtomicRequestCodec.compareMask(u, h);
        r.atomicRequestId = AtomicRequestCodec.requestId(u, h);
        r.atomicRequestMsn = readRequestMsn;
        qp.irqTail++;
        readRequestMsn++;
        return null;
    }

    /** An Atomic Response (RFC 7306 §5.2.2): one segment of 12 octets on QN 3, answering the oldest atomic. */
    private TerminateCause atomicResponse(ByteBuf u, boolean last) {
        int base = u.readerIndex();
        TerminateCause error = checkUntagged(u, UntaggedHeaderCodec.QN_ATOMIC_RESPONSE, atomicResponseMsn, 0);
        if (error != null) {
            return error;
        }
        int length = u.readableBytes() - UntaggedHeaderCodec.LENGTH;
        if (length != AtomicResponseCodec.LENGTH || !last) {
            return segmentError(DdpError.UNTAGGED_MESSAGE_TOO_LONG, u, false, "an Atomic Response of " + length
                    + " octets" + (last ? "" : " continued in another segment") + "; it is one segment of "
                    + AtomicResponseCodec.LENGTH + " (RFC 7306 §5.2.2)");
        }
        int h = base + UntaggedHeaderCodec.LENGTH;
        int requestId = AtomicResponseCodec.requestId(u, h);
        SendQueueEntry atomic = qp.oldestOutstanding(true);
        if (atomic == null || atomic.atomicRequestId != requestId) {
            return segmentError(RdmapError.OPERATION_UNEXPECTED_OPCODE, u, false, false, "an Atomic Response to"
                    + " Request Identifier " + Integer.toUnsignedString(requestId) + (atomic == null
                    ? " with no atomic operation outstanding" : "; the oldest outstanding is "
                    + Integer.toUnsignedString(atomic.atomicRequestId)) + " (RFC 7306 §5.2.2: answered in order)");
        }
        atomic.atomicResult = AtomicResponseCodec.originalValue(u, h);
        atomic.byteLength = AtomicRequestCodec.OPERAND_LENGTH;
        atomic.finish(WorkCompletionStatus.SUCCESS);
        atomicResponseMsn++;
        qp.retireAnswered();
        qp.completeSends();
        return null;
    }

    private static RdmapError protectionError(DefaultMemoryRegion.Check check) {
        return switch (check) {
            case NOT_ASSOCIATED -> RdmapError.PROTECTION_STAG_NOT_ASSOCIATED;
            case ACCESS_RIGHTS -> RdmapError.PROTECTION_ACCESS_RIGHTS;
            case BASE_OR_BOUNDS -> RdmapError.PROTECTION_BASE_OR_BOUNDS;
            case TO_WRAP -> RdmapError.PROTECTION_TO_WRAP;
            default -> RdmapError.PROTECTION_INVALID_STAG;
        };
    }

    /** RFC 5040 §5.4: the peer ends the stream; its Terminate is reported, not answered. */
    private TerminateCause terminate(ByteBuf u) {
        int base = u.readerIndex();
        int length = u.readableBytes() - UntaggedHeaderCodec.LENGTH;
        if (UntaggedHeaderCodec.queueNumber(u, base) != UntaggedHeaderCodec.QN_TERMINATE) {
            return segmentError(DdpError.UNTAGGED_INVALID_QN, u, false, "a malformed Terminate (QN "
                    + UntaggedHeaderCodec.queueNumber(u, base) + ", " + length + " octets of Terminate header)");
        }
        qp.terminateReceived(TerminateCodec.decode(u, base + UntaggedHeaderCodec.LENGTH, length));
        return null;
    }

    private static String describe(DefaultMemoryRegion.Check check, DefaultMemoryRegion region) {
        return switch (check) {
            case INVALID_STAG -> region == null ? "no such STag" : "the STag is not valid (stale key or invalidated)";
            case NOT_ASSOCIATED -> "the region belongs to another protection domain";
            case ACCESS_RIGHTS -> "the region does not grant " + "this access " + region.access();
            case BASE_OR_BOUNDS -> String.format("outside the region [0x%x, 0x%x)", region.baseTaggedOffset(),
                    region.baseTaggedOffset() + region.length());
            case TO_WRAP -> "TO + length wraps past 2^64";
            case OK -> "ok";
        };
    }

    // ---- Terminate causes (RFC 5040 §7.1 and Figure 10) ----

    /** DDP errors carry the segment length and DDP header (M, D). */
    private static TerminateCause segmentError(DdpError error, ByteBuf u, boolean tagged, String reason) {
        return TerminateCause.forSegment(TerminateCode.of(error), u, tagged, false, reason);
    }

    /**
     * RDMAP errors carry M and D; remote protection errors on a Read Request also carry its header (R,
     * RFC 5040 §7.1 rule 3).
     */
    private static TerminateCause segmentError(RdmapError error, ByteBuf u, boolean tagged, boolean readRequest,
            String reason) {
        return TerminateCause.forSegment(TerminateCode.of(error), u, tagged, readRequest, reason);
    }
}
