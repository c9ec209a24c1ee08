package io.softrdma.internal.mpa;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.ChannelPromise;
import io.netty.handler.codec.ByteToMessageDecoder;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.ScheduledFuture;
import io.netty.util.internal.logging.InternalLogger;
import io.netty.util.internal.logging.InternalLoggerFactory;
import io.softrdma.internal.transport.PipelineNames;
import io.softrdma.internal.transport.TcpMss;
import io.softrdma.mpa.IrdOrdHeader;
import io.softrdma.mpa.LlpErrorCode;
import io.softrdma.mpa.MpaNegotiation;
import io.softrdma.mpa.MpaRejectedException;
import io.softrdma.mpa.MpaRole;
import io.softrdma.mpa.MpaSettings;
import io.softrdma.mpa.MpaStartupException.Reason;
import io.softrdma.mpa.MpaStartupException;
import io.softrdma.mpa.MpaStartupFrame;
import io.softrdma.mpa.PeerToPeerMode;
import io.softrdma.mpa.ReadyToReceive;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Runs the MPA startup phase of RFC 5044 §7.1 on one connection, then installs the FPDU codec in its
 * own place and removes itself.
 *
 * <p>Initiator (§7.1.2 rules 1 and 3): sends the MPA Request as soon as the channel is active (or at
 * once, when added to an active channel after some streaming-mode exchange), waits at most
 * {@link MpaSettings#replyTimeout()} for the Reply, validates it and enters full operation.
 *
 * <p>Responder (§7.1.2 rules 2, 4 and 6): waits at most {@link MpaSettings#requestTimeout()} for the
 * Request, hands it to the {@link MpaRequestListener}, and on its decision sends the Reply (R = 0, or
 * R = 1 with the consumer's private data, after which the connection is closed). Its encoder holds
 * every FPDU back until the first FPDU from the initiator has been validated.
 *
 * <p>A wrong key, an unsupported revision, a PD_Length above the cap, a truncated frame or a timeout
 * closes the connection and fails {@link #outcome()} with an {@link MpaStartupException} naming the
 * problem (§7.1.1, §7.1.2 rules 5, 8, 9, 10). Octets that follow a startup frame in the same read are
 * the start of the full operation phase and are handed to the {@link FpduDecoder}, not dropped.
 *
 * <p>On success it fires an {@link MpaEstablishedEvent} and completes {@link #outcome()}, in that
 * order, before any ULPDU is passed on. Writes from the layers above before that fail: no octet may
 * precede the startup frames, and there is no FPDU framing yet.
 *
 * <p>Thread safety: a channel handler; all state lives on the channel's event loop. Only
 * {@link MpaResponderDecision}'s methods may be called from other threads.
 *
 * <p>Why this class is long: it is the whole MPA startup of RFC 5044 §7.1 and RFC 6581 for both roles, one state
 * machine whose timeouts, octet-by-octet validation and hand-over to the FPDU codecs must be read together.
 */
public final class MpaStartupHandler extends ChannelDuplexHandler {
    private static final InternalLogger logger = InternalLoggerFactory.getInstance(MpaStartupHandler.class);

    /**
     * How long a refused stream (RFC 6581 §5: insufficient IRD, no matching RTR) stays open for the
     * layer above to send its Terminate before it is closed anyway.
     */
    public static final Duration REFUSAL_LINGER = Duration.ofSeconds(2);

    /** Octets buffered while the consumer decides before reading pauses: one maximal FPDU. */
    private static final int MAX_EARLY_OCTETS = 64 * 1024;

    private enum State {
        AWAIT_ACTIVE, AWAIT_MPA_REQUEST, AWAIT_DECISION, AWAIT_MPA_REPLY, RDMA_MODE, CLOSED
    }

    private final MpaRole role;
    private final MpaSettings settings;
    private final MpaStartupFrame request;
    private final MpaRequestListener listener;
    /** The initiator's IRD and ORD, as offered in an enhanced Request. */
    private final int localIrd;
    private final int localOrd;
    private final CompletableFuture<MpaNegotiation> outcome = new CompletableFuture<>();

    private ChannelHandlerContext ctx;
    private State state = State.AWAIT_ACTIVE;
    private ByteBuf cumulation;
    private ScheduledFuture<?> timer;
    private volatile MpaStartupFrame peerRequest;
    private boolean readingPaused;
    private boolean inChannelRead;

    private MpaStartupHandler(MpaRole role, MpaSettings settings, MpaStartupFrame request,
            MpaRequestListener listener, int localIrd, int localOrd) {
        this.role = role;
        this.localIrd = localIrd;
        this.localOrd = localOrd;
        this.settings = settings;
        this.request = request;
        this.listener = listener;
    }

    /**
     * An initiator that sends {@code privateData} in its Request.
     *
     * @throws IllegalArgumentException if the private data exceeds {@link MpaSettings#maxPrivateDataLength()}
     */
    public static MpaStartupHandler initiator(MpaSettings settings, byte[] privateData) {
        return initiator(settings, IrdOrdHeader.LINUX_MAX_DEPTH, IrdOrdHeader.LINUX_MAX_DEPTH, privateData);
    }

    /**
     * An initiator that offers {@code ird} and {@code ord} (with revision 2; RFC 6581 §5) and sends
     * {@code privateData} after them. The queue pair bound to the stream must be able to take
     * {@code ird} inbound Reads: {@link io.softrdma.cm.ConnectionManager} passes the queue pair's own.
     *
     * @throws IllegalArgumentException if the private data does not fit, IRD or ORD are outside
     *     0..16383, or only a Read RTR is offered with ORD 0
     */
    public static MpaStartupHandler initiator(MpaSettings settings, int ird, int ord, byte[] privateData) {
        Objects.requireNonNull(settings, "settings");
        Objects.requireNonNull(privateData, "privateData");
        settings.checkOutgoingPrivateData(privateData, settings.revision() == MpaSettings.REVISION_2);
        IrdOrdHeader.of(ird, ord); // validates both, whatever the revision
        MpaStartupFrame request;
        if (settings.revision() == MpaSettings.REVISION_2) {
            PeerToPeerMode p2p = settings.peerToPeer();
            boolean offer = p2p != PeerToPeerMode.OFF;
            if (offer && !p2p.write() && ord == 0) {
                throw new IllegalArgumentException("a zero-length RDMA Read as RTR needs ORD of at least 1"
                        + " (RFC 6581 §5); raise the queue pair's ORD or offer WRITE");
            }
            // With ORD 0 a Read RTR cannot be sent: offer only the Write then.
            IrdOrdHeader block = new IrdOrdHeader(offer, false, ird, offer && p2p.write(),
                    offer && p2p.read() && ord > 0, ord);
            request = MpaStartupFrame.of(MpaStartupFrame.Type.REQUEST, settings.markers(), settings.crc(), false,
                    MpaStartupFrameCodec.FLAG_ENHANCED, MpaSettings.REVISION_2, block.prependTo(privateData));
        } else {
            request = MpaStartupFrame.request(settings.markers(), settings.crc(), settings.revision(), privateData);
        }
        return new MpaStartupHandler(MpaRole.INITIATOR, settings, request, null, ird, ord);
    }

    /** A responder whose consumer {@code listener} accepts or rejects each Request. */
    public static MpaStartupHandler responder(MpaSettings settings, MpaRequestListener listener) {
        Objects.requireNonNull(settings, "settings");
        Objects.requireNonNull(listener, "listener");
        return new MpaStartupHandler(MpaRole.RESPONDER, settings, null, listener, 0, 0);
    }

    public MpaRole role() {
        return role;
    }

    /**
     * Completes with the negotiation when full operation begins, or exceptionally with an
     * {@link MpaStartupException}. Dependent stages run on the event loop unless made async.
     */
    public CompletableFuture<MpaNegotiation> outcome() {
        return outcome.copy();
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        this.ctx = ctx;
        if (ctx.channel().isActive()) {
            start();
        }
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) throws Exception {
        start();
        super.channelActive(ctx);
    }

    private void start() {
        if (state != State.AWAIT_ACTIVE) {
            return;
        }
        if (role == MpaRole.INITIATOR) {
            state = State.AWAIT_MPA_REPLY;
            timer = schedule(settings.replyTimeout());
            ByteBuf frame = ctx.alloc().buffer(request.encodedLength());
            MpaStartupFrameCodec.encode(request, frame);
            ctx.writeAndFlush(frame).addListener((ChannelFutureListener) f -> {
                if (!f.isSuccess()) {
                    fail(Reason.CONNECTION_CLOSED, "could not send the MPA Request: " + f.cause(), f.cause(), true);
                }
            });
        } else {
            state = State.AWAIT_MPA_REQUEST;
            timer = schedule(settings.requestTimeout());
        }
    }

    @Override
    public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
        if (state == State.RDMA_MODE) {
            ctx.write(msg, promise);
            return;
        }
        ReferenceCountUtil.release(msg);
        promise.tryFailure(new IllegalStateException("the MPA startup is not complete: write ULPDUs after the"
                + " MpaEstablishedEvent (RFC 5044 §7.1.2)"));
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (!(msg instanceof ByteBuf in)) {
            ctx.fireChannelRead(msg);
            return;
        }
        if (state == State.CLOSED || state == State.RDMA_MODE) {
            in.release();
            return;
        }
        cumulation = cumulation == null ? in
                : ByteToMessageDecoder.MERGE_CUMULATOR.cumulate(ctx.alloc(), cumulation, in);
        inChannelRead = true;
        try {
            process();
        } finally {
            inChannelRead = false;
        }
    }

    private void process() {
        switch (state) {
            case AWAIT_MPA_REQUEST -> parse(MpaStartupFrame.Type.REQUEST);
            case AWAIT_MPA_REPLY -> parse(MpaStartupFrame.Type.REPLY);
            case AWAIT_DECISION -> pauseIfTooManyEarlyOctets();
            default -> {
            }
        }
    }

    private void parse(MpaStartupFrame.Type type) {
        ByteBuf buf = cumulation;
        int offset = buf.readerIndex();
        int available = buf.readableBytes();
        int mismatch = MpaStartupFrameCodec.keyMismatchIndex(buf, offset, available, type);
        if (mismatch >= 0) {
            failKey(type, buf, offset, available, mismatch);
            return;
        }
        if (available < MpaStartupFrameCodec.HEADER_LENGTH) {
            return;
        }
        int revision = MpaStartupFrameCodec.revision(buf, offset);
        if (type == MpaStartupFrame.Type.REPLY) {
            // RFC 6581 §5: a responder that speaks only revision 1 answers a revision 2 Request with 1.
            if (revision != request.revision() && !(revision == MpaSettings.REVISION_1
                    && request.revision() == MpaSettings.REVISION_2)) {
                fail(Reason.UNSUPPORTED_REVISION, "MPA Reply has Rev " + revision + "; this endpoint requested"
                        + " revision " + request.revision() + " (RFC 5044 §7.1.1 Rev, RFC 6581 §5)", null, true);
                return;
            }
        } else if (revision != MpaSettings.REVISION_1 && revision != MpaSettings.REVISION_2) {
            fail(Reason.UNSUPPORTED_REVISION, "MPA Request has Rev " + revision + "; this endpoint speaks revisions 1"
                    + " and 2 (RFC 5044 §7.1.1 Rev, RFC 6581 §5)", null, true);
            return;
        }
        int privateDataLength = MpaStartupFrameCodec.privateDataLength(buf, offset);
        if (privateDataLength > settings.maxPrivateDataLength()) {
            fail(Reason.PRIVATE_DATA_TOO_LONG, "MPA " + name(type) + " has PD_Length " + privateDataLength
                    + ", above the maximum of " + settings.maxPrivateDataLength()
                    + " octets (MpaSettings.maxPrivateDataLength; RFC 5044 §7.1.1 allows 512)", null, true);
            return;
        }
        if (available < MpaStartupFrameCodec.HEADER_LENGTH + privateDataLength) {
            return;
        }
        MpaStartupFrame frame = MpaStartupFrameCodec.decode(buf, offset, type);
        buf.skipBytes(frame.encodedLength());
        logger.debug("{} received {}", ctx.channel(), frame);
        if (type == MpaStartupFrame.Type.REQUEST) {
            onRequest(frame);
        } else {
            onReply(frame);
        }
    }

    private void failKey(MpaStartupFrame.Type type, ByteBuf buf, int offset, int available, int mismatch) {
        MpaStartupFrame.Type other = type == MpaStartupFrame.Type.REQUEST ? MpaStartupFrame.Type.REPLY
                : MpaStartupFrame.Type.REQUEST;
        // The two keys differ first at the octet that diverged from the expected one: judge by the octets up to
        // it, and no further, so that the reason does not depend on how TCP cut the stream (found by fuzzing).
        if (MpaStartupFrameCodec.keyMismatchIndex(buf, offset, mismatch + 1, other) < 0) {
            if (role == MpaRole.INITIATOR) {
                fail(Reason.BOTH_INITIATORS, "received an MPA Request where the Reply was due: both ends started"
                        + " as initiator (RFC 5044 §7.1.2 rule 8)", null, true);
            } else {
                fail(Reason.UNEXPECTED_REPLY, "received an MPA Reply where the Request was due: both ends started"
                        + " as responder (RFC 5044 §7.1.2 rule 8)", null, true);
            }
            return;
        }
        byte expected = MpaStartupFrameCodec.keyUnsafe(type)[mismatch];
        int received = buf.getUnsignedByte(offset + mismatch);
        fail(Reason.BAD_KEY, String.format("MPA %s key mismatch at octet %d: expected 0x%02x ('%c'), received 0x%02x"
                + " (RFC 5044 §7.1.1 Key)", name(type), mismatch, expected, (char) expected, received), null, true);
    }

    private static String name(MpaStartupFrame.Type type) {
        return type == MpaStartupFrame.Type.REQUEST ? "Request" : "Reply";
    }

    private void onReply(MpaStartupFrame reply) {
        cancelTimer();
        if (reply.rejected()) {
            // §7.1.2 rule 3: exit MPA, leaving TCP to the consumer (closed unless closeOnReject is off).
            rejected(new MpaRejectedException(reply));
            return;
        }
        if (reply.markers() && settings.refuseMarkers()) {
            fail(Reason.MARKERS_REFUSED, "the responder requires Markers (Reply M=1), which this endpoint refuses"
                    + " (MpaSettings.refuseMarkers)", null, true);
            return;
        }
        if (!request.enhanced()) {
            establish(request, reply, false, localIrd, localOrd, ReadyToReceive.NONE, null, null);
            return;
        }
        IrdOrdHeader offered = request.irdOrd();
        if (reply.revision() == MpaSettings.REVISION_1) {
            // RFC 6581 §5: the responder speaks revision 1; no IRD/ORD, no peer-to-peer mode.
            if (offered.peerToPeer()) {
                establish(request, reply, false, localIrd, localOrd, ReadyToReceive.NONE, LlpErrorCode.NO_MATCHING_RTR,
                        "the responder answered with MPA revision 1, which has no peer-to-peer mode (RFC 6581 §5)");
            } else {
                establish(request, reply, false, localIrd, localOrd, ReadyToReceive.NONE, null, null);
            }
            return;
        }
        if (!reply.enhanced() || reply.privateDataLength() < IrdOrdHeader.LENGTH) {
            // As Linux: an enhanced Request must get an enhanced Reply (siw: "mpa reply error").
            fail(Reason.INVALID_ENHANCED_FRAME, "the MPA Reply to an enhanced Request (Rev 2, flag 0x10) "
                    + (reply.enhanced() ? "has only " + reply.privateDataLength() + " octets of private data, no"
                    + " IRD/ORD block" : "lacks the enhanced flag 0x10") + " (RFC 6581 §5)", null, true);
            return;
        }
        IrdOrdHeader answered = reply.irdOrd();
        int ord = Math.min(localOrd, answered.ird());
        if (answered.ord() > localIrd) {
            establish(request, reply, true, localIrd, ord, ReadyToReceive.NONE, LlpErrorCode.INSUFFICIENT_IRD,
                    "the responder's ORD " + answered.ord() + " exceeds this initiator's IRD " + localIrd
                            + " (RFC 6581 §5)");
            return;
        }
        ReadyToReceive rtr = ReadyToReceive.NONE;
        if (offered.peerToPeer()) {
            if (answered.peerToPeer() && answered.writeRtr() && offered.writeRtr()) {
                rtr = ReadyToReceive.WRITE;
            } else if (answered.peerToPeer() && answered.readRtr() && offered.readRtr()) {
                rtr = ReadyToReceive.READ;
            } else {
                establish(request, reply, true, localIrd, ord, ReadyToReceive.NONE, LlpErrorCode.NO_MATCHING_RTR,
                        "peer-to-peer mode: this initiator offered " + rtrKinds(offered) + ", the responder "
                                + (answered.peerToPeer() ? "chose " + rtrKinds(answered) : "did not agree to it")
                                + " (RFC 6581 §5)");
                return;
            }
        }
        establish(request, reply, true, localIrd, ord, rtr, null, null);
    }

    private static String rtrKinds(IrdOrdHeader h) {
        String kinds = (h.writeRtr() ? "Write " : "") + (h.readRtr() ? "Read " : "") + (h.sendRtr() ? "Send " : "");
        return kinds.isEmpty() ? "no RTR message" : "RTR " + kinds.trim().replace(' ', '/');
    }

    private void onRequest(MpaStartupFrame peer) {
        cancelTimer();
        peerRequest = peer;
        if (peer.markers() && settings.refuseMarkers()) {
            // As Linux siw: answer R=1 with the same revision, then close.
            sendRejectingReply(MpaStartupFrame.reply(false, settings.crc() || peer.crc(), true, replyRevision(peer),
                    new byte[0]));
            rejected(new MpaStartupException(Reason.MARKERS_REFUSED, "the initiator requires Markers (Request M=1),"
                    + " which this endpoint refuses (MpaSettings.refuseMarkers); rejected with R=1"));
            return;
        }
        if (peer.enhanced() && peer.privateDataLength() < IrdOrdHeader.LENGTH) {
            // As Linux: an enhanced Request without its IRD/ORD block is rejected with R=1.
            sendRejectingReply(MpaStartupFrame.reply(false, settings.crc() || peer.crc(), true, peer.revision(),
                    new byte[0]));
            rejected(new MpaStartupException(Reason.INVALID_ENHANCED_FRAME, "the MPA Request is enhanced (Rev 2,"
                    + " flag 0x10) but has only " + peer.privateDataLength() + " octets of private data, no IRD/ORD"
                    + " block (RFC 6581 §5); rejected with R=1"));
            return;
        }
        state = State.AWAIT_DECISION;
        timer = schedule(settings.acceptTimeout());
        pauseIfTooManyEarlyOctets();
        try {
            listener.onRequest(peer, new Decision());
        } catch (Throwable t) {
            fail(Reason.REJECTED_LOCALLY, "the MPA request listener failed: " + t, t, true);
        }
    }

    private void pauseIfTooManyEarlyOctets() {
        if (!readingPaused && cumulation != null && cumulation.readableBytes() > MAX_EARLY_OCTETS) {
            readingPaused = true;
            ctx.channel().config().setAutoRead(false);
        }
    }

    private void accept(byte[] privateData, int ird, int ord) {
        if (state != State.AWAIT_DECISION) {
            return;
        }
        cancelTimer();
        MpaStartupFrame peer = peerRequest;
        int revision = replyRevision(peer);
        MpaStartupFrame reply;
        boolean enhanced = revision == MpaSettings.REVISION_2 && peer.enhanced();
        ReadyToReceive rtr = ReadyToReceive.NONE;
        if (enhanced) {
            IrdOrdHeader offered = peer.irdOrd();
            boolean canAnswerRead = ird > 0;
            // RFC 6581 §5: this responder's ORD may not exceed the initiator's IRD; as Linux, IRD is cut to
            // the initiator's ORD too, which is all the initiator will use.
            ord = Math.min(ord, offered.ird());
            ird = Math.min(ird, offered.ord());
            if (offered.peerToPeer()) {
                rtr = chooseRtr(offered, canAnswerRead);
                if (rtr == ReadyToReceive.READ) {
                    ird = Math.max(ird, 1);
                }
            }
            IrdOrdHeader answer = new IrdOrdHeader(offered.peerToPeer(), false, ird, rtr == ReadyToReceive.WRITE,
                    rtr == ReadyToReceive.READ, ord);
            reply = MpaStartupFrame.of(MpaStartupFrame.Type.REPLY, settings.markers(), settings.crc() || peer.crc(),
                    false, MpaStartupFrameCodec.FLAG_ENHANCED, revision, answer.prependTo(privateData));
        } else {
            reply = MpaStartupFrame.reply(settings.markers(), settings.crc() || peer.crc(), false, revision,
                    privateData);
        }
        ByteBuf frame = ctx.alloc().buffer(reply.encodedLength());
        MpaStartupFrameCodec.encode(reply, frame);
        ctx.writeAndFlush(frame, ctx.voidPromise());
        establish(peer, reply, enhanced, ird, ord, rtr, null, null);
    }

    /**
     * The RTR message for a peer-to-peer Request (RFC 6581 §5), as Linux picks it: a Write if offered
     * and accepted, else a Read; a Write when nothing was offered. NONE when nothing fits: the Reply
     * then names no RTR message and the initiator terminates with code 0x07.
     */
    private ReadyToReceive chooseRtr(IrdOrdHeader offered, boolean readPossible) {
        PeerToPeerMode accepted = settings.peerToPeer();
        boolean write = accepted.write();
        boolean read = accepted.read() && readPossible;
        if (!offered.writeRtr() && !offered.readRtr()) {
            return write ? ReadyToReceive.WRITE : read ? ReadyToReceive.READ : ReadyToReceive.NONE;
        }
        if (offered.writeRtr() && write) {
            return ReadyToReceive.WRITE;
        }
        if (offered.readRtr() && read) {
            return ReadyToReceive.READ;
        }
        return ReadyToReceive.NONE;
    }

    /**
     * Fails fast, on the caller's thread, when {@code privateData} will not fit the Reply to the
     * Request received: an enhanced Reply leaves the application 4 octets less (RFC 6581 §5).
     *
     * @throws IllegalArgumentException naming the limit
     * @throws IllegalStateException if no Request has been received
     */
    public void checkReplyPrivateData(byte[] privateData) {
        MpaStartupFrame peer = peerRequest;
        if (peer == null) {
            throw new IllegalStateException("no MPA Request has been received yet");
        }
        settings.checkOutgoingPrivateData(privateData,
                replyRevision(peer) == MpaSettings.REVISION_2 && peer.enhanced());
    }

    /** The revision of the Reply: the Request's, unless this endpoint is configured for revision 1 only. */
    private int replyRevision(MpaStartupFrame peer) {
        return Math.min(peer.revision(), settings.revision());
    }

    private void reject(byte[] privateData) {
        if (state != State.AWAIT_DECISION) {
            return;
        }
        cancelTimer();
        MpaStartupFrame peer = peerRequest;
        int revision = replyRevision(peer);
        if (revision == MpaSettings.REVISION_2 && peer.enhanced()) {
            // An enhanced Reply keeps the IRD/ORD block in front, so the application's octets stay apart.
            sendRejectingReply(MpaStartupFrame.of(MpaStartupFrame.Type.REPLY, false, settings.crc() || peer.crc(),
                    true, MpaStartupFrameCodec.FLAG_ENHANCED, revision, IrdOrdHeader.of(0, 0).prependTo(privateData)));
        } else {
            sendRejectingReply(MpaStartupFrame.reply(false, settings.crc() || peer.crc(), true, revision,
                    privateData));
        }
        rejected(new MpaStartupException(Reason.REJECTED_LOCALLY, "the consumer rejected the MPA Request; sent a"
                + " Reply with R=1 and " + privateData.length + " octets of private data"));
    }

    /** Writes a Reply with R = 1; with closeOnReject, the connection closes once it is written. */
    private void sendRejectingReply(MpaStartupFrame reply) {
        ByteBuf frame = ctx.alloc().buffer(reply.encodedLength());
        MpaStartupFrameCodec.encode(reply, frame);
        if (settings.closeOnReject()) {
            ctx.writeAndFlush(frame).addListener(ChannelFutureListener.CLOSE);
        } else {
            ctx.writeAndFlush(frame, ctx.voidPromise());
        }
    }

    /**
     * §7.1.2 rules 2 and 3: after a Reply with R = 1, MPA exits. With closeOnReject the connection is
     * closed (by the initiator at once, by the responder once its Reply is written); without, this
     * handler leaves the pipeline and hands on any octets that followed, in streaming mode.
     */
    private void rejected(MpaStartupException failure) {
        if (settings.closeOnReject()) {
            failWith(failure, role == MpaRole.INITIATOR);
            return;
        }
        ByteBuf leftover = cumulation;
        cumulation = null;
        failWith(failure, false);
        if (readingPaused) {
            readingPaused = false;
            ctx.channel().config().setAutoRead(true);
        }
        ctx.pipeline().remove(this);
        if (leftover != null && leftover.isReadable()) {
            ctx.fireChannelRead(leftover);
        } else {
            ReferenceCountUtil.release(leftover);
        }
    }

    /**
     * Enters full operation. With a {@code refusal}, the frames were valid but settled something this
     * endpoint cannot work with: the codec is installed all the same, so that the layer above can send
     * the Terminate RFC 6581 §5 asks for, and the outcome fails.
     */
    private void establish(MpaStartupFrame req, MpaStartupFrame reply, boolean enhanced, int ird, int ord,
            ReadyToReceive rtr, LlpErrorCode refusal, String refusalReason) {
        boolean initiator = role == MpaRole.INITIATOR;
        boolean markersSent = initiator ? reply.markers() : req.markers();
        boolean markersReceived = initiator ? req.markers() : reply.markers();
        int mulpdu = Math.min(FpduCodec.mulpdu(TcpMss.effectiveMss(ctx.channel()), markersSent),
                settings.maxUlpduLength());
        MpaNegotiation negotiation = new MpaNegotiation(role, reply.revision(), req.crc() || reply.crc(), markersSent,
                markersReceived, mulpdu, enhanced, ird, ord, rtr,
                initiator ? settings.firstFpduProbe() : java.time.Duration.ZERO, req, reply);
        state = State.RDMA_MODE;

        FpduEncoder encoder = FpduEncoder.of(negotiation);
        FpduDecoder decoder = FpduDecoder.of(negotiation);
        if (!initiator) {
            decoder.onFirstFpdu(encoder::releaseHeldWrites);
            decoder.onFailure(encoder::refuseWrites);
        }
        ChannelPipeline pipeline = ctx.pipeline();
        pipeline.addAfter(ctx.name(), PipelineNames.FPDU_DECODER, decoder);
        pipeline.addAfter(ctx.name(), PipelineNames.FPDU_ENCODER, encoder);
        logger.debug("{} MPA established: {}", ctx.channel(), negotiation);

        ByteBuf leftover = cumulation;
        cumulation = null;
        ctx.fireUserEventTriggered(new MpaEstablishedEvent(negotiation, refusal, refusalReason));
        if (refusal == null) {
            outcome.complete(negotiation);
        } else {
            logger.debug("{} MPA startup refused ({}): {}", ctx.channel(), refusal, refusalReason);
            io.netty.channel.Channel channel = ctx.channel();
            channel.eventLoop().schedule(() -> {
                channel.close();
            }, REFUSAL_LINGER.toNanos(), TimeUnit.NANOSECONDS);
            outcome.completeExceptionally(new MpaStartupException(refusal == LlpErrorCode.INSUFFICIENT_IRD
                    ? Reason.INSUFFICIENT_IRD : Reason.NO_MATCHING_RTR, refusalReason + "; refused with a Terminate,"
                    + " Layer 2 EType 0 Code 0x0" + Integer.toHexString(refusal.code()) + ", and closed"));
        }
        if (leftover != null && leftover.isReadable() && ctx.channel().isActive()) {
            // Octets right after the frame are the first FPDUs (§7.1.2 rules 2 and 3).
            ctx.fireChannelRead(leftover);
            if (!inChannelRead) {
                ctx.fireChannelReadComplete();
            }
        } else {
            ReferenceCountUtil.release(leftover);
        }
        if (readingPaused) {
            readingPaused = false;
            // Unless the early octets already failed the stream: then it is not read further (RFC 5044 §8;
            // found by fuzzing).
            if (!decoder.isFailed()) {
                ctx.channel().config().setAutoRead(true);
            }
        }
        pipeline.remove(this);
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) throws Exception {
        if (state != State.RDMA_MODE && state != State.CLOSED) {
            String awaited = state == State.AWAIT_MPA_REPLY ? "MPA Reply"
                    : state == State.AWAIT_MPA_REQUEST ? "MPA Request" : "consumer's decision";
            int partial = cumulation == null ? 0 : cumulation.readableBytes();
            if (partial > 0 && state != State.AWAIT_DECISION) {
                fail(Reason.TRUNCATED_FRAME, "the stream closed after " + partial + " octets of the " + awaited
                        + " (a frame is 20 octets plus PD_Length)", null, false);
            } else {
                fail(Reason.CONNECTION_CLOSED, "the connection closed while waiting for the " + awaited, null, false);
            }
        }
        super.channelInactive(ctx);
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        if (state == State.RDMA_MODE || state == State.CLOSED) {
            ctx.fireExceptionCaught(cause);
            return;
        }
        fail(Reason.CONNECTION_CLOSED, "the connection failed during MPA startup: " + cause, cause, true);
    }

    @Override
    public void handlerRemoved(ChannelHandlerContext ctx) {
        cancelTimer();
        if (state != State.RDMA_MODE && state != State.CLOSED) {
            fail(Reason.CONNECTION_CLOSED, "the MPA startup handler was removed before the startup completed", null,
                    false);
        }
        ReferenceCountUtil.release(cumulation);
        cumulation = null;
    }

    private ScheduledFuture<?> schedule(Duration timeout) {
        State awaited = state;
        return ctx.executor().schedule(() -> onTimeout(awaited, timeout), timeout.toNanos(), TimeUnit.NANOSECONDS);
    }

    private void onTimeout(State awaited, Duration timeout) {
        if (state != awaited) {
            return;
        }
        int received = cumulation == null ? 0 : cumulation.readableBytes();
        switch (awaited) {
            case AWAIT_MPA_REQUEST -> fail(Reason.TIMEOUT, "no complete MPA Request within " + timeout.toMillis()
                    + " ms (MpaSettings.requestTimeout; RFC 5044 §7.1.2 rules 8 and 10); " + received
                    + " octets received", null, true);
            case AWAIT_MPA_REPLY -> fail(Reason.TIMEOUT, "no complete MPA Reply within " + timeout.toMillis()
                    + " ms (MpaSettings.replyTimeout; RFC 5044 §7.1.2 rule 10); " + received + " octets received",
                    null, true);
            case AWAIT_DECISION -> fail(Reason.ACCEPT_TIMEOUT, "the consumer neither accepted nor rejected the MPA"
                    + " Request within " + timeout.toMillis() + " ms (MpaSettings.acceptTimeout)", null, true);
            default -> {
            }
        }
    }

    private void cancelTimer() {
        if (timer != null) {
            timer.cancel(false);
            timer = null;
        }
    }

    private void fail(Reason reason, String message, Throwable cause, boolean close) {
        failWith(cause == null ? new MpaStartupException(reason, message)
                : new MpaStartupException(reason, message, cause), close);
    }

    private void failWith(MpaStartupException failure, boolean close) {
        if (state == State.RDMA_MODE || state == State.CLOSED) {
            return;
        }
        state = State.CLOSED;
        cancelTimer();
        ReferenceCountUtil.release(cumulation);
        cumulation = null;
        logger.debug("{} MPA startup failed ({}): {}", ctx.channel(), failure.reason(), failure.getMessage());
        outcome.completeExceptionally(failure);
        if (close) {
            ctx.close();
        }
    }

    /** The responder's one-shot decision; hops onto the event loop. */
    private final class Decision implements MpaResponderDecision {
        private final AtomicBoolean decided = new AtomicBoolean();

        @Override
        public void accept(byte[] privateData, int ird, int ord) {
            byte[] pd = checkedReply(privateData);
            IrdOrdHeader.of(ird, ord); // validates both
            if (decided.compareAndSet(false, true)) {
                runOnLoop(() -> MpaStartupHandler.this.accept(pd, ird, ord));
            }
        }

        @Override
        public void reject(byte[] privateData) {
            byte[] pd = checkedReply(privateData);
            if (decided.compareAndSet(false, true)) {
                runOnLoop(() -> MpaStartupHandler.this.reject(pd));
            }
        }

        private byte[] checkedReply(byte[] privateData) {
            Objects.requireNonNull(privateData, "privateData");
            checkReplyPrivateData(privateData);
            return privateData.clone();
        }

        private void runOnLoop(Runnable task) {
            if (ctx.executor().inEventLoop()) {
                task.run();
            } else {
                ctx.executor().execute(task);
            }
        }
    }
}
