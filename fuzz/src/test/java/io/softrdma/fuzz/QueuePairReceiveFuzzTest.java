package io.softrdma.fuzz;

import static io.softrdma.fuzz.FuzzSupport.abandon;
import static io.softrdma.fuzz.FuzzSupport.buffers;
import static io.softrdma.fuzz.FuzzSupport.channel;
import static io.softrdma.fuzz.FuzzSupport.drainOutbound;
import static io.softrdma.fuzz.FuzzSupport.expectOnly;
import static io.softrdma.fuzz.FuzzSupport.feed;
import static io.softrdma.fuzz.FuzzSupport.hex;
import static io.softrdma.fuzz.FuzzSupport.register;
import static io.softrdma.fuzz.FuzzSupport.releaseQueued;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.embedded.EmbeddedChannel;
import io.softrdma.ConnectionClosedException;
import io.softrdma.cm.RdmaConnection;
import io.softrdma.cm.RdmaPipeline;
import io.softrdma.internal.ddp.DdpControl;
import io.softrdma.internal.ddp.TaggedHeaderCodec;
import io.softrdma.internal.ddp.UntaggedHeaderCodec;
import io.softrdma.fuzz.FuzzSupport.BufferStyle;
import io.softrdma.fuzz.FuzzSupport.Input;
import io.softrdma.fuzz.FuzzSupport.Tail;
import io.softrdma.internal.mpa.FpduCodec;
import io.softrdma.mpa.IrdOrdHeader;
import io.softrdma.mpa.MpaNegotiation;
import io.softrdma.mpa.MpaSettings;
import io.softrdma.mpa.MpaStartupFrame;
import io.softrdma.internal.mpa.MpaStartupFrameCodec;
import io.softrdma.rdmap.RdmapOpcode;
import io.softrdma.internal.rdmap.TerminateCodec;
import io.softrdma.rdmap.TerminateException;
import io.softrdma.verbs.Access;
import io.softrdma.verbs.CompletionQueue;
import io.softrdma.verbs.MemoryRegion;
import io.softrdma.verbs.ProtectionDomain;
import io.softrdma.verbs.QueuePair;
import io.softrdma.rdmap.RdmapExtensions;
import io.softrdma.verbs.QueuePairConfig;
import io.softrdma.verbs.QueuePairState;
import io.softrdma.verbs.RdmaDevice;
import io.softrdma.verbs.ReceiveWorkRequest;
import io.softrdma.verbs.ScatterGatherEntry;
import io.softrdma.verbs.WorkCompletionOpcode;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A whole connection's receive path, RFC 5044 framing → RFC 5041 placement → RFC 5040 semantics: a queue
 * pair bound by {@code RdmaPipeline.responder} to an embedded channel, after a fixed, valid MPA Request
 * (RFC 5044 §7.1, RFC 6581 §5), with receives posted and memory regions registered, then fed arbitrary
 * octets as the initiator's stream. In "framed" mode the harness turns fuzzer-chosen ULPDUs into valid
 * FPDUs (RFC 5044 §4) so that the fuzzer works on DDP/RDMAP headers (RFC 5041 §4, RFC 5040 §4) rather than
 * on CRCs; in "raw" mode the octets are the FPDU stream.
 *
 * <p>Checked: no exception leaves the queue pair's handler (RFC 5040 §7: every error becomes a Terminate);
 * whatever the queue pair sends is well-formed FPDUs carrying well-formed DDP segments; every posted receive
 * completes exactly once, within its buffer; the queue pair ends in ERROR with its close future failed only
 * by a Terminate or the connection's loss; every buffer is released.
 */
@ExtendWith(ClassLeakCheck.class)
class QueuePairReceiveFuzzTest {
    /** An STag field of this form (0xffffff0k) is replaced by the STag of region k (0-3; 3 is another domain's). */
    static final int PLACEHOLDER = 0xFFFFFF00;
    static final int REGIONS = 4;

    /**
     * Input: the options octet (bit 0 CRC, bit 1 this responder requires Markers, bit 2 raw mode, bit 3
     * revision 2 with an enhanced Request, bit 4 the initiator requires Markers, bits 5-6 buffer style),
     * the read pattern, the setup octet (bits 0-1 receives posted, bit 2 each
     * receive scatters over two regions, bit 3 region 2 grants REMOTE_WRITE, bit 4 region 1 invalidated,
     * bit 5 IRD 1 instead of 4, bits 6-7 the regions' base tagged offset), the memory octet (bits 0-1 the
     * {@link Memory} kind), then the stream: ULPDUs behind a 16-bit length (framed mode) or FPDU octets (raw
     * mode).
     */
    @FuzzTest(maxDuration = "60s")
    void receive(byte[] data) {
        if (data.length > FuzzSupport.MAX_INPUT) {
            return;
        }
        Input in = new Input(data);
        int options = in.u8();
        int chunkSpec = in.u8();
        int setup = in.u8();
        int memoryKind = in.u8();
        byte[] stream = in.rest();
        new Connection(options, setup, memoryKind).run(stream, chunkSpec);
    }

    static final class Connection {
        final boolean crc;
        final boolean markersIn;
        final boolean raw;
        final boolean enhanced;
        final boolean markersOut;
        final BufferStyle style;
        final Memory memory;
        final ByteBufAllocator alloc;
        final int setup;
        final RdmaDevice device = RdmaDevice.create();
        final ProtectionDomain pd = device.allocateProtectionDomain();
        final ProtectionDomain otherPd = device.allocateProtectionDomain();
        final CompletionQueue cq = device.createCompletionQueue(64);
        final MemoryRegion[] regions = new MemoryRegion[REGIONS];
        final Map<Long, Long> receiveCapacity = new HashMap<>();
        QueuePair qp;

        Connection(int options, int setup, int memoryKind) {
            this.crc = (options & 1) != 0;
            this.markersIn = (options & 2) != 0;
            this.raw = (options & 4) != 0;
            this.enhanced = (options & 8) != 0;
            this.markersOut = (options & 0x10) != 0;
            this.style = BufferStyle.of(options >>> 5);
            this.memory = Memory.of(memoryKind);
            this.alloc = memory.alloc;
            this.setup = setup;
        }

        MemoryRegion registerRegion(ProtectionDomain domain, int length, Set<Access> access, long base) {
            ByteBuf memory = alloc.directBuffer(length, length);
            try {
                return domain.register(memory, access, base);
            } finally {
                memory.release(); // the region holds its own reference
            }
        }

        /** Runs the connection; returns how it ended (the close future, the receive completions). */
        String run(byte[] stream, int chunkSpec) {
            long base = switch (setup >>> 6) {
                case 0 -> 0L;
                case 1 -> 0x00007f0000001000L;
                case 2 -> -4096L;
                default -> 0x1000L;
            };
            Set<Access> all = Access.of(Access.LOCAL_WRITE, Access.REMOTE_WRITE, Access.REMOTE_READ,
                    Access.REMOTE_ATOMIC);
            regions[0] = registerRegion(pd, 64, all, base);
            regions[1] = registerRegion(pd, 256, Access.of(Access.LOCAL_WRITE, Access.REMOTE_WRITE), base);
            regions[2] = registerRegion(pd, 32, (setup & 8) != 0 ? all : Access.of(Access.LOCAL_WRITE, Access.REMOTE_READ),
                    base);
            regions[3] = registerRegion(otherPd, 64, all, base);
            if ((setup & 0x10) != 0) {
                regions[1].invalidate();
            }
            // RFC 7306 agreed (the Request below offers it), so opcodes 8-11 reach their handlers too.
            qp = pd.createQueuePair(new QueuePairConfig(8, 8, 6, 6, 4, (setup & 0x20) != 0 ? 1 : 4, cq, cq,
                    RdmapExtensions.ALL));
            for (long id = 0; id < (setup & 3); id++) {
                ReceiveWorkRequest wr = (setup & 4) != 0
                        ? ReceiveWorkRequest.of(id, new ScatterGatherEntry(regions[0], 8, 16),
                                ScatterGatherEntry.of(regions[1], 48))
                        : ReceiveWorkRequest.of(id, ScatterGatherEntry.of(id == 0 ? regions[1] : regions[0]));
                receiveCapacity.put(id, wr.capacity());
                qp.postReceive(wr);
            }

            EmbeddedChannel ch = channel(alloc);
                MpaSettings settings = MpaSettings.defaults().toBuilder()
                    .revision(enhanced ? MpaSettings.REVISION_2 : MpaSettings.REVISION_1)
                    .crc(false) // CRCs are on when the Request asks (C = 1)
                    .markers(markersIn)
                    .build();
            List<CompletableFuture<RdmaConnection>> accepted = new ArrayList<>();
            RdmaPipeline.responder(ch, settings, request -> accepted.add(request.accept(qp, new byte[0])));
            Tail tail = new Tail();
            ch.pipeline().addLast(tail);
            register(ch);
            ch.freezeTime();
            MpaStartupFrame request = enhanced
                    ? MpaStartupFrame.of(MpaStartupFrame.Type.REQUEST, markersOut, crc, false,
                            MpaStartupFrameCodec.FLAG_ENHANCED, MpaSettings.REVISION_2,
                            IrdOrdHeader.of(4, 4).prependTo(RdmapExtensions.ALL.appendTo(new byte[0])))
                    : MpaStartupFrame.request(markersOut, crc, MpaSettings.REVISION_1,
                            RdmapExtensions.ALL.appendTo(new byte[0]));
            ByteBuf requestBuf = alloc.buffer(request.encodedLength());
            MpaStartupFrameCodec.encode(request, requestBuf);
            ch.writeInbound(requestBuf);
            ch.runPendingTasks();
            if (accepted.size() != 1 || !accepted.get(0).isDone() || accepted.get(0).isCompletedExceptionally()) {
                throw new AssertionError("harness: the fixed MPA Request " + request + " was not accepted: " + accepted);
            }
            MpaNegotiation n = accepted.get(0).join().negotiation();
            if (n.crc() != crc || n.markersReceived() != markersIn || n.markersSent() != markersOut) {
                throw new AssertionError("harness: negotiated " + n);
            }
            drainOutbound(ch); // the Reply

            byte[] wire = raw ? stream : ReferenceFramer.frame(ulpdus(stream), crc, markersIn);
            try {
                feed(ch, buffers(alloc, wire, chunkSpec, style));
                ch.runPendingTasks();
                checkSent(drainOutbound(ch));
                if (!tail.exceptions.isEmpty()) {
                    Throwable t = tail.exceptions.get(0);
                    throw new AssertionError("an exception left the queue pair's handler: " + t, t);
                }
                if (!tail.messages.isEmpty()) {
                    throw new AssertionError("ULPDUs passed the queue pair's handler: " + hex(tail.messages));
                }
                qp.close();
                ch.runPendingTasks();
                checkSent(drainOutbound(ch));
            } catch (RuntimeException | Error e) {
                abandon(ch);
                pd.close();
                otherPd.close();
                throw e;
            }
            ch.finishAndReleaseAll();
            releaseQueued(ch);
            if (!tail.exceptions.isEmpty()) {
                Throwable t = tail.exceptions.get(0);
                throw new AssertionError("an exception left the queue pair's handler on close: " + t, t);
            }
            String closed = checkClosed();
            String completions = checkCompletions();
            pd.close();
            otherPd.close();
            memory.assertAllReleased("a connection fed " + wire.length + " octets");
            return closed + "; receives " + completions + "; sent " + hex(sentSoFar);
        }

        /** Framed mode: the ULPDUs, with placeholder STags replaced by the regions' real ones. */
        List<byte[]> ulpdus(byte[] stream) {
            Input in = new Input(stream);
            List<byte[]> out = new ArrayList<>();
            while (in.remaining() >= 2 && out.size() < 64) {
                byte[] u = in.take(Math.min(in.u16(), FpduCodec.MAX_ULPDU_LENGTH));
                substitute(u, TaggedHeaderCodec.STAG_OFFSET); // tagged Data Sink STag, or untagged Invalidate STag
                substitute(u, UntaggedHeaderCodec.LENGTH + 16); // the Read Request's Data Source STag
                out.add(u);
            }
            return out;
        }

        void substitute(byte[] u, int at) {
            if (u.length < at + 4) {
                return;
            }
            int v = (u[at] & 0xFF) << 24 | (u[at + 1] & 0xFF) << 16 | (u[at + 2] & 0xFF) << 8 | (u[at + 3] & 0xFF);
            if ((v & 0xFFFFFF00) == PLACEHOLDER && (v & 0xFF) < REGIONS) {
                int stag = regions[v & 0xFF].stag();
                u[at] = (byte) (stag >>> 24);
                u[at + 1] = (byte) (stag >>> 16);
                u[at + 2] = (byte) (stag >>> 8);
                u[at + 3] = (byte) stag;
            }
        }

        /**
         * What the queue pair sent after its Reply: exactly a sequence of FPDUs (CRC and Markers as
         * negotiated), each a DDP segment of RDMAP version 1 that RFC 5040 defines; Terminates decode.
         */
        void checkSent(byte[] sent) {
            sentSoFar = ReferenceFramer.concat(sentSoFar, sent);
            ReferenceFramer.Parsed p = ReferenceFramer.parse(sentSoFar, crc, markersOut);
            if (p.errorCode() != 0 || !Arrays.equals(ReferenceFramer.frame(p.ulpdus(), crc, markersOut), sentSoFar)) {
                throw new AssertionError("the queue pair sent octets that are not FPDUs (crc=" + crc + " markers="
                        + markersOut + "): " + hex(sentSoFar));
            }
            for (byte[] u : p.ulpdus()) {
                ByteBuf b = Unpooled.wrappedBuffer(u);
                if (u.length < 2 || DdpControl.ddpVersion(u[0]) != 1 || DdpControl.rdmapVersion(u[1]) != 1) {
                    throw new AssertionError("sent a malformed DDP segment " + hex(u));
                }
                RdmapOpcode op = RdmapOpcode.fromCode(DdpControl.opcode(u[1]));
                int header = DdpControl.tagged(u[0] & 0xFF) ? TaggedHeaderCodec.LENGTH : UntaggedHeaderCodec.LENGTH;
                if (op == null || op.tagged() != DdpControl.tagged(u[0] & 0xFF)
                        || u.length < header + op.headerLength()) {
                    throw new AssertionError("sent a malformed RDMAP message " + hex(u));
                }
                if (op == RdmapOpcode.TERMINATE) {
                    TerminateCodec.decode(b, header, u.length - header);
                }
            }
        }

        private byte[] sentSoFar = new byte[0];

        String checkClosed() {
            if (qp.state() != QueuePairState.ERROR) {
                throw new AssertionError("the queue pair is " + qp.state() + " after its connection closed");
            }
            CompletableFuture<Void> closed = qp.closeFuture();
            if (!closed.isDone()) {
                throw new AssertionError("the queue pair's close future is pending after the connection closed");
            }
            try {
                closed.join();
                return "closed";
            } catch (CompletionException e) {
                expectOnly(e.getCause(), "failing the queue pair's close future", TerminateException.class,
                        ConnectionClosedException.class);
                return e.getCause().getClass().getSimpleName() + ": " + e.getCause().getMessage();
            }
        }

        /** Every posted receive completed exactly once; a successful one within its buffer. */
        String checkCompletions() {
            Map<Long, Integer> seen = new HashMap<>();
            List<String> statuses = new ArrayList<>();
            List<String> problems = new ArrayList<>();
            cq.poll(c -> {
                if (c.opcode() == WorkCompletionOpcode.RECEIVE) {
                    seen.merge(c.wrId(), 1, Integer::sum);
                    statuses.add(c.wrId() + " " + c.status() + " " + c.byteLength());
                    Long capacity = receiveCapacity.get(c.wrId());
                    if (capacity == null || c.isSuccess() && (c.byteLength() < 0 || c.byteLength() > capacity)) {
                        problems.add(String.valueOf(c));
                    }
                } else {
                    problems.add("a completion for a send never posted: " + c);
                }
            }, 1000);
            if (!problems.isEmpty() || !seen.keySet().equals(receiveCapacity.keySet())
                    || seen.values().stream().anyMatch(k -> k != 1)) {
                throw new AssertionError("receive completions " + seen + " for receives " + receiveCapacity.keySet()
                        + (problems.isEmpty() ? "" : "; " + problems));
            }
            return statuses.toString();
        }
    }
}
