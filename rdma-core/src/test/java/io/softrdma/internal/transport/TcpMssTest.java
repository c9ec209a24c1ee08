package io.softrdma.internal.transport;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.EventLoopGroup;
import io.softrdma.cm.RdmaTransport;
import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

class TcpMssTest {

    /** RFC 5044 §5.1: the EMSS from the kernel (epoll) or from the loopback MTU (NIO). */
    @ParameterizedTest
    @EnumSource(RdmaTransport.class)
    void effectiveMssOfALoopbackConnection(RdmaTransport kind) throws Exception {
        org.junit.jupiter.api.Assumptions.assumeTrue(kind != RdmaTransport.EPOLL || RdmaTransport.best() == kind,
                "native epoll is not available on this platform");
        EventLoopGroup group = kind.newEventLoopGroup(1, r -> new Thread(r, "mss-test"));
        try {
            Channel server = new ServerBootstrap().group(group).channel(kind.serverSocketChannel())
                    .childHandler(new ChannelInboundHandlerAdapter())
                    .bind(new InetSocketAddress("127.0.0.1", 0)).sync().channel();
            Channel client = new Bootstrap().group(group).channel(kind.socketChannel())
                    .handler(new ChannelInboundHandlerAdapter()).connect(server.localAddress()).sync().channel();
            int emss = client.eventLoop().submit(() -> TcpMss.effectiveMss(client)).get(5, TimeUnit.SECONDS);
            // Linux loopback: MTU 65536, so an EMSS in the tens of kilobytes either way.
            assertThat(emss).isBetween(16_000, 65_536 - 40);
            client.close().sync();
            server.close().sync();
        } finally {
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
        }
    }
}
