package io.softrdma.reactive;

import io.softrdma.cm.ConnectRequest;
import io.softrdma.cm.RdmaPipeline;
import io.softrdma.cm.StartupLimiter;
import io.softrdma.mpa.MpaSettings;
import io.softrdma.transport.TlsBarrierAdapter;
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
 * completes or fails. Immutable: each setter returns a new server; {@link #configuration()} and
 * {@link #tcpServer()} tell what is set.
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

    /** Sessions a server holds at once unless told otherwise. */
    public static final int DEFAULT_MAX_SESSIONS = 4096;
    /** Set on a connection once its startup ended: true as a session, false refused by {@link #accept}. */
    private static final io.netty.util.AttributeKey<Boolean> STARTUP = io.netty.util.AttributeKey.valueOf(
            RdmaServer.class, "startup");

    private final TcpServer tcp;
    private final RdmaServerConfig config;

    private RdmaServer(TcpServer tcp, RdmaServerConfig config) {
        this.tcp = tcp;
        this.config = config;
    }

    /**
     * A server on port 7471 of every interface with {@link RdmaSessionConfig#DEFAULT_MPA} (revision 2, CRC,
     * any RFC 6581 RTR message the client offers), ORD and IRD 128, accepting every connection with empty
     * private data, whose sessions last until the peer closes them.
     */
    public static RdmaServer create() {
        TcpServer tcp = TcpOptions.apply(TcpServer.create().port(DEFAULT_PORT));
        return new RdmaServer(tcp, new RdmaServerConfig(RdmaSessionConfig.defaults("reactive-server"),
                request -> new byte[0], RdmaSession::onDispose, StartupLimiter.DEFAULT_MAX_PENDING,
                DEFAULT_MAX_SESSIONS));
    }

    /**
     * What this server is set to: MPA settings, queue pair shape, messaging, metrics, accept decision, handler,
     * limits. Address, port and TCP options are in {@link #tcpServer()}.
     */
    public RdmaServerConfig configuration() {
        return config;
    }

    /**
     * The reactor-netty server underneath (immutable): {@code tcpServer().configuration()} tells the bind
     * address and the child channel options. Change it with {@link #tcpConfiguration}.
     */
    public TcpServer tcpServer() {
        return tcp;
    }

    public RdmaServer host(String host) {
        return with(tcp.host(Objects.requireNonNull(host, "host")));
    }

    /** The port to bind; 0 picks a free one ({@link DisposableRdmaServer#port()} tells which). */
    public RdmaServer port(int port) {
        return with(tcp.port(port));
    }

    /**
     * Replaces the MPA settings as a whole: revision, CRC, Markers, peer-to-peer mode (as responder: the RTR
     * messages accepted), private data cap, timeouts. To change a few and keep the rest use
     * {@link #mpa(UnaryOperator)}.
     */
    public RdmaServer mpa(MpaSettings settings) {
        return with(config.withSession(config.session().withMpa(Objects.requireNonNull(settings, "settings"))));
    }

    /**
     * Changes some MPA settings and keeps the others: {@code configure} gets the settings so far
     * ({@link RdmaSessionConfig#DEFAULT_MPA} unless changed), e.g. {@code mpa(m -> m.withCrc(false))}.
     */
    public RdmaServer mpa(UnaryOperator<MpaSettings> configure) {
        return mpa(Objects.requireNonNull(configure.apply(config.session().mpa()),
                "the MPA settings configurer returned null"));
    }

    /** Queue pair sizes and ORD/IRD for each connection, starting from {@link QueuePairConfig#of}'s defaults. */
    public RdmaServer queuePair(UnaryOperator<QueuePairConfig> configure) {
        SessionResources.shape(config.session().device(), Objects.requireNonNull(configure, "configure"));
        return with(config.withSession(config.session().withQueuePair(configure)));
    }

    /**
     * Decides on each MPA Request after seeing its private data: returns the Reply's private data to
     * accept, or throws to reject (the exception's message, UTF-8, goes back as the rejection's private
     * data, cut to fit).
     */
    public RdmaServer accept(Function<ConnectRequest, byte[]> decide) {
        return with(config.withAccept(Objects.requireNonNull(decide, "decide")));
    }

    /** What to do with each session; the session is closed when the returned publisher terminates. */
    public RdmaServer handle(Function<? super RdmaSession, ? extends Publisher<Void>> handler) {
        return with(config.withHandler(Objects.requireNonNull(handler, "handler")));
    }

    /** Messaging sizes and remote invalidation ({@link MessagingOptions}, docs/protocol.md). */
    public RdmaServer messaging(MessagingOptions options) {
        return with(config.withSession(config.session().withMessaging(Objects.requireNonNull(options, "options"))));
    }

    /**
     * Where the sessions report what they do, for metrics ({@link RdmaMetricsRecorder#NONE} by default); the
     * Spring Boot starter supplies a Micrometer one.
     */
    public RdmaServer metrics(RdmaMetricsRecorder recorder) {
        return with(config.withSession(config.session().withMetrics(Objects.requireNonNull(recorder, "recorder"))));
    }

    /**
     * The most MPA startups run at once ({@link StartupLimiter}, 1024 by default): connections beyond it are
     * closed as they arrive, so that connections that never finish their startup hold at most this many, each for
     * at most the MPA Request timeout.
     */
    public RdmaServer maxPendingStartups(int max) {
        return with(config.withMaxPendingStartups(max));
    }

    /**
     * The most sessions open at once (4096 by default): each holds its receive buffers and send slots (inline size
     * times the queue depths), so this bounds the server's memory. One more connection is refused with an MPA
     * Reply that says why (RFC 5044 §7.1.2: the Reject bit).
     */
    public RdmaServer maxSessions(int max) {
        return with(config.withMaxSessions(max));
    }

    /** Further reactor-netty settings (loop resources, wiretap, metrics, TLS below MPA). */
    public RdmaServer tcpConfiguration(UnaryOperator<TcpServer> configure) {
        return with(Objects.requireNonNull(configure.apply(tcp), "the TcpServer configurer returned null"));
    }

    private RdmaServer with(TcpServer t) {
        return new RdmaServer(t, config);
    }

    private RdmaServer with(RdmaServerConfig c) {
        return new RdmaServer(tcp, c);
    }

    /** Binds, waiting at most 45 s. */
    public DisposableRdmaServer bindNow() {
        return bindNow(Duration.ofSeconds(45));
    }

    /** Binds, waiting at most {@code timeout}. */
    public DisposableRdmaServer bindNow(Duration timeout) {
        java.util.Set<RdmaSession> sessions = java.util.concurrent.ConcurrentHashMap.newKeySet();
        StartupLimiter limiter = new StartupLimiter(config.maxPendingStartups());
        return new DisposableRdmaServer(bind(sessions, limiter).block(timeout), sessions, limiter);
    }

    /** Binds when subscribed. */
    public Mono<DisposableRdmaServer> bind() {
        java.util.Set<RdmaSession> sessions = java.util.concurrent.ConcurrentHashMap.newKeySet();
        StartupLimiter limiter = new StartupLimiter(config.maxPendingStartups());
        return bind(sessions, limiter).map(server -> new DisposableRdmaServer(server, sessions, limiter));
    }

    private Mono<? extends DisposableServer> bind(java.util.Set<RdmaSession> sessions, StartupLimiter limiter) {
        MpaSettings mpa = config.session().mpa();
        RdmaMetricsRecorder metrics = config.session().metrics();
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
     * With TLS configured ({@code tcpConfiguration(t -> t.secure(...))}), puts {@link TlsBarrierAdapter}
     * between the TLS handler and MPA, so that completions that wait for TCP pass through TLS.
     */
    static void adaptTls(io.netty.channel.Channel channel) {
        if (channel.pipeline().get(NettyPipeline.SslHandler) != null) {
            channel.pipeline().addAfter(NettyPipeline.SslHandler, TlsBarrierAdapter.NAME, TlsBarrierAdapter.INSTANCE);
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
        RdmaSessionConfig session = config.session();
        RdmaMetricsRecorder metrics = session.metrics();
        MessagingOptions messaging = session.messaging();
        int maxSessions = config.maxSessions();
        byte[] reply;
        try {
            if (sessions.size() >= maxSessions) {
                throw new IllegalStateException("server full: " + sessions.size() + " sessions (maxSessions)");
            }
            reply = config.accept().apply(request);
        } catch (RuntimeException e) {
            channel.attr(STARTUP).set(Boolean.FALSE);
            metrics.startupFailed(RdmaMetricsRecorder.StartupFailure.REJECTED);
            byte[] reason = String.valueOf(e.getMessage()).getBytes(java.nio.charset.StandardCharsets.UTF_8);
            int room = Math.max(0, session.mpa().maxApplicationPrivateDataLength());
            request.reject(java.util.Arrays.copyOf(reason, Math.min(reason.length, room)));
            return;
        }
        SessionResources resources = SessionResources.create(session.device(), session.queuePair(),
                channel.eventLoop(), messaging);
        request.accept(resources.qp(), messaging.privateData(reply)).whenComplete((rdma, failure) -> {
            if (failure != null) {
                resources.close();
                return;
            }
            channel.attr(STARTUP).set(Boolean.TRUE);
            reactor.netty.Connection connection = reactor.netty.Connection.from(rdma.channel());
            RdmaSession rdmaSession = new RdmaSession(connection, rdma, resources, metrics);
            sessions.add(rdmaSession);
            rdmaSession.onDispose().doFinally(s -> sessions.remove(rdmaSession)).subscribe();
            Mono.defer(() -> Mono.from(config.handler().apply(rdmaSession)))
                    .doFinally(signal -> rdmaSession.dispose())
                    .subscribe(null, t -> log.warn("the handler of {} failed", rdmaSession, t));
        });
    }
}
