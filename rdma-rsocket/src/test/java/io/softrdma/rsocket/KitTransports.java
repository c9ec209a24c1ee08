package io.softrdma.rsocket;

import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.ChannelOption;
import io.softrdma.reactive.RdmaClient;
import io.softrdma.reactive.RdmaServer;
import java.net.InetSocketAddress;

/**
 * The transports RSocket's test kit ({@code io.rsocket.test.TransportTest}) runs on: SoftRDMA on 127.0.0.1 with the
 * allocator the kit hands over, so that the frames RSocket allocates ({@code DuplexConnection.alloc()} is the
 * channel's) are the ones the kit's {@code LeaksTrackingByteBufAllocator} checks after each test, as it does for
 * Reactor Netty's TCP transport ({@code TcpTransportTest} sets {@code ChannelOption.ALLOCATOR} the same way).
 */
final class KitTransports {
    private KitTransports() {
    }

    static InetSocketAddress anyPort() {
        return new InetSocketAddress("127.0.0.1", 0);
    }

    static RdmaClientTransport client(CloseableRdmaServer server, ByteBufAllocator allocator) {
        return RdmaClientTransport.create(RdmaClient.create().host("127.0.0.1").port(server.address().getPort())
                .tcpConfiguration(tcp -> tcp.option(ChannelOption.ALLOCATOR, allocator)));
    }

    static RdmaServerTransport server(InetSocketAddress address, ByteBufAllocator allocator) {
        return RdmaServerTransport.create(RdmaServer.create().host(address.getHostString()).port(address.getPort())
                .tcpConfiguration(tcp -> tcp.childOption(ChannelOption.ALLOCATOR, allocator)));
    }
}
