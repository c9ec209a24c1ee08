package io.softrdma.cm;

import io.netty.channel.EventLoopGroup;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.ServerSocketChannel;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import java.util.concurrent.ThreadFactory;

/**
 * The Netty transports SoftRDMA runs on: native epoll when the platform has it (it reports the real
 * TCP EMSS and saves a copy per read), else the JDK's NIO. For code that makes its own event loops and
 * channels for SoftRDMA ({@link ConnectionManager#create(RdmaTransport, EventLoopGroup)}, a reactor-netty
 * client or server with {@link RdmaPipeline}): the event loop group and the channel classes that go
 * together.
 *
 * <p>Thread safety: an enum, immutable.
 */
public enum RdmaTransport {
    EPOLL,
    NIO;

    /** Native epoll if it loaded on this platform, else NIO. */
    public static RdmaTransport best() {
        return Epoll.isAvailable() ? EPOLL : NIO;
    }

    public IoHandlerFactory ioHandlerFactory() {
        return this == EPOLL ? EpollIoHandler.newFactory() : NioIoHandler.newFactory();
    }

    /** A new event loop group of {@code threads} threads (0: Netty's default of twice the cores). */
    public EventLoopGroup newEventLoopGroup(int threads, ThreadFactory threadFactory) {
        return new MultiThreadIoEventLoopGroup(threads, threadFactory, ioHandlerFactory());
    }

    public Class<? extends SocketChannel> socketChannel() {
        return this == EPOLL ? EpollSocketChannel.class : NioSocketChannel.class;
    }

    public Class<? extends ServerSocketChannel> serverSocketChannel() {
        return this == EPOLL ? EpollServerSocketChannel.class : NioServerSocketChannel.class;
    }
}
