package io.softrdma.reactive;

import io.netty.channel.ChannelOption;
import io.softrdma.cm.ConnectRequest;
import io.softrdma.cm.RdmaPipeline;
import io.softrdma.cm.StartupLimiter;
import io.softrdma.mpa.MpaSettings;
import io.softrdma.verbs.QueuePairConfig;
import io.softrdma.verbs.RdmaDevice;
import java.time.Duration;
import java.util.Objects;
import java.util.function.Function;
import java.util.function.UnaryOperator;
import org.reactivestreams.Publisher;
import reactor.core.publisher.Mono;
import reactor.netty.DisposableServer;
import reactor.netty.NettyPipeline;
import reactor.netty.tcp.TcpServer;
import reactor.util.Logger;
import reactor.util.Loggers;

/**
 * Accepts RDMA connections over reactor-netty's {@link TcpServer}: each connection runs the MPA
 * startup as responder, gets a queue pair (and a protection domain of its own) when accepted, and is
 * handed to the handler as an {@link RdmaSession}; the session ends when the handler's publisher
 * completes or fails. Immutable: each setter returns a new server.
 *
 * <pre>{@code
 * DisposableRdmaServer server = RdmaServer.create().port(7471)
 *         .handle(session -> session.onDispose())
 *         .bindNow();
 * }</pre>
 *
 * <p>Thread safety: immutable.
 */
public final class RdmaServer {
    /** The port SoftRDMA's samples use. */
    public static final int DEFAULT_PORT = 7471;

    private static final Logger log = Loggers.getLogger(RdmaServer.class);

    private final TcpServer tcp;
    private final RdmaDevice device;
    private final MpaSettings mpa;
    private final UnaryOperator<QueuePairConfig> queuePair;
    private final Function<ConnectRequest, byte[]> accept;
    private final Function<? super RdmaSession, ? extends Publisher<Void>> handler;
    private final MessagingOptions messaging;
    private final RdmaMetricsRecorder metrics;
    private final int maxPendingStartups;
    private final int maxSessions;

    /** Sessions a server holds at once unless told otherwise. */
    public static final int DEFAULT_MAX_SESSIONS = 4096;
    /** Set on a connection once its startup ended: true as a session, false refused by {@link #accept}. */
    private static final io.netty.util.AttributeKey<Boolean> STARTUP = io.netty.util.AttributeKey.valueOf(
            RdmaServer.class, "startup");

    private RdmaServer(TcpServer tcp, RdmaDevice device, MpaSettings mpa, UnaryOperator<QueuePairConfig> queuePair,
            Function<ConnectRequest, byte[]> accept, Function<? super RdmaSession, ? extends Publisher<Void>> handler,
            MessagingOptions messaging, RdmaMetricsRecorder metrics, int maxPendingStartups, int maxSessions) {
        this.maxSessions = maxSessions;
        this.maxPendingStartups = maxPendingStartups;
        this.metrics = metrics;
        this.messaging = messaging;
        this.tcp = tcp;
        this.device = device;
        this.mpa = mpa;
        this.queuePair = queuePair;
        this.accept = accept;
        this.handler = handler;
    }

    /**
     * A server on port 7471 of every interface, MPA revision 2 with CRC on, ORD and IRD 128, accepting
     * every connection with empty private data, whose sessions last until the peer closes them.
     */
    public static RdmaServer create() {
        TcpServer tcp = TcpServer.create().port(DEFAULT_PORT)
                .childOption(ChannelOption.TCP_NODELAY, true)
                // Netty 4.2's default (adaptive) allocator makes every slice of a read buffer an object
                // of its own; the pooled one recycles them, as ConnectionManager's channels do.
                .childOption(ChannelOption.ALLOCATOR, io.netty.buffer.PooledByteBufAllocator.DEFAULT)
                .childOption(ChannelOption.WRITE_BUFFER_WATER_MARK, RdmaPipeline.WATER_MARK)
                .childOption(ChannelOption.RCVBUF_ALLOCATOR, RdmaPipeline.READ_BUFFERS);
        return new RdmaServer(tcp, RdmaDevice.create("reactive-server"), MpaSettings.defaults(), c -> c,
                request -> new byte[0], RdmaSession::onDispose, MessagingOptions.DEFAULTS, RdmaMetricsRecorder.NONE,
                StartupLimiter.DEFAULT_MAX_PENDING, DEFAULT_MAX_SESSIONS);
    }

    public RdmaServer host(String host) {
        return with(tcp.host(Objects.requireNonNull(host, "host")));
    }

    /** The port to bind; 0 picks a free one ({@link DisposableRdmaServer#port()} tells which). */
    public RdmaServer port(int port) {
        return with(tcp.port(port));
    }

    /** MPA options: revision, CRC, Markers, peer-to-peer mode, private data cap, timeouts. */
    public RdmaServer mpa(MpaSettings settings) {
        return new RdmaServer(tcp, device, Objects.requireNonNull(settings, "settings"), queuePair, accept, handler,
                messaging, metrics, maxPendingStartups, maxSessions);
    }

    /** Queue pair sizes and ORD/IRD for each connection, starting from {@link QueuePairConfig#of}'s defaults. */
    public RdmaServer queuePair(UnaryOperator<QueuePairConfig> configure) {
        SessionResources.shape(device, configure);
        return new RdmaServer(tcp, device, mpa, configure, accept, handler, messaging, metrics, maxPendingStartups,
                maxSessions);
    }

    /**
     * Decides on each MPA Request after seeing its private data: returns the Reply's private data to
     * accept, or throws to reject (the exception's message, UTF-8, goes back as the rejection's private
     * data, cut to fit).
     */
    public RdmaServer accept(Function<ConnectRequest, byte[]> decide) {
        return new RdmaServer(tcp, device, mpa, queuePair, Objects.requireNonNull(decide, "decide"), handler,
                messaging, metrics, maxPendingStartups, maxSessions);
    }

    /** What to do with each session; the session is closed when the returned publisher terminates. */
    public RdmaServer handle(Function<? super RdmaSession, ? extends Publisher<Void>> handler) {
        return new RdmaServer(tcp, device, mpa, queuePair, accept, Objects.requireNonNull(handler, "handler"),
                messaging, metrics, maxPendingStartups, maxSessions);
    }

    /** Messaging sizes and remote invalidation ({@link MessagingOptions}, docs/protocol.md). */
    public RdmaServer messaging(MessagingOptions options) {
        return new RdmaServer(tcp, device, mpa, queuePair, accept, handler,
                java.util.Objects.requireNonNull(options, "options"), metrics, maxPendingStartups, maxSessions);
    }

    /**
     * Where the sessions report what they do, for metrics ({@link RdmaMetricsRecorder#NONE} by default); the
     * Spring Boot starter supplies a Micrometer one.
     */
    public RdmaServer metrics(RdmaMetricsRecorder recorder) {
        return new RdmaServer(tcp, device, mpa, queuePair, accept, handler, messaging,
                Objects.requireNonNull(recorder, "recorder"), maxPendingStartups, maxSessions);
    }

    /**
     * The most MPA startups run at once ({@link StartupLimiter}, 1024 by default): connections beyond it are
     * closed as they arrive, so that connections that never finish their startup hold at most this many, each for
     * at most the MPA Request timeout.
     */
    public RdmaServer maxPendingStartups(int max) {
        new StartupLimiter(max); // validates, naming the rule
        return new RdmaServer(tcp, device, mpa, queuePair, accept, handler, messaging, metrics, max, maxSessions);
    }

    /**
     * The most sessions open at once (4096 by default): each holds its receive buffers and send slots (inline size
     * times the queue depths), so this bounds the server's memory. One more connection is refused with an MPA
     * Reply that says why (RFC 5044 §7.1.2: the Reject bit).
     */
    public RdmaServer maxSessions(int max) {
        if (max < 1) {
            throw new IllegalArgumentException("maxSessions must be at least 1, not " + max);
        }
        return new RdmaServer(tcp, device, mpa, queuePair, accept, handler, messaging, metrics, maxPendingStartups,
                max);
    }

    /** Further reactor-netty settings (loop resources, wiretap, metrics, TLS below MPA). */
    public RdmaServer tcpConfiguration(UnaryOperator<TcpServer> configure) {
        return with(configure.apply(tcp));
    }

    private RdmaServer with(TcpServer t) {
        return new RdmaServer(t, device, mpa, queuePair, accept, handler, messaging, metrics, maxPendingStartups,
                maxSessions);
    }

    /** Binds, waiting at most 45 s. */
    public DisposableRdmaServer bindNow() {
        return bindNow(Duration.ofSeconds(45));
    }

    /** Binds, waiting at most {@code timeout}. */
    public DisposableRdmaServer bindNow(Duration timeout) {
        java.util.Set<RdmaSession> sessions = java.util.concurrent.ConcurrentHashMap.newKeySet();
        StartupLimiter limiter = new StartupLimiter(maxPendingStartups);
        return new DisposableRdmaServer(bind(sessions, limiter).block(timeout), sessions, limiter);
    }

    /** Binds when subscribed. */
    public Mono<DisposableRdmaServer> bind() {
        java.util.Set<RdmaSession> sessions = java.util.concurrent.ConcurrentHashMap.newKeySet();
        StartupLimiter limiter = new StartupLimiter(maxPendingStartups);
        return bind(sessions, limiter).map(server -> new DisposableRdmaServer(server, sessions, limiter));
    }

    private Mono<? extends DisposableServer> bind(java.util.Set<RdmaSession> sessions, StartupLimiter limiter) {
        // Ahead of reactor-netty's reactive bridge: the queue pair takes every ULPDU.
        return tcp.doOnChannelInit((observer, channel, address) -> {
            adaptTls(channel);
            if (!RdmaPipeline.responder(channel, mpa, request -> onRequest(channel, request, sessions),
                    NettyPipeline.ReactiveBridge, limiter)) {
                channel.attr(STARTUP).set(Boolean.FALSE);
                metrics.startupFailed(RdmaMetricsRecorder.StartupFailure.REJECTED);
                return;
            }
            // A connection that closes before it became a session (and was not refused) failed its startup.
            channel.closeFuture().addListener(f -> {
                if (channel.attr(STARTUP).get() == null) {
                    metrics.startupFailed(RdmaMetricsRecorder.StartupFailure.FAILED);
                }
            });
        }).doOnConnection(RdmaServer::readContinuously).bind();
    }

    /**
     * With TLS configured ({@code tcpConfiguration(t -> t.secure(...))}), puts the TLS barrier adapter
     * ({@link RdmaPipeline#addTlsBarrier}) between the TLS handler and MPA, so that completions that wait
     * for TCP pass through TLS.
     */
    static void adaptTls(io.netty.channel.Channel channel) {
        if (channel.pipeline().get(NettyPipeline.SslHandler) != null) {
            RdmaPipeline.addTlsBarrier(channel, NettyPipeline.SslHandler);
        }
    }

    /**
     * reactor-netty reads only as fast as its inbound {@code Flux} is consumed, and turns auto-read off
     * when it sets a connection up. Nothing consumes that Flux here: the queue pair takes every octet
     * and applies its own flow control (receive credits, TCP back-pressure through the read buffers),
     * so reading goes back on.
     */
    static void readContinuously(reactor.netty.Connection connection) {
        connection.channel().config().setAutoRead(true);
    }

    private void onRequest(io.netty.channel.Channel channel, ConnectRequest request,
            java.util.Set<RdmaSession> sessions) {
        byte[] reply;
        try {
            if (sessions.size() >= maxSessions) {
                throw new IllegalStateException("server full: " + sessions.size() + " sessions (maxSessions)");
            }
            reply = accept.apply(request);
        } catch (RuntimeException e) {
            channel.attr(STARTUP).set(Boolean.FALSE);
            metrics.startupFailed(RdmaMetricsRecorder.StartupFailure.REJECTED);
            byte[] reason = String.valueOf(e.getMessage()).getBytes(java.nio.charset.StandardCharsets.UTF_8);
            int room = Math.max(0, mpa.maxApplicationPrivateDataLength());
            request.reject(java.util.Arrays.copyOf(reason, Math.min(reason.length, room)));
            return;
        }
        SessionResources resources = SessionResources.create(device, queuePair,
                channel.eventLoop(), messaging);
        request.accept(resources.qp(), messaging.privateData(reply)).whenComplete((rdma, failure) -> {
            if (failure != null) {
                resources.close();
                return;
            }
            channel.attr(STARTUP).set(Boolean.TRUE);
            reactor.netty.Connection connection = reactor.netty.Connection.from(rdma.channel());
            RdmaSession session = new RdmaSession(connection, rdma, resources, metrics);
            sessions.add(session);
            session.onDispose().doFinally(s -> sessions.remove(session)).subscribe();
            Mono.defer(() -> Mono.from(handler.apply(session)))
                    .doFinally(signal -> session.dispose())
                    .subscribe(null, t -> log.warn("the handler of {} failed", session, t));
        });
    }
}
