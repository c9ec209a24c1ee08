package io.softrdma.cm;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.FixedRecvByteBufAllocator;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.channel.socket.SocketChannel;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.softrdma.mpa.MpaSettings;
import io.softrdma.mpa.MpaStartupHandler;
import io.softrdma.transport.PipelineNames;
import io.softrdma.transport.TransportKind;
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
    /** Enough queued output for a few 64 KiB messages before a queue pair pauses for writability. */
    private static final WriteBufferWaterMark WATER_MARK = new WriteBufferWaterMark(512 * 1024, 2 * 1024 * 1024);
    /**
     * Reads into 64 KiB buffers, not into buffers sized to recent reads: an FPDU split across two
     * reads must be cumulated (and sliced from a composite, an allocation), and with large buffers
     * that happens once per 64 KiB at most, not once per small read.
     */
    private static final FixedRecvByteBufAllocator READ_BUFFERS = new FixedRecvByteBufAllocator(64 * 1024);

    private final TransportKind transport;
    private final EventLoopGroup group;
    private final boolean ownsGroup;

    private ConnectionManager(TransportKind transport, EventLoopGroup group, boolean ownsGroup) {
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
        TransportKind transport = TransportKind.best();
        int n = threads > 0 ? threads : Runtime.getRuntime().availableProcessors();
        return new ConnectionManager(transport,
                transport.newEventLoopGroup(n, new DefaultThreadFactory("softrdma", true)), true);
    }

    /** A connection manager on event loops the caller owns (and shuts down). */
    public static ConnectionManager create(TransportKind transport, EventLoopGroup group) {
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
        Objects.requireNonNull(settings, "settings");
        Objects.requireNonNull(handler, "handler");
        ChannelFuture bound = new ServerBootstrap().group(group).channel(transport.serverSocketChannel())
                .childOption(ChannelOption.TCP_NODELAY, true)
                .childOption(ChannelOption.ALLOCATOR, PooledByteBufAllocator.DEFAULT)
                .childOption(ChannelOption.WRITE_BUFFER_WATER_MARK, WATER_MARK)
                .childOption(ChannelOption.RCVBUF_ALLOCATOR, READ_BUFFERS)
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        MpaStartupHandler[] startup = new MpaStartupHandler[1];
                        startup[0] = MpaStartupHandler.responder(settings, (request, decision) ->
                                handler.onConnectRequest(new ConnectRequest(ch, request, decision, startup[0])));
                        ch.pipeline().addLast(PipelineNames.MPA_STARTUP, startup[0]);
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
        return new RdmaListener(bound.channel());
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
        QueuePairHandler qpHandler = QueuePairHandler.of(queuePair);
        MpaStartupHandler startup = MpaStartupHandler.initiator(settings, queuePair.config().ird(),
                queuePair.config().ord(), privateData);
        CompletableFuture<RdmaConnection> result = new CompletableFuture<>();
        ChannelFuture connect = new Bootstrap().group(group).channel(transport.socketChannel())
                .option(ChannelOption.TCP_NODELAY, true)
                .option(ChannelOption.ALLOCATOR, PooledByteBufAllocator.DEFAULT)
                .option(ChannelOption.WRITE_BUFFER_WATER_MARK, WATER_MARK)
                .option(ChannelOption.RCVBUF_ALLOCATOR, READ_BUFFERS)
                .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, (int) Math.min(Integer.MAX_VALUE, connectTimeout.toMillis()))
                .handler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        ch.pipeline().addLast(PipelineNames.MPA_STARTUP, startup);
                        ch.pipeline().addLast(PipelineNames.QUEUE_PAIR, qpHandler);
                    }
                }).connect(remote);
        connect.addListener(f -> {
            if (!f.isSuccess()) {
                queuePair.close();
                result.completeExceptionally(f.cause());
            }
        });
        startup.outcome().whenComplete((n, failure) -> {
            if (failure != null) {
                // A TCP connect that failed also removes the startup handler: report the cause, not that.
                boolean tcpFailed = connect.isDone() && !connect.isSuccess();
                result.completeExceptionally(tcpFailed ? connect.cause() : failure);
            } else {
                result.complete(new RdmaConnection(connect.channel(), queuePair, n));
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
