package io.softrdma.rsocket;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
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

/**
 * One RSocket connection on one {@link RdmaSession}: each frame is one SoftRDMA message (docs/rsocket.md), sent
 * only with a credit from the peer; a frame above the negotiated inline threshold is lent by registration and
 * fetched by the peer with an RDMA Read. RSocket's length prefix is not needed: a message has its length.
 *
 * <p>Outbound frames queue in RSocket's own {@link UnboundedProcessor}, as its TCP transport's do (stream 0 —
 * keepalive, lease, errors — ahead of the rest); the session takes them as fast as credits allow and releases
 * each once it is on its way. Inbound frames are the library's, valid while RSocket's {@code onNext} runs
 * (RSocket retains what it keeps, as over Reactor Netty). RSocket subscribes to {@link #receive()} with
 * unbounded demand, so the peer's credits follow how fast RSocket takes frames off the event loop; REQUEST_N
 * stays RSocket's business above.
 *
 * <p>How it ends: a close by either side completes {@link #onClose()}; a lost connection or a Terminate fails it
 * with SoftRDMA's typed error ({@link ConnectionClosedException}, {@link io.softrdma.rdmap.TerminateException}).
 * RSocket 1.1.5 fails in-flight streams with a bare {@link ClosedChannelException} whatever {@code onClose}
 * says, so on a connection that is not resumable the reason is also delivered as RSocket delivers a peer's:
 * a stream-0 CONNECTION_ERROR frame, whose {@link ConnectionErrorException} every stream then sees. A
 * resumable connection (SETUP with the resume flag, or RESUME) gets no such frame: RSocket resumes instead.
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
        this.onClose = session.onTermination();
        // The session ends when the sender does (sendErrorAndClose) or fails; a session that ends first cancels
        // the sender, which releases whatever was still queued, and every later frame on arrival.
        session.send(sender).subscribe(null, e -> session.dispose(), session::dispose);
    }

    RdmaSession session() {
        return session;
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

    @Override
    public void sendErrorAndClose(RSocketErrorException e) {
        sender.tryEmitFinal(ErrorFrameCodec.encode(alloc(), 0, e));
    }

    @Override
    public Flux<ByteBuf> receive() {
        return session.receive().doOnNext(this::noteFirst).onErrorResume(this::ended);
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
        // Released once RSocket's onNext has returned, as the session's frames are (RSocket keeps none it did not
        // retain), or on a cancel before it was delivered.
        return Flux.using(() -> ErrorFrameCodec.encode(alloc(), 0, reason), Flux::just, ByteBuf::release, false)
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
