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
import static io.softrdma.fuzz.FuzzSupport.sameBytes;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.softrdma.fuzz.FuzzSupport.BufferStyle;
import io.softrdma.fuzz.FuzzSupport.Input;
import io.softrdma.fuzz.FuzzSupport.Tail;
import io.softrdma.internal.mpa.FpduCodec;
import io.softrdma.internal.mpa.FpduException;
import io.softrdma.internal.mpa.MpaEstablishedEvent;
import io.softrdma.internal.mpa.MpaResponderDecision;
import io.softrdma.internal.mpa.MpaStartupFrameCodec;
import io.softrdma.internal.mpa.MpaStartupHandler;
import io.softrdma.internal.transport.PipelineNames;
import io.softrdma.mpa.IrdOrdHeader;
import io.softrdma.mpa.MpaNegotiation;
import io.softrdma.mpa.MpaRole;
import io.softrdma.mpa.MpaSettings;
import io.softrdma.mpa.MpaStartupException;
import io.softrdma.mpa.MpaStartupFrame;
import io.softrdma.mpa.PeerToPeerMode;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The MPA startup phase, RFC 5044 §7.1 (Request and Reply frames §7.1.1, the rules of §7.1.2) with RFC
 * 6581 §5's enhanced frames (IRD/ORD, peer-to-peer RTR): {@code MpaStartupHandler} as responder and as
 * initiator on an embedded channel, fed arbitrary octets in arbitrary reads; and the frame codec itself.
 *
 * <p>Besides "no unexpected exception, no leak", each run is repeated in one single read and must end the
 * same way: the outcome, the octets sent, the ULPDUs and errors passed on may not depend on how TCP cut
 * the stream.
 */
@ExtendWith(ClassLeakCheck.class)
class MpaStartupFuzzTest {
    private static final byte[] REPLY_KEY = "MPA ID Rep Frame".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] REQUEST_KEY = "MPA ID Req Frame".getBytes(StandardCharsets.US_ASCII);

    /**
     * Settings from one option octet: bit 0 revision 2 (else 1), bit 1 CRC, bit 2 Markers required,
     * bit 3 refuse Markers, bits 4-5 peer-to-peer mode (revision 2 only), bit 6 close on reject, bit 7 at
     * most 256 octets of private data (else 512).
     */
    static MpaSettings settings(int flags) {
        int revision = (flags & 1) != 0 ? MpaSettings.REVISION_2 : MpaSettings.REVISION_1;
        PeerToPeerMode p2p = revision == MpaSettings.REVISION_2 ? PeerToPeerMode.values()[(flags >>> 4) & 3]
                : PeerToPeerMode.OFF;
        return MpaSettings.defaults().toBuilder()
                .revision(revision)
                .crc((flags & 2) != 0)
                .markers((flags & 4) != 0)
                .refuseMarkers((flags & 8) != 0)
                .peerToPeer(p2p)
                .closeOnReject((flags & 0x40) != 0)
                .maxPrivateDataLength((flags & 0x80) != 0 ? 256 : 512)
                .build();
    }

    /** How a run ended, in terms that must not depend on the reads. */
    record Run(String outcome, byte[] outbound, List<byte[]> passedOn, List<String> errors, boolean open) {
        String describe() {
            return outcome + ", sent " + hex(outbound) + ", passed on " + hex(passedOn) + ", errors " + errors
                    + (open ? ", open" : ", closed");
        }
    }

    static void assertSameRun(Run chunked, Run whole) {
        if (!chunked.outcome.equals(whole.outcome) || !Arrays.equals(chunked.outbound, whole.outbound)
                || !Arrays.equals(concat(chunked.passedOn), concat(whole.passedOn))
                || !chunked.errors.equals(whole.errors) || chunked.open != whole.open) {
            throw new AssertionError("the startup depends on how the stream was cut into reads:\n  in reads: "
                    + chunked.describe() + "\n  in one read: " + whole.describe());
        }
        if (chunked.outcome.startsWith("established") && !sameBytes(chunked.passedOn, whole.passedOn)) {
            throw new AssertionError("the ULPDUs after the startup depend on the reads: " + hex(chunked.passedOn)
                    + " vs " + hex(whole.passedOn));
        }
    }

    static byte[] concat(List<byte[]> parts) {
        return ReferenceFramer.concat(parts.toArray(new byte[0][]));
    }

    /** The outcome future, which must be pending, a negotiation, or an MpaStartupException. */
    static String outcome(CompletableFuture<MpaNegotiation> f, MpaRole role) {
        if (!f.isDone()) {
            return "pending";
        }
        try {
            MpaNegotiation n = f.join();
            if (n.role() != role || (n.revision() != 1 && n.revision() != 2)
                    || n.mulpdu() < FpduCodec.MIN_MULPDU || n.mulpdu() > FpduCodec.MAX_ULPDU_LENGTH
                    || n.ird() < 0 || n.ird() > IrdOrdHeader.MASK || n.ord() < 0 || n.ord() > IrdOrdHeader.MASK) {
                throw new AssertionError("implausible negotiation " + n);
            }
            return "established crc=" + n.crc() + " markersSent=" + n.markersSent() + " markersReceived="
                    + n.markersReceived() + " rev=" + n.revision() + " ird=" + n.ird() + " ord=" + n.ord() + " rtr="
                    + n.readyToReceive();
        } catch (CompletionException e) {
            expectOnly(e.getCause(), "failing the MPA startup outcome", MpaStartupException.class);
            return "failed " + ((MpaStartupException) e.getCause()).reason();
        }
    }

    /** Checks what reached the end of the pipeline, and returns the errors (which must be framing errors). */
    static List<String> checkTail(Tail tail, String outcome, boolean streamingAfterReject) {
        List<String> errors = new ArrayList<>();
        for (Throwable t : tail.exceptions) {
            expectOnly(t, "reaching the end of the pipeline", FpduException.class);
            errors.add("FpduException " + ((FpduException) t).code());
        }
        int established = 0;
        for (Object e : tail.events) {
            if (e instanceof MpaEstablishedEvent) {
                established++;
            }
        }
        if (established > 1) {
            throw new AssertionError(established + " MpaEstablishedEvents");
        }
        if (!tail.messages.isEmpty() && established == 0 && !streamingAfterReject) {
            throw new AssertionError("octets passed on (" + hex(tail.messages) + ") without an MPA startup: " + outcome);
        }
        if (!errors.isEmpty() && established == 0) {
            throw new AssertionError("framing errors " + errors + " without an MPA startup");
        }
        if (outcome.startsWith("established") && established != 1) {
            throw new AssertionError("outcome established but no MpaEstablishedEvent");
        }
        return errors;
    }

    static void checkPipeline(EmbeddedChannel ch, String outcome) {
        if (outcome.startsWith("established")) {
            List<String> names = ch.pipeline().names();
            if (!names.contains(PipelineNames.FPDU_DECODER) || !names.contains(PipelineNames.FPDU_ENCODER)
                    || names.contains(PipelineNames.MPA_STARTUP)) {
                throw new AssertionError("established, but the pipeline is " + names);
            }
        }
    }

    /**
     * FpduDecoder: "After an error no further FPDU is passed on and the stream is not read further" (RFC 5044
     * §8): once a framing error reached the end of the pipeline, auto-read must be off.
     */
    static void checkReadingStopped(EmbeddedChannel ch, Tail tail, String outcome) {
        boolean framingError = tail.exceptions.stream().anyMatch(FpduException.class::isInstance);
        if (framingError && ch.isOpen() && ch.config().isAutoRead()) {
            throw new AssertionError("the stream is read further after the framing error " + tail.exceptions.get(0)
                    + " (auto-read is on again; " + outcome + ")");
        }
    }

    // ---- responder ----

    /**
     * A responder fed arbitrary octets: the Request and whatever follows it. Input: the settings octet
     * ({@link #settings}), the decision octet (bits 0-1: accept, accept with private data and IRD/ORD,
     * reject, none; bit 2 decide only after all octets arrived; bit 3 let every timer expire at the end;
     * bit 4 decide twice; bit 5 flood: 80 KiB of zeros follow the stream, more than the 64 KiB a responder
     * buffers while its consumer decides), the reply octet (bits 0-3 IRD, bits 4-7 ORD; the reply private data's length is
     * the third), the buffer octet (bits 0-1 style, bits 2-3 {@link Memory} kind), the read pattern, then
     * the stream.
     */
    @FuzzTest(maxDuration = "60s")
    void responder(byte[] data) {
        if (data.length > FuzzSupport.MAX_INPUT) {
            return;
        }
        Input in = new Input(data);
        MpaSettings settings = settings(in.u8());
        int decision = in.u8();
        int reply = in.u8();
        int buffers = in.u8();
        int chunkSpec = in.u8();
        byte[] stream = in.rest();
        BufferStyle style = BufferStyle.of(buffers);
        int memoryKind = buffers >>> 2;

        Run chunked = respond(settings, decision, reply, stream, chunkSpec, style, memoryKind);
        Run whole = respond(settings, decision, reply, stream, 0, BufferStyle.DIRECT, 0);
        assertSameRun(chunked, whole);
    }

    static Run respond(MpaSettings settings, int decisionOptions, int replyOptions, byte[] stream, int chunkSpec,
            BufferStyle style, int memoryKind) {
        int mode = decisionOptions & 3;
        boolean late = (decisionOptions & 4) != 0;
        boolean expire = (decisionOptions & 8) != 0;
        boolean twice = (decisionOptions & 0x10) != 0;
        boolean flood = (decisionOptions & 0x20) != 0;
        int ird = replyOptions & 0x0F;
        int ord = replyOptions >>> 4;
        // Always within what any Reply can carry: the IRD/ORD block takes 4 of the configured maximum.
        byte[] replyData = new byte[Math.min(replyOptions % 7 * 11, settings.maxPrivateDataLength() - 4)];
        Arrays.fill(replyData, (byte) 0x5C);

        Memory memory = Memory.of(memoryKind);
        EmbeddedChannel ch = channel(memory.alloc);
        List<MpaStartupFrame> requests = new ArrayList<>();
        List<MpaResponderDecision> undecided = new ArrayList<>();
        MpaStartupHandler handler = MpaStartupHandler.responder(settings, (request, decision) -> {
            requests.add(request);
            if (late) {
                undecided.add(decision);
            } else {
                decide(decision, mode, twice, replyData, ird, ord);
            }
        });
        Tail tail = new Tail();
        ch.pipeline().addLast(PipelineNames.MPA_STARTUP, handler).addLast(tail);
        register(ch);
        ch.freezeTime();
        String outcome;
        byte[] outbound;
        boolean open;
        try {
            feed(ch, buffers(memory.alloc, stream, chunkSpec, style));
            if (flood) {
                // Zeros are empty FPDUs without CRCs (ULPDU_Length 0, PAD, CRC 0) and a CRC error with them.
                for (int i = 0; i < 5; i++) {
                    feed(ch, buffers(memory.alloc, new byte[16 * 1024], 0, BufferStyle.DIRECT));
                }
            }
            for (MpaResponderDecision d : undecided) {
                decide(d, mode, twice, replyData, ird, ord);
                ch.runPendingTasks();
            }
            if (expire) {
                ch.advanceTimeBy(10, TimeUnit.MINUTES);
                ch.runScheduledPendingTasks();
                ch.runPendingTasks();
            }
            if (requests.size() > 1) {
                throw new AssertionError("the request listener was called " + requests.size() + " times");
            }
            CompletableFuture<MpaNegotiation> future = handler.outcome();
            outcome = outcome(future, MpaRole.RESPONDER);
            checkPipeline(ch, outcome);
            checkReadingStopped(ch, tail, outcome);
            outbound = drainOutbound(ch);
            checkReply(outbound, outcome);
            open = ch.isOpen();
        } catch (RuntimeException | Error e) {
            abandon(ch);
            throw e;
        }

        ch.finishAndReleaseAll();
        releaseQueued(ch);
        memory.assertAllReleased("a responder startup of " + stream.length + " octets");
        if (!handler.outcome().isDone()) {
            throw new AssertionError("the outcome is still pending after the channel closed");
        }
        outcome(handler.outcome(), MpaRole.RESPONDER);
        boolean streaming = !settings.closeOnReject() && (mode == 2 || outcome.contains("MARKERS_REFUSED")
                || outcome.contains("INVALID_ENHANCED_FRAME"));
        List<String> errors = checkTail(tail, outcome, streaming);
        return new Run(outcome, outbound, tail.messages, errors, open);
    }

    private static void decide(MpaResponderDecision decision, int mode, boolean twice, byte[] replyData, int ird,
            int ord) {
        for (int i = 0; i < (twice ? 2 : 1); i++) {
            switch (i == 0 ? mode : 3 - mode) {
                case 0 -> decision.accept(new byte[0]);
                case 1 -> decision.accept(replyData, ird, ord);
                case 2 -> decision.reject(replyData);
                default -> {
                }
            }
        }
    }

    /** A responder sends at most its Reply: the Reply key, then exactly 20 + PD_Length octets. */
    static void checkReply(byte[] outbound, String outcome) {
        if (outbound.length == 0) {
            return;
        }
        if (outbound.length < MpaStartupFrameCodec.HEADER_LENGTH
                || !Arrays.equals(Arrays.copyOf(outbound, 16), REPLY_KEY)) {
            throw new AssertionError("the responder sent " + hex(outbound) + ", not an MPA Reply (" + outcome + ")");
        }
        int pdLength = (outbound[18] & 0xFF) << 8 | (outbound[19] & 0xFF);
        if (outbound.length != MpaStartupFrameCodec.HEADER_LENGTH + pdLength || pdLength > 512) {
            throw new AssertionError("the responder's Reply " + hex(outbound) + " is not one frame of PD_Length "
                    + pdLength);
        }
    }

    // ---- initiator ----

    /**
     * An initiator whose Request went out, fed an arbitrary Reply and whatever follows. Input: the
     * settings octet ({@link #settings}), the depths octet (bits 0-3 IRD, bits 4-7 ORD), the options octet
     * (bits 0-1 buffer style, bits 2-3 {@link Memory} kind, bit 4 let every timer expire at the end, bits
     * 5-7 the Request's private data length in 9-octet steps), the read pattern, then the stream.
     */
    @FuzzTest(maxDuration = "60s")
    void initiator(byte[] data) {
        if (data.length > FuzzSupport.MAX_INPUT) {
            return;
        }
        Input in = new Input(data);
        MpaSettings settings = settings(in.u8());
        int depths = in.u8();
        int options = in.u8();
        int chunkSpec = in.u8();
        byte[] stream = in.rest();
        int ird = depths & 0x0F;
        int ord = depths >>> 4;
        if (settings.peerToPeer() == PeerToPeerMode.READ && ord == 0) {
            ord = 1; // a Read RTR needs ORD 1 (documented IllegalArgumentException otherwise)
        }
        byte[] privateData = new byte[Math.min((options >>> 5) * 9, settings.maxApplicationPrivateDataLength())];
        Arrays.fill(privateData, (byte) 0x17);
        BufferStyle style = BufferStyle.of(options);
        int memoryKind = options >>> 2;
        boolean expire = (options & 0x10) != 0;

        Run chunked = initiate(settings, ird, ord, privateData, stream, chunkSpec, style, memoryKind, expire);
        Run whole = initiate(settings, ird, ord, privateData, stream, 0, BufferStyle.DIRECT, 0, expire);
        assertSameRun(chunked, whole);
    }

    static Run initiate(MpaSettings settings, int ird, int ord, byte[] privateData, byte[] stream, int chunkSpec,
            BufferStyle style, int memoryKind, boolean expire) {
        Memory memory = Memory.of(memoryKind);
        EmbeddedChannel ch = channel(memory.alloc);
        MpaStartupHandler handler = MpaStartupHandler.initiator(settings, ird, ord, privateData);
        Tail tail = new Tail();
        ch.pipeline().addLast(PipelineNames.MPA_STARTUP, handler).addLast(tail);
        register(ch);
        ch.freezeTime();
        String outcome;
        byte[] outbound;
        boolean open;
        try {
            byte[] request = drainOutbound(ch);
            if (request.length < MpaStartupFrameCodec.HEADER_LENGTH
                    || !Arrays.equals(Arrays.copyOf(request, 16), REQUEST_KEY)) {
                throw new AssertionError("the initiator sent " + hex(request) + ", not an MPA Request");
            }
            feed(ch, buffers(memory.alloc, stream, chunkSpec, style));
            if (expire) {
                ch.advanceTimeBy(10, TimeUnit.MINUTES);
                ch.runScheduledPendingTasks();
                ch.runPendingTasks();
            }
            outcome = outcome(handler.outcome(), MpaRole.INITIATOR);
            checkPipeline(ch, outcome);
            checkReadingStopped(ch, tail, outcome);
            outbound = drainOutbound(ch);
            if (outbound.length != 0) {
                throw new AssertionError("the initiator sent " + hex(outbound) + " after its Request (" + outcome + ")");
            }
            open = ch.isOpen();
        } catch (RuntimeException | Error e) {
            abandon(ch);
            throw e;
        }

        ch.finishAndReleaseAll();
        releaseQueued(ch);
        memory.assertAllReleased("an initiator startup with " + stream.length + " octets received");
        if (!handler.outcome().isDone()) {
            throw new AssertionError("the outcome is still pending after the channel closed");
        }
        outcome(handler.outcome(), MpaRole.INITIATOR);
        boolean streaming = !settings.closeOnReject() && outcome.contains("REJECTED_BY_PEER");
        List<String> errors = checkTail(tail, outcome, streaming);
        return new Run(outcome, outbound, tail.messages, errors, open);
    }

    // ---- the frame codec ----

    /**
     * {@code MpaStartupFrameCodec} on arbitrary octets, the harness keeping its documented precondition
     * (the whole frame is readable before {@code decode}). Input: the options octet (bit 0 Reply, bits 1-3
     * octets of something else before the frame), then the frame. A decoded frame must encode back to the
     * same octets.
     */
    @FuzzTest(maxDuration = "30s")
    void frameCodec(byte[] data) {
        if (data.length > FuzzSupport.MAX_INPUT) {
            return;
        }
        Input in = new Input(data);
        int options = in.u8();
        MpaStartupFrame.Type type = (options & 1) != 0 ? MpaStartupFrame.Type.REPLY : MpaStartupFrame.Type.REQUEST;
        int offset = (options >>> 1) & 7;
        byte[] frame = in.rest();
        byte[] framed = new byte[offset + frame.length];
        Arrays.fill(framed, 0, offset, (byte) 0xEE);
        System.arraycopy(frame, 0, framed, offset, frame.length);
        // Exactly as large as the octets: a read past them throws.
        ByteBuf buf = Unpooled.wrappedBuffer(framed);
        buf.readerIndex(offset);
        int available = frame.length;

        int mismatch = MpaStartupFrameCodec.keyMismatchIndex(buf, offset, available, type);
        if (mismatch < -1 || mismatch >= Math.min(available, 16)) {
            throw new AssertionError("keyMismatchIndex " + mismatch + " for " + available + " octets");
        }
        MpaStartupFrameCodec.describe(buf, offset);
        if (available < MpaStartupFrameCodec.HEADER_LENGTH) {
            return;
        }
        int pdLength = MpaStartupFrameCodec.privateDataLength(buf, offset);
        if (available < MpaStartupFrameCodec.HEADER_LENGTH + pdLength) {
            return;
        }
        MpaStartupFrame decoded;
        try {
            decoded = MpaStartupFrameCodec.decode(buf, offset, type);
        } catch (IllegalArgumentException e) {
            if (pdLength > MpaStartupFrameCodec.MAX_PRIVATE_DATA_LENGTH) {
                return; // MpaStartupFrame documents it: at most 512 octets of private data (RFC 5044 §7.1.1)
            }
            throw e;
        }
        if (pdLength > MpaStartupFrameCodec.MAX_PRIVATE_DATA_LENGTH) {
            throw new AssertionError("decoded a frame with PD_Length " + pdLength + " above 512: " + decoded);
        }
        ByteBuf again = Unpooled.buffer();
        MpaStartupFrameCodec.encode(decoded, again);
        byte[] original = Arrays.copyOfRange(frame, 0, MpaStartupFrameCodec.HEADER_LENGTH + pdLength);
        byte[] reencoded = new byte[again.readableBytes()];
        again.readBytes(reencoded);
        boolean keyMatches = mismatch == -1;
        if (keyMatches && !Arrays.equals(original, reencoded)) {
            throw new AssertionError("decode/encode changed the frame: " + hex(original) + " -> " + hex(reencoded));
        }
        if (!Arrays.equals(Arrays.copyOfRange(original, 16, original.length),
                Arrays.copyOfRange(reencoded, 16, reencoded.length))) {
            throw new AssertionError("decode/encode changed the fields: " + hex(original) + " -> " + hex(reencoded));
        }
        if (decoded.encodedLength() != original.length || !decoded.equals(MpaStartupFrameCodec.decode(buf, offset,
                type)) || decoded.hashCode() != MpaStartupFrameCodec.decode(buf, offset, type).hashCode()) {
            throw new AssertionError("inconsistent frame " + decoded);
        }
        decoded.toString();
        byte[] application = decoded.applicationPrivateData();
        try {
            IrdOrdHeader block = decoded.irdOrd();
            if (!decoded.enhanced() || application.length != pdLength - IrdOrdHeader.LENGTH) {
                throw new AssertionError("irdOrd() " + block + " of a frame that is not enhanced: " + decoded);
            }
        } catch (IllegalStateException e) {
            if (decoded.enhanced() && pdLength >= IrdOrdHeader.LENGTH) {
                throw new AssertionError("no IRD/ORD block in an enhanced frame " + decoded, e);
            }
        }
    }
}
