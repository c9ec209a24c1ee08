package io.softrdma.rsocket;

import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.ChannelOption;
import io.rsocket.Closeable;
import io.rsocket.transport.ServerTransport;
import io.softrdma.reactive.RdmaClient;
import io.softrdma.reactive.RdmaServer;
import java.net.InetSocketAddress;
import java.time.Duration;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;

/**
 * The transports RSocket's test kit ({@code io.rsocket.test.TransportTest}) runs on: SoftRDMA on 127.0.0.1 with the
 * allocator the kit hands over, so that the frames RSocket allocates ({@code DuplexConnection.alloc()} is the
 * channel's) are the ones the kit's {@code LeaksTrackingByteBufAllocator} checks after each test, as it does for
 * Reactor Netty's TCP transport ({@code TcpTransportTest} sets {@code ChannelOption.ALLOCATOR} the same way).
 */
final class KitTransports {
    /** Longer than a graceful close ever takes here; the kit's own timeout (two minutes) is longer still. */
    private static final Duration SESSIONS_END = Duration.ofSeconds(30);

    private KitTransports() {
    }

    static InetSocketAddress anyPort() {
        return new InetSocketAddress("127.0.0.1", 0);
    }

    static RdmaClientTransport client(KitServer server, ByteBufAllocator allocator) {
        return RdmaClientTransport.create(RdmaClient.create().host("127.0.0.1").port(server.address().getPort())
                .tcpConfiguration(tcp -> tcp.option(ChannelOption.ALLOCATOR, allocator)));
    }

    static ServerTransport<KitServer> server(InetSocketAddress address, ByteBufAllocator allocator) {
        RdmaServerTransport transport = RdmaServerTransport.create(RdmaServer.create().host(address.getHostString())
                .port(address.getPort()).tcpConfiguration(tcp -> tcp.childOption(ChannelOption.ALLOCATOR, allocator)));
        return new ServerTransport<>() {
            @Override
            public Mono<KitServer> start(ConnectionAcceptor acceptor) {
                return transport.start(acceptor).map(KitServer::new);
            }

            @Override
            public int maxFrameLength() {
                return transport.maxFrameLength();
            }
        };
    }

    /**
     * The kit's server: disposed, it closes its sessions too, and {@link #onClose()} completes once they have ended.
     *
     * <p>Why: after each test the kit disposes both ends, waits for the client's and the server's {@code onClose()},
     * and then checks that every frame buffer has been released; a buffer still held makes it call
     * {@code System.gc()} 200 times before it looks again (about 5 s here, 15 s on CI). The server's own
     * {@code onClose()} is its listening socket's, as with Reactor Netty's {@code CloseableChannel}, so the check
     * races with the server side of the connection, which ends only after the client's close reaches it and
     * releases RSocket's SETUP frame and whatever else that connection held then. Waiting for the server's sessions
     * to end takes most of that race away. What is left is RSocket's own teardown, a few milliseconds behind the
     * session's end (docs/rsocket.md, "Tests"): the kit waits for it, at the cost above. A buffer never released
     * is a leak and fails the test, as before.
     */
    static final class KitServer implements Closeable {
        private final CloseableRdmaServer server;
        private final Sinks.Empty<Void> closed = Sinks.empty();

        KitServer(CloseableRdmaServer server) {
            this.server = server;
        }

        InetSocketAddress address() {
            return server.address();
        }

        @Override
        public void dispose() {
            server.disposeGracefully(SESSIONS_END).subscribe(null, closed::tryEmitError, closed::tryEmitEmpty);
        }

        @Override
        public boolean isDisposed() {
            return server.isDisposed();
        }

        @Override
        public Mono<Void> onClose() {
            return closed.asMono();
        }
    }
}
