package io.softrdma.rsocket;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.util.ReferenceCountUtil;
import io.rsocket.DuplexConnection;
import io.rsocket.RSocketErrorException;
import io.rsocket.exceptions.ConnectionErrorException;
import io.rsocket.frame.ErrorFrameCodec;
import io.rsocket.frame.FrameHeaderCodec;
import io.rsocket.frame.FrameType;
import io.rsocket.frame.SetupFrameCodec;
import io.rsocket.internal.UnboundedProcessor;
import io.softrdma.ConnectionClosedException;
import io.softrdma.reactive.RdmaSession;
import java.net.SocketAddress;
import java.nio.channels.ClosedChannelException;
import java.util.concurrent.CancellationException;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;

/**
 * One RSocket connection on one {@link RdmaSession}: each frame is one SoftRDMA message (docs/rsocket.md), sent
 * only with a credit from the peer; a frame above the negotiated inline threshold is lent by registration and
 * fetched by the peer with an RDMA Read. RSocket's length prefix is not needed: a message has its length.
 *
 * <p>Outbound frames queue in RSocket's own {@link UnboundedProcessor}, as its TCP transport's do (stream 0 —
 * keepalive, lease, errors — ahead of the rest); the session takes them as fast as credits allow and releases
 * each once it is on its way. Inbound frames are the transport's, valid while RSocket's {@code onNext} runs
 * (RSocket retains what it keeps, as over Reactor Netty), each in memory of its own ({@link InboundFrames}), so what
 * RSocket or the application keeps never holds a receive buffer. RSocket subscribes to {@link #receive()} with
 * unbounded demand, so the peer's credits follow how fast RSocket takes frames off the event loop; REQUEST_N
 * stays RSocket's business above.
 *
 * <p>How it ends: {@link #onClose()} completes once the session has ended, whatever ended it, as the channel's
 * close future does under RSocket's TCP transport. RSocket 1.1.5 subscribes to {@code onClose()} without an error
 * handler (RSocketServer for every connection; ClientSetup, ClientRSocketSession and ServerRSocketSession for
 * resumable ones), so an error there would reach only Reactor's onErrorDropped hook, logged as
 * ErrorCallbackNotImplemented for every lost connection. Nor would it reach the streams: RSocket fails them with a
 * bare {@link ClosedChannelException} whatever {@code onClose()} says. So on a connection that is not resumable, a
 * lost connection or a Terminate — SoftRDMA's typed error, {@link ConnectionClosedException} or
 * {@link io.softrdma.rdmap.TerminateException} — is delivered as RSocket delivers a peer's: a stream-0
 * CONNECTION_ERROR frame, whose {@link ConnectionErrorException} every stream then sees; then {@link #receive()}
 * ends with a ClosedChannelException caused by the typed error. A resumable connection (SETUP with the resume
 * flag, or RESUME) gets no such frame: RSocket resumes instead.
 *
 * <p>Thread safety: {@link #sendFrame} and the lifecycle methods may be called from any thread.
 */
final class RdmaDuplexConnection implements DuplexConnection {
    /** How long a closing connection may take to send the frames queued before it closed. */
    static final java.time.Duration FLUSH_ON_CLOSE = java.time.Duration.ofSeconds(5);
    private final String side;
    private final RdmaSession session;
    private final UnboundedProcessor sender = new UnboundedProcessor();
    private final Mono<Void> onClose;
    /** Whether the first frame either way asked for resumption; decided once, by the first frame seen. */
    private volatile Boolean resumable;

    RdmaDuplexConnection(String side, RdmaSession session) {
        this.side = side;
        this.session = session;
        // One subscription to the session's end, never cancelled, told to everyone through a sink: a cancelled
        // subscriber of RdmaSession.onDispose() gets the session's error dropped on Reactor's onErrorDropped hook
        // when the session later fails (its Mono.fromFuture(..., suppressCancel)), and RSocket cancels its
        // subscriptions to onClose() routinely (ServerSetup's setup timeout races onClose()).
        Sinks.Empty<Void> ended = Sinks.empty();
        session.onDispose().subscribe(null, null, ended::tryEmitEmpty);
        this.onClose = ended.asMono();
        // The session ends when the sender does (sendErrorAndClose) or fails; a session that ends first cancels
        // the sender, which releases whatever was still queued, and every later frame on arrival.
        session.send(sender).subscribe(null, e -> session.dispose(), session::dispose);
    }

    RdmaSession session() {
        return session;
    }

    /**
     * Frames RSocket has handed over and the session has not yet taken: the only queue here that RSocket's
     * REQUEST_N, not SoftRDMA's credits, bounds (a racy snapshot, for tests and diagnostics).
     */
    int framesQueued() {
        return sender.size();
    }

    @Override
    public void sendFrame(int streamId, ByteBuf frame) {
        noteFirst(frame);
        if (streamId == 0) {
            sender.tryEmitPrioritized(frame);
        } else {
            sender.tryEmitNormal(frame);
        }
    }

    /**
     * Queues the ERROR frame behind what is queued already, then ends the frames.
     *
     * <p>Why not {@code tryEmitFinal}, as RSocket's TCP transport does: in RSocket 1.1.5 a final frame emitted while
     * the subscriber has no outstanding demand is lost for good. The drain that finds no demand clears the
     * processor's "has a value" mark, since it looks only at its queues and not at the final frame held beside them,
     * and the request that comes later then sees nothing to drain. The session's sender asks for frames a window
     * at a time, as credits allow, so no demand is an ordinary moment here (right after the first frame, or with
     * the peer's credits used up). The lost frame left the connection open with nothing more to send, and its
     * {@link #onClose()} never completed. A frame in the queue is not lost this way.
     */
    @Override
    public void sendErrorAndClose(RSocketErrorException e) {
        if (sender.tryEmitNormal(ErrorFrameCodec.encode(alloc(), 0, e))) {
            sender.onComplete();
        }
    }

    /**
     * The peer's frames, each RSocket's to retain or not while its {@code onNext} runs and released when it returns
     * ({@link InboundFrames}: copied out of the receive buffer if it came inline); then the end, as
     * {@link #ended} says.
     */
    @Override
    public Flux<ByteBuf> receive() {
        return new InboundFrames(session.receive(), alloc(), session.rpcRdma().receiveInlineThreshold())
                .doOnNext(this::noteFirst).onErrorResume(this::ended);
    }

    /** The end of the inbound frames: RSocket's contract says a ClosedChannelException, after the reason. */
    private Flux<ByteBuf> ended(Throwable cause) {
        ClosedChannelException closed = new ClosedChannelException();
        if (!(cause instanceof CancellationException)) {
            closed.initCause(cause);
        }
        if (cause instanceof CancellationException || Boolean.TRUE.equals(resumable)) {
            return Flux.error(closed);
        }
        ConnectionErrorException reason = new ConnectionErrorException(describe(cause));
        // Inbound frames are the transport's to release once RSocket's onNext returns (RSocket retains what it
        // keeps), so this one is released when its Mono ends: after onNext, or on a cancel before it.
        return Flux.using(() -> ErrorFrameCodec.encode(alloc(), 0, reason), Mono::just, ReferenceCountUtil::release)
                .concatWith(Mono.error(closed));
    }

    static String describe(Throwable cause) {
        String what = cause instanceof ConnectionClosedException ? "the RDMA connection was lost"
                : "the RDMA connection ended with " + cause.getClass().getSimpleName();
        return what + ": " + cause.getMessage();
    }

    private void noteFirst(ByteBuf frame) {
        if (resumable == null) {
            FrameType type = FrameHeaderCodec.frameType(frame);
            resumable = type == FrameType.RESUME || (type == FrameType.SETUP && SetupFrameCodec.resumeEnabled(frame));
        }
    }

    @Override
    public ByteBufAllocator alloc() {
        return session.connection().channel().alloc();
    }

    @Override
    public SocketAddress remoteAddress() {
        return session.connection().remoteAddress();
    }

    @Override
    public Mono<Void> onClose() {
        return onClose;
    }

    /**
     * Closes gracefully: frames already queued are sent, then the connection closes (RFC 5040 §5.5). A peer that
     * grants no credit for them within {@link #FLUSH_ON_CLOSE} does not hold the connection open: it is closed
     * then, and what was queued is released.
     */
    @Override
    public void dispose() {
        sender.onComplete();
        Mono.delay(FLUSH_ON_CLOSE).takeUntilOther(session.onDispose())
                .subscribe(t -> session.connection().channel().close());
    }

    @Override
    public boolean isDisposed() {
        return session.isDisposed();
    }

    @Override
    public String toString() {
        return "RdmaDuplexConnection{side=" + side + ", " + session + "}";
    }
}
