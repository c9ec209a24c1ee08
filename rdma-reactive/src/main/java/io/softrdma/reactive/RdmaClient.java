package io.softrdma.reactive;

import io.netty.channel.ChannelOption;
import io.netty.util.AttributeKey;
import io.softrdma.cm.RdmaConnection;
import io.softrdma.cm.RdmaPipeline;
import io.softrdma.mpa.MpaSettings;
import io.softrdma.reactive.internal.BusyPollLoops;
import io.softrdma.reactive.internal.SessionResources;
import io.softrdma.reactive.spi.SessionProtocol;
import io.softrdma.verbs.QueuePairConfig;
import io.softrdma.verbs.RdmaDevice;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.function.UnaryOperator;
import reactor.core.publisher.Mono;
import reactor.netty.NettyPipeline;
import reactor.netty.tcp.TcpClient;

/**
 * Connects to an RDMA peer over reactor-netty's {@link TcpClient}, with SoftRDMA's MPA startup and
 * queue pair in the connection's pipeline. Immutable: each setter returns a new client, as Reactor
 * Netty's builders do; {@link #configuration()} and {@link #tcpClient()} tell what is set.
 *
 * <pre>{@code
 * RdmaSession session = RdmaClient.create().host(host).port(port)
 *         .mpa(mpa -> mpa.withCrc(false))      // changes the CRC, keeps the rest of DEFAULT_MPA
 *         .connect().block();
 * }</pre>
 *
 * <p>The MPA settings start as {@link #DEFAULT_MPA}, the server's default too: revision 2, CRC, and RFC 6581
 * peer-to-peer mode so that the server may send first. {@link #mpa(UnaryOperator)} changes some of them;
 * {@link #mpa(MpaSettings)} replaces them all, peer-to-peer mode included.
 *
 * <p>Thread safety: immutable.
 */
public final class RdmaClient {
    private static final AttributeKey<CompletableFuture<RdmaConnection>> ESTABLISHED =
            AttributeKey.valueOf(RdmaClient.class, "established");
    private static final AttributeKey<SessionResources> RESOURCES =
            AttributeKey.valueOf(RdmaClient.class, "resources");

    /**
     * The MPA settings a client starts with, the same as a server's: {@link RdmaSessionConfig#DEFAULT_MPA}
     * (revision 2, CRC, RFC 6581 peer-to-peer mode offering the zero-length Write and Read as RTR, so that the
     * server may send first).
     */
    public static final MpaSettings DEFAULT_MPA = RdmaSessionConfig.DEFAULT_MPA;

    private final TcpClient tcp;
    private final RdmaClientConfig config;

    private RdmaClient(TcpClient tcp, RdmaClientConfig config) {
        this.tcp = tcp;
        this.config = config;
    }

    /**
     * A client with {@link #DEFAULT_MPA} (revision 2, CRC, peer-to-peer mode), ORD and IRD 128, its own
     * device, to localhost:7471.
     */
    public static RdmaClient create() {
        TcpClient tcp = TcpOptions.apply(TcpClient.newConnection().host("localhost").port(RdmaServer.DEFAULT_PORT));
        return new RdmaClient(tcp, new RdmaClientConfig(RdmaSessionConfig.defaults("reactive-client"), new byte[0]));
    }

    /**
     * What this client is set to: MPA settings, queue pair shape, messaging, metrics, private data. Host,
     * port and TCP options are in {@link #tcpClient()}.
     */
    public RdmaClientConfig configuration() {
        return config;
    }

    /**
     * The reactor-netty client underneath (immutable): {@code tcpClient().configuration()} tells the remote
     * address and the channel options. Change it with {@link #tcpConfiguration}.
     */
    public TcpClient tcpClient() {
        return tcp;
    }

    public RdmaClient host(String host) {
        return with(tcp.host(Objects.requireNonNull(host, "host")));
    }

    public RdmaClient port(int port) {
        return with(tcp.port(port));
    }

    /**
     * Replaces the MPA settings as a whole: revision, CRC, Markers, peer-to-peer mode, private data cap,
     * timeouts. {@code MpaSettings.defaults()} has no peer-to-peer mode, and without it the server can send
     * nothing until this side has (RFC 5044 §7.1.2); to change a few settings keep the rest with
     * {@link #mpa(UnaryOperator)}, or start from {@link #DEFAULT_MPA}.
     */
    public RdmaClient mpa(MpaSettings settings) {
        return with(config.session().withMpa(Objects.requireNonNull(settings, "settings")));
    }

    /**
     * Changes some MPA settings and keeps the others: {@code configure} gets the settings so far
     * ({@link #DEFAULT_MPA} unless changed), so {@code mpa(m -> m.withCrc(false))} keeps peer-to-peer mode.
     */
    public RdmaClient mpa(UnaryOperator<MpaSettings> configure) {
        return mpa(Objects.requireNonNull(configure.apply(config.session().mpa()),
                "the MPA settings configurer returned null"));
    }

    /** Queue pair sizes and ORD/IRD, starting from {@link QueuePairConfig#of}'s defaults. */
    public RdmaClient queuePair(UnaryOperator<QueuePairConfig> configure) {
        return with(config.session().withQueuePair(Objects.requireNonNull(configure, "configure")));
    }

    /** Private data for the MPA Request (the application's part; RFC 8797's block may be in it). */
    public RdmaClient privateData(byte[] privateData) {
        return new RdmaClient(tcp, config.withPrivateData(Objects.requireNonNull(privateData, "privateData")));
    }

    /** Messaging sizes and remote invalidation ({@link MessagingOptions}, docs/protocol.md). */
    public RdmaClient messaging(MessagingOptions options) {
        return with(config.session().withMessaging(Objects.requireNonNull(options, "options")));
    }

    /**
     * The protocol the session runs on its queue pair instead of SoftRDMA messaging — RPC-over-RDMA's, for one
     * (rdma-rpc sets it). The session's messaging methods then fail with an error that says so; its one-sided
     * operations, memory and lifecycle are the same.
     */
    public RdmaClient protocol(SessionProtocol protocol) {
        return with(config.session().withProtocol(Objects.requireNonNull(protocol, "protocol")));
    }

    /**
     * The device whose protection domains, completion queues and queue pairs the sessions get (each client has one
     * of its own unless set).
     */
    public RdmaClient device(io.softrdma.verbs.RdmaDevice device) {
        return with(config.session().withDevice(Objects.requireNonNull(device, "device")));
    }

    /** How long the TCP connect may take; the MPA Reply has {@link MpaSettings#replyTimeout()}. */
    public RdmaClient connectTimeout(Duration timeout) {
        return with(tcp.option(ChannelOption.CONNECT_TIMEOUT_MILLIS,
                (int) Math.min(Integer.MAX_VALUE, timeout.toMillis())));
    }

    /**
     * Where the sessions report what they do, for metrics ({@link RdmaMetricsRecorder#NONE} by default); the
     * Spring Boot starter supplies a Micrometer one.
     */
    public RdmaClient metrics(RdmaMetricsRecorder recorder) {
        return with(config.session().withMetrics(Objects.requireNonNull(recorder, "recorder")));
    }

    /**
     * A receive buffer budget shared with other clients (and servers) it is given to ({@link ReceivePool}): the
     * session registers {@link ReceivePool#DEDICATED_BUFFERS} receive buffers of its own and draws the others from
     * the pool while its demand needs them. Null (the default): the session registers {@code receiveQueueDepth} ×
     * inline size when it starts.
     */
    public RdmaClient receivePool(ReceivePool pool) {
        return with(config.session().withReceivePool(pool));
    }

    /**
     * Runs the sessions on event loops that poll their sockets for {@code busyPoll} after each burst of work before
     * they sleep, as an RDMA application polls its completion queue: an answer that comes within that time is taken
     * without waking a sleeping thread. One operation at a time, that is most of a round trip's cost on a virtual
     * machine (docs/benchmarks.md, "busy polling": a cache GET's p50 from 64–71 µs to 13–21 µs here); the price is
     * up to {@code busyPoll} of CPU after every burst of work (none while a loop is idle). The loops are shared by
     * every client and server given the same time (one per processor); with fewer than two processors they do not
     * poll.
     * {@link Duration#ZERO} (the default): reactor-netty's loops, which sleep at once. A later
     * {@link #tcpConfiguration} {@code runOn} replaces these loops.
     *
     * @throws IllegalArgumentException if {@code busyPoll} is negative
     */
    public RdmaClient busyPoll(Duration busyPoll) {
        return BusyPollLoops.check(busyPoll).isZero() ? this : with(tcp.runOn(BusyPollLoops.shared(busyPoll)));
    }

    /** Further reactor-netty settings (loop resources, wiretap, metrics, TLS below MPA). */
    public RdmaClient tcpConfiguration(UnaryOperator<TcpClient> configure) {
        return with(Objects.requireNonNull(configure.apply(tcp), "the TcpClient configurer returned null"));
    }

    private RdmaClient with(TcpClient t) {
        return new RdmaClient(t, config);
    }

    private RdmaClient with(RdmaSessionConfig session) {
        return new RdmaClient(tcp, config.withSession(session));
    }

    /**
     * Connects and runs the MPA startup; emits the session once the stream is in RDMA mode, or the
     * startup's error ({@link io.softrdma.mpa.MpaStartupException}, whose reason says why).
     */
    public Mono<RdmaSession> connect() {
        RdmaSessionConfig session = config.session();
        RdmaDevice device = session.device();
        UnaryOperator<QueuePairConfig> queuePair = session.queuePair();
        SessionProtocol protocol = session.protocol();
        RdmaMetricsRecorder metrics = session.metrics();
        return Mono.defer(() -> {
            SessionResources.shape(device, queuePair, protocol);
            return tcp.doOnChannelInit((observer, channel, address) -> {
                RdmaServer.adaptTls(channel);
                SessionResources resources = SessionResources.create(device, queuePair, channel.eventLoop(),
                        protocol);
                channel.attr(RESOURCES).set(resources);
                // A connection that closes before connect() claims the resources (refused, reset) releases them:
                // the protocol registered memory and posted receives for it already.
                channel.closeFuture().addListener(f -> {
                    SessionResources unclaimed = channel.attr(RESOURCES).getAndSet(null);
                    if (unclaimed != null) {
                        unclaimed.close(new io.softrdma.ConnectionClosedException("the TCP connection closed before"
                                + " the MPA startup"));
                    }
                });
                channel.attr(ESTABLISHED).set(RdmaPipeline.initiator(channel, resources.qp(),
                        protocol.privateData(config.privateDataUnsafe()), session.mpa(),
                        NettyPipeline.ReactiveBridge));
            }).doOnConnected(RdmaServer::readContinuously).connect().flatMap(connection -> {
                CompletableFuture<RdmaConnection> established = connection.channel().attr(ESTABLISHED).get();
                // A cancel that comes after the session went out (RSocket's resumption cancels its connect chain
                // from inside the delivery) must not close it: the session is its subscriber's by then.
                java.util.concurrent.atomic.AtomicBoolean delivered = new java.util.concurrent.atomic.AtomicBoolean();
                // The resources stay the channel's until the session takes them: whatever else ends the startup
                // (a failure, a cancel such as a timeout) closes the channel, and its close listener releases them.
                return Mono.fromFuture(established)
                        .flatMap(rdma -> {
                            SessionResources resources = connection.channel().attr(RESOURCES).getAndSet(null);
                            return resources == null
                                    ? Mono.error(new io.softrdma.ConnectionClosedException("the TCP connection"
                                            + " closed before the MPA startup ended"))
                                    : Mono.just(new RdmaSession(connection, rdma, resources, metrics));
                        })
                        .doOnError(t -> {
                            metrics.startupFailed(t instanceof io.softrdma.mpa.MpaRejectedException
                                    ? RdmaMetricsRecorder.StartupFailure.REJECTED
                                    : RdmaMetricsRecorder.StartupFailure.FAILED);
                            connection.dispose();
                        })
                        .doOnNext(s -> delivered.set(true))
                        .doOnCancel(() -> {
                            if (!delivered.get()) {
                                connection.dispose();
                            }
                        });
            });
        });
    }
}
