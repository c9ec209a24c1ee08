package io.softrdma.cm;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.socket.SocketChannel;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.softrdma.internal.mpa.MpaStartupHandler;
import io.softrdma.mpa.MpaSettings;
import io.softrdma.verbs.QueuePair;
import io.softrdma.verbs.QueuePairHandler;
import java.net.SocketAddress;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * Listens for and opens RDMAP connections over TCP: sets up each channel (TCP_NODELAY, the pooled
 * allocator, epoll when present), runs the MPA startup with private data (RFC 5044 §7.1) and binds a
 * queue pair to the stream.
 *
 * <p>Thread safety: all methods may be called from any thread.
 */
public final class ConnectionManager implements AutoCloseable {

    private final RdmaTransport transport;
    private final EventLoopGroup group;
    private final boolean ownsGroup;

    private ConnectionManager(RdmaTransport transport, EventLoopGroup group, boolean ownsGroup) {
        this.transport = transport;
        this.group = group;
        this.ownsGroup = ownsGroup;
    }

    /** A connection manager with its own event loops, one per core, on the best transport here. */
    public static ConnectionManager create() {
        return create(0);
    }

    /** A connection manager with {@code threads} event loops of its own (0: one per core). */
    public static ConnectionManager create(int threads) {
        RdmaTransport transport = RdmaTransport.best();
        int n = threads > 0 ? threads : Runtime.getRuntime().availableProcessors();
        return new ConnectionManager(transport,
                transport.newEventLoopGroup(n, new DefaultThreadFactory("softrdma", true)), true);
    }

    /** A connection manager on event loops the caller owns (and shuts down). */
    public static ConnectionManager create(RdmaTransport transport, EventLoopGroup group) {
        return new ConnectionManager(Objects.requireNonNull(transport, "transport"),
                Objects.requireNonNull(group, "group"), false);
    }

    public EventLoopGroup eventLoopGroup() {
        return group;
    }

    /**
     * Listens on {@code local}; {@code handler} decides on each connection once its MPA Request has
     * arrived.
     *
     * @throws java.io.UncheckedIOException if the address cannot be bound (for example, it is in use)
     */
    public RdmaListener listen(SocketAddress local, MpaSettings settings, ConnectRequestHandler handler) {
        return listen(local, settings, handler, StartupLimiter.DEFAULT_MAX_PENDING);
    }

    /**
     * As {@link #listen(SocketAddress, MpaSettings, ConnectRequestHandler)}, running at most
     * {@code maxPendingStartups} MPA startups at once ({@link StartupLimiter}): connections beyond that are
     * closed as they arrive.
     *
     * @throws java.io.UncheckedIOException if the address cannot be bound (for example, it is in use)
     */
    public RdmaListener listen(SocketAddress local, MpaSettings settings, ConnectRequestHandler handler,
            int maxPendingStartups) {
        StartupLimiter limiter = new StartupLimiter(maxPendingStartups);
        Objects.requireNonNull(settings, "settings");
        Objects.requireNonNull(handler, "handler");
        ServerBootstrap server = new ServerBootstrap().group(group).channel(transport.serverSocketChannel());
        RdmaPipeline.applyOptions(server::childOption);
        ChannelFuture bound = server
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        RdmaPipeline.responder(ch, settings, handler, null, limiter);
                    }
                }).bind(local).awaitUninterruptibly();
        if (!bound.isSuccess()) {
            Throwable cause = bound.cause();
            String message = "could not listen on " + local + ": " + cause.getMessage();
            if (cause instanceof java.io.IOException io) {
                throw new java.io.UncheckedIOException(message, io);
            }
            throw new IllegalStateException(message, cause);
        }
        return new RdmaListener(bound.channel(), limiter);
    }

    /**
     * Connects to {@code remote}, runs the MPA startup as initiator with {@code privateData}, and binds
     * {@code queuePair} (which must be IDLE) to the stream. With MPA revision 2 the Request offers the
     * queue pair's configured IRD and ORD (RFC 6581 §5); the queue pair then uses the negotiated ones.
     *
     * @param connectTimeout how long the TCP connection may take (the MPA Reply has its own timeout)
     * @return completes with the connection once in RDMA mode; fails with the MPA startup's error (an
     *     {@link io.softrdma.mpa.MpaRejectedException} carries the responder's private data)
     */
    public CompletableFuture<RdmaConnection> connect(SocketAddress remote, QueuePair queuePair, byte[] privateData,
            MpaSettings settings, Duration connectTimeout) {
        QueuePairHandler.of(queuePair); // fails fast if not IDLE, before any socket is opened
        CompletableFuture<RdmaConnection> result = new CompletableFuture<>();
        @SuppressWarnings("unchecked")
        CompletableFuture<RdmaConnection>[] established = new CompletableFuture[1];
        Bootstrap bootstrap = new Bootstrap().group(group).channel(transport.socketChannel())
                .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, (int) Math.min(Integer.MAX_VALUE,
                        connectTimeout.toMillis()));
        RdmaPipeline.applyOptions(bootstrap::option);
        // Validated here, on the caller's thread: the initializer below must not throw.
        MpaStartupHandler.initiator(settings, queuePair.config().ird(), queuePair.config().ord(), privateData);
        ChannelFuture connect = bootstrap.handler(new ChannelInitializer<SocketChannel>() {
            @Override
            protected void initChannel(SocketChannel ch) {
                established[0] = RdmaPipeline.initiator(ch, queuePair, privateData, settings);
                established[0].whenComplete((c, failure) -> {
                    if (failure == null) {
                        result.complete(c);
                    }
                });
            }
        }).connect(remote);
        connect.addListener(f -> {
            if (!f.isSuccess()) {
                queuePair.close();
                result.completeExceptionally(f.cause());
            } else {
                established[0].whenComplete((c, failure) -> {
                    if (failure != null) {
                        result.completeExceptionally(failure);
                    }
                });
            }
        });
        return result;
    }

    /** Shuts down the event loops this manager created (not those given to it). */
    @Override
    public void close() {
        if (ownsGroup) {
            group.shutdownGracefully(0, 2, TimeUnit.SECONDS).syncUninterruptibly();
        }
    }
}
