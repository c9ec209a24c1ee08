package io.softrdma.samples.perf;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.channel.socket.SocketChannel;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.softrdma.cm.RdmaTransport;
import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * One event loop for the server and one for the client (two cores), reused by every test of a run.
 * Both SoftRDMA and raw TCP channels use Netty's pooled allocator, whose recycled slices keep
 * SoftRDMA's steady state free of allocation.
 */
final class Loopback implements AutoCloseable {
    /** Enough queued output for a few 64 KiB messages before the sender waits for writability. */
    private static final WriteBufferWaterMark WATER_MARK = new WriteBufferWaterMark(512 * 1024, 2 * 1024 * 1024);

    static final String SERVER_THREADS = "tcp-server";
    static final String CLIENT_THREADS = "tcp-client";

    private final RdmaTransport transport;
    private final EventLoopGroup serverGroup;
    private final EventLoopGroup clientGroup;

    Loopback(RdmaTransport transport) {
        this.transport = transport;
        this.serverGroup = transport.newEventLoopGroup(1, new DefaultThreadFactory(SERVER_THREADS, true));
        this.clientGroup = transport.newEventLoopGroup(1, new DefaultThreadFactory(CLIENT_THREADS, true));
    }

    Channel bind(int port, Consumer<SocketChannel> init) {
        return new ServerBootstrap().group(serverGroup).channel(transport.serverSocketChannel())
                .childOption(ChannelOption.TCP_NODELAY, true)
                .childOption(ChannelOption.ALLOCATOR, PooledByteBufAllocator.DEFAULT)
                .childOption(ChannelOption.WRITE_BUFFER_WATER_MARK, WATER_MARK)
                .childHandler(initializer(init))
                .bind(new InetSocketAddress("127.0.0.1", port)).syncUninterruptibly().channel();
    }

    Channel connect(Channel server, Consumer<SocketChannel> init) {
        return new Bootstrap().group(clientGroup).channel(transport.socketChannel())
                .option(ChannelOption.TCP_NODELAY, true)
                .option(ChannelOption.ALLOCATOR, PooledByteBufAllocator.DEFAULT)
                .option(ChannelOption.WRITE_BUFFER_WATER_MARK, WATER_MARK)
                .handler(initializer(init))
                .connect(server.localAddress()).syncUninterruptibly().channel();
    }

    private static ChannelHandler initializer(Consumer<SocketChannel> init) {
        return new ChannelInitializer<SocketChannel>() {
            @Override
            protected void initChannel(SocketChannel ch) {
                init.accept(ch);
            }
        };
    }

    @Override
    public void close() {
        clientGroup.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
        serverGroup.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }
}
