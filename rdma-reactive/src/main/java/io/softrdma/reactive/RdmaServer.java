package io.softrdma.reactive;

import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.softrdma.cm.ConnectRequest;
import io.softrdma.cm.RdmaConnection;
import io.softrdma.cm.RdmaPipeline;
import io.softrdma.cm.StartupLimiter;
import io.softrdma.mpa.MpaSettings;
import io.softrdma.reactive.internal.BusyPollLoops;
import io.softrdma.reactive.internal.SessionResources;
import io.softrdma.reactive.spi.SessionProtocol;
import io.softrdma.verbs.QueuePairConfig;
import io.softrdma.verbs.RdmaDevice;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.function.UnaryOperator;
import org.reactivestreams.Publisher;
import reactor.core.Disposable;
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
 * DisposableRdmaServer server = RdmaServer.create().port(port)
 *         .accept(request -> Mono.just(request.privateData().length <= 64
 *                 ? ConnectDecision.accept() : ConnectDecision.reject("private data too long")))
 *         .handle(session -> session.onDispose())
 *         .bindNow();
 * }</pre>
 *
 * <p>The MPA settings start as {@link RdmaSessionConfig#DEFAULT_MPA}, the client's default too: revision 2,
 * CRC, and RFC 6581 peer-to-peer mode, accepting either RTR message a client offers, so that the handler may
 * send first. {@link #mpa(UnaryOperator)} changes some of them; {@link #mpa(MpaSettings)} replaces them all.
 *
 * <p>Why this class is long: besides the builder, it holds the server's side of the MPA startup — the limits on
 * startups and sessions and the asynchronous accept decision with its timeout, settled once on the connection's
 * event loop ({@code PendingDecision}) — which belong with the settings they apply.
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

    private static final Mono<ConnectDecision> ACCEPT_ALL = Mono.just(ConnectDecision.accept());
    /** The reject private data when the accept decision fails; the error stays in the server's log. */
    private static final String DECISION_FAILED = "accept decision failed";
    /** The reject private data when the accept decision's Mono completes empty. */
    private static final String NO_DECISION = "no accept decision";
    /**
     * How much longer than {@link MpaSettings#acceptTimeout()} the MPA startup itself waits for the decision:
     * this server rejects at the accept timeout, with a reason, and the startup's own timer (which closes without
     * a Reply) stays as a backstop.
     */
    private static final Duration ACCEPT_TIMEOUT_BACKSTOP = Duration.ofSeconds(1);

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
        return new RdmaServer(tcp, new RdmaServerConfig(RdmaSessionConfig.defaults("reactive-server")
                .withReceivePool(ReceivePool.of(ReceivePool.DEFAULT_CAPACITY)),
                request -> ACCEPT_ALL, RdmaSession::onDispose, StartupLimiter.DEFAULT_MAX_PENDING,
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
        SessionResources.shape(config.session().device(), Objects.requireNonNull(configure, "configure"),
                config.session().protocol());
        return with(config.withSession(config.session().withQueuePair(configure)));
    }

    /**
     * The protocol each session runs on its queue pair instead of SoftRDMA messaging — RPC-over-RDMA's, for one
     * (rdma-rpc sets it). The sessions' messaging methods then fail with an error that says so.
     */
    public RdmaServer protocol(SessionProtocol protocol) {
        return with(config.withSession(config.session().withProtocol(Objects.requireNonNull(protocol, "protocol"))));
    }

    /** The device whose protection domains and queue pairs the sessions get (each server has its own unless set). */
    public RdmaServer device(io.softrdma.verbs.RdmaDevice device) {
        return with(config.withSession(config.session().withDevice(Objects.requireNonNull(device, "device"))));
    }

    /**
     * Decides on each MPA Request after seeing its private data, asynchronously: {@code decide} is called on
     * the connection's event loop (it must not block) and returns a Mono of the decision, which may complete on
     * any thread, within the MPA accept timeout ({@link MpaSettings#acceptTimeout()}, 10 s by default):
     * {@link ConnectDecision#accept(byte[])} sends the Reply with that private data, and
     * {@link ConnectDecision#reject(String)} or {@link ConnectDecision#reject(byte[])} one with the Reject bit
     * and that private data, which the client's {@link io.softrdma.mpa.MpaRejectedException} carries; the
     * connection then closes.
     *
     * <p>Whatever else happens rejects too, with a reason as private data, and is logged: no decision within
     * the accept timeout ({@code "no accept decision within 10000 ms (MpaSettings.acceptTimeout)"}; the Mono is
     * cancelled), an error or an exception from {@code decide} ({@code "accept decision failed"}; the error is
     * not sent), an empty Mono ({@code "no accept decision"}). A connection that closes while its decision is
     * awaited cancels the Mono. By default every connection is accepted with no private data; one over
     * {@link #maxSessions(int)} is refused with {@code "server full: …"} before {@code decide} is asked.
     *
     * <pre>{@code
     * RdmaServer.create().accept(request -> tokens.check(request.privateData())   // Mono<Boolean>
     *         .map(ok -> ok ? ConnectDecision.accept() : ConnectDecision.reject("bad token")))
     * }</pre>
     */
    public RdmaServer accept(Function<? super ConnectRequest, ? extends Mono<ConnectDecision>> decide) {
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
     * The most sessions open at once (4096 by default): each holds its receive buffers and send slots (at most the
     * inline size times the queue depths; with the receive pool, 3 receive buffers of its own and one chunk of 8 send
     * slots when idle), so this and the {@link #receivePool receive pool} bound the server's memory. One more connection is refused with an MPA
     * Reply that says why (RFC 5044 §7.1.2: the Reject bit).
     */
    public RdmaServer maxSessions(int max) {
        return with(config.withMaxSessions(max));
    }

    /**
     * Where the sessions' receive buffers come from, beyond {@link ReceivePool#DEDICATED_BUFFERS} each: the role of
     * a verbs shared receive queue, so that receive memory grows with traffic, not with sessions (docs/robustness.md,
     * Memory). {@link #create()} gives each server a pool of {@link ReceivePool#DEFAULT_CAPACITY} (64 MiB) of its
     * own; servers built from one builder share it. Null: each session registers {@code receiveQueueDepth} ×
     * inline size of receive buffers when it starts (512 KiB by default), as before pools.
     */
    public RdmaServer receivePool(ReceivePool pool) {
        return with(config.withSession(config.session().withReceivePool(pool)));
    }

    /**
     * Runs the sessions on event loops that poll their sockets for {@code busyPoll} after each burst of work before
     * they sleep ({@link RdmaClient#busyPoll(Duration)}: a request is taken without waking a sleeping thread when it
     * comes within that time, at the price of up to that much CPU after every burst). {@link Duration#ZERO} (the
     * default): reactor-netty's loops.
     *
     * @throws IllegalArgumentException if {@code busyPoll} is negative
     */
    public RdmaServer busyPoll(Duration busyPoll) {
        return BusyPollLoops.check(busyPoll).isZero() ? this : with(tcp.runOn(BusyPollLoops.shared(busyPoll)));
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

    private Mono<? extends DisposableServer> bind(Set<RdmaSession> sessions, StartupLimiter limiter) {
        MpaSettings configured = config.session().mpa();
        MpaSettings mpa = configured.withAcceptTimeout(configured.acceptTimeout().plus(ACCEPT_TIMEOUT_BACKSTOP));
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
     * With TLS configured ({@code tcpConfiguration(t -> t.secure(...))}), puts the TLS barrier adapter
     * ({@link RdmaPipeline#addTlsBarrier}) between the TLS handler and MPA, so that completions that wait
     * for TCP pass through TLS.
     */
    static void adaptTls(Channel channel) {
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

    /** On the connection's event loop, once its MPA Request has arrived: asks the accept function. */
    private void onRequest(Channel channel, ConnectRequest request, Set<RdmaSession> sessions) {
        if (sessions.size() >= config.maxSessions()) {
            reject(channel, request, serverFull(sessions));
            return;
        }
        Mono<ConnectDecision> decision;
        try {
            decision = Objects.requireNonNull(config.accept().apply(request),
                    "the accept function returned null, not a Mono");
        } catch (RuntimeException e) {
            log.warn("the accept function failed on {}; rejected", channel, e);
            reject(channel, request, utf8(DECISION_FAILED));
            return;
        }
        new PendingDecision(channel, request, sessions).await(decision);
    }

    private static byte[] serverFull(Set<RdmaSession> sessions) {
        return utf8("server full: " + sessions.size() + " sessions (maxSessions)");
    }

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    /** Sends a Reply with the Reject bit and {@code privateData}, cut to fit; the connection then closes. */
    private void reject(Channel channel, ConnectRequest request, byte[] privateData) {
        channel.attr(STARTUP).set(Boolean.FALSE);
        config.session().metrics().startupFailed(RdmaMetricsRecorder.StartupFailure.REJECTED);
        int room = Math.max(0, config.session().mpa().maxApplicationPrivateDataLength());
        if (privateData.length > room) {
            log.warn("the reject private data for {} ({} octets) is cut to the {} the MPA Reply allows", channel,
                    privateData.length, room);
        }
        request.reject(Arrays.copyOf(privateData, Math.min(privateData.length, room)));
    }

    /** Accepts with a queue pair of the session's own; the handler gets the session once in RDMA mode. */
    private void acceptWith(Channel channel, ConnectRequest request, Set<RdmaSession> sessions, byte[] reply) {
        if (sessions.size() >= config.maxSessions()) {
            reject(channel, request, serverFull(sessions));
            return;
        }
        RdmaSessionConfig session = config.session();
        RdmaMetricsRecorder metrics = session.metrics();
        SessionProtocol protocol = session.protocol();
        SessionResources resources = SessionResources.create(session.device(), session.queuePair(),
                channel.eventLoop(), protocol);
        CompletableFuture<RdmaConnection> established;
        try {
            established = request.accept(resources.qp(), protocol.privateData(reply));
        } catch (IllegalArgumentException e) {
            resources.close(e);
            log.warn("the accept decision for {} cannot be sent; rejected: {}", channel, e.getMessage());
            reject(channel, request, utf8("accept decision invalid: its private data does not fit the MPA Reply"));
            return;
        } catch (RuntimeException e) {
            resources.close(e);
            throw e;
        }
        established.whenComplete((rdma, failure) -> {
            if (failure != null) {
                resources.close(failure);
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

    /**
     * One connection's accept decision while it is awaited: the first of the decision, its error or emptiness,
     * {@link MpaSettings#acceptTimeout()} and the connection's close settles it, on the connection's event loop;
     * the others are then ignored, and the decision's Mono is cancelled if still running.
     */
    private final class PendingDecision {
        private final Channel channel;
        private final ConnectRequest request;
        private final Set<RdmaSession> sessions;
        private final ChannelFutureListener onClose = f -> settle();
        // All on the event loop.
        private boolean settled;
        private Disposable subscription;
        private ScheduledFuture<?> timer;

        PendingDecision(Channel channel, ConnectRequest request, Set<RdmaSession> sessions) {
            this.channel = channel;
            this.request = request;
            this.sessions = sessions;
        }

        void await(Mono<ConnectDecision> decision) {
            Duration timeout = config.session().mpa().acceptTimeout();
            timer = channel.eventLoop().schedule(() -> timedOut(timeout), timeout.toNanos(), TimeUnit.NANOSECONDS);
            channel.closeFuture().addListener(onClose);
            Disposable d = decision.map(Optional::of).defaultIfEmpty(Optional.empty())
                    .subscribe(o -> onLoop(() -> decided(o)), e -> onLoop(() -> failed(e)));
            if (settled) {
                d.dispose(); // settled already (a synchronous decision, or the channel closed meanwhile)
            } else {
                subscription = d;
            }
        }

        /** Settles once: true for the first caller. */
        private boolean settle() {
            if (settled) {
                return false;
            }
            settled = true;
            timer.cancel(false);
            channel.closeFuture().removeListener(onClose);
            if (subscription != null) {
                subscription.dispose();
            }
            return true;
        }

        private void decided(Optional<ConnectDecision> decision) {
            if (!settle()) {
                return;
            }
            if (decision.isEmpty()) {
                log.warn("the accept function's Mono completed empty for {}; rejected", channel);
                reject(channel, request, utf8(NO_DECISION));
            } else if (decision.get().accepted()) {
                acceptWith(channel, request, sessions, decision.get().privateDataUnsafe());
            } else {
                log.debug("{} rejected by the accept function", channel);
                reject(channel, request, decision.get().privateDataUnsafe());
            }
        }

        private void failed(Throwable error) {
            if (settle()) {
                log.warn("the accept decision for {} failed; rejected", channel, error);
                reject(channel, request, utf8(DECISION_FAILED));
            }
        }

        private void timedOut(Duration timeout) {
            if (settle()) {
                String reason = "no accept decision within " + timeout.toMillis() + " ms (MpaSettings.acceptTimeout)";
                log.warn("{}: {}; rejected", channel, reason);
                reject(channel, request, utf8(reason));
            }
        }

        private void onLoop(Runnable task) {
            if (channel.eventLoop().inEventLoop()) {
                task.run();
            } else {
                try {
                    channel.eventLoop().execute(task);
                } catch (RejectedExecutionException e) {
                    log.debug("{}: the accept decision came after its event loop stopped", channel);
                }
            }
        }
    }
}
