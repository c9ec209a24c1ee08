package io.softrdma.cm;

import io.netty.channel.EventLoopGroup;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.SelectStrategyFactory;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.ServerSocketChannel;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.softrdma.internal.transport.BusyPollSelectStrategy;
import java.nio.channels.spi.SelectorProvider;
import java.time.Duration;
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

    /**
     * As {@link #ioHandlerFactory()}, with loops that busy-poll for {@code busyPoll} after each burst of work before
     * they block (see {@link #newEventLoopGroup(int, ThreadFactory, Duration)}); {@link Duration#ZERO} for none.
     *
     * @throws IllegalArgumentException if {@code busyPoll} is negative
     */
    public IoHandlerFactory ioHandlerFactory(Duration busyPoll) {
        if (busyPoll.isNegative()) {
            throw new IllegalArgumentException("busyPoll must be zero (off) or positive, was " + busyPoll);
        }
        if (busyPoll.isZero() || Runtime.getRuntime().availableProcessors() < 2) {
            return ioHandlerFactory();
        }
        SelectStrategyFactory polling = BusyPollSelectStrategy.factory(busyPoll.toNanos());
        return this == EPOLL ? EpollIoHandler.newFactory(0, polling)
                : NioIoHandler.newFactory(SelectorProvider.provider(), polling);
    }

    /** A new event loop group of {@code threads} threads (0: Netty's default of twice the cores). */
    public EventLoopGroup newEventLoopGroup(int threads, ThreadFactory threadFactory) {
        return new MultiThreadIoEventLoopGroup(threads, threadFactory, ioHandlerFactory());
    }

    /**
     * A new event loop group whose loops busy-poll their sockets for {@code busyPoll} after each burst of work before
     * they sleep, as an RDMA application polls its completion queue: an answer that comes within that time is taken
     * without waking a sleeping thread, which saves microseconds per round trip when operations go one at a time,
     * at the price of up to {@code busyPoll} of CPU after every burst (none while a loop is idle). With fewer than two
     * processors available the loops do not poll (a polling loop would only delay the peer it waits for).
     * {@link Duration#ZERO} is {@link #newEventLoopGroup(int, ThreadFactory)}.
     *
     * @throws IllegalArgumentException if {@code busyPoll} is negative
     */
    public EventLoopGroup newEventLoopGroup(int threads, ThreadFactory threadFactory, Duration busyPoll) {
        return new MultiThreadIoEventLoopGroup(threads, threadFactory, ioHandlerFactory(busyPoll));
    }

    public Class<? extends SocketChannel> socketChannel() {
        return this == EPOLL ? EpollSocketChannel.class : NioSocketChannel.class;
    }

    public Class<? extends ServerSocketChannel> serverSocketChannel() {
        return this == EPOLL ? EpollServerSocketChannel.class : NioServerSocketChannel.class;
    }
}
