package io.softrdma.samples.perf;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.channel.EventLoop;
import io.rsocket.Closeable;
import io.rsocket.RSocket;
import io.rsocket.SocketAcceptor;
import io.rsocket.core.RSocketConnector;
import io.rsocket.core.RSocketServer;
import io.rsocket.frame.decoder.PayloadDecoder;
import io.rsocket.transport.ClientTransport;
import io.rsocket.transport.ServerTransport;
import io.rsocket.transport.netty.client.TcpClientTransport;
import io.rsocket.transport.netty.server.TcpServerTransport;
import io.softrdma.cm.RdmaTransport;
import io.softrdma.mpa.MpaSettings;
import io.softrdma.reactive.MessagingOptions;
import io.softrdma.reactive.RdmaClient;
import io.softrdma.reactive.RdmaServer;
import io.softrdma.rsocket.RdmaClientTransport;
import io.softrdma.rsocket.RdmaServerTransport;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.Function;
import reactor.netty.resources.LoopResources;
import reactor.netty.tcp.TcpClient;
import reactor.netty.tcp.TcpServer;

/**
 * One RSocket application — a {@link PerfResponder} answered by an {@link RsocketLoad} requester — run over two
 * transports in one process on 127.0.0.1, the same code above each: SoftRDMA's RSocket transport
 * ({@link RdmaServerTransport}, {@link RdmaClientTransport}) and RSocket's own TCP transport
 * ({@link TcpServerTransport}, {@link TcpClientTransport}). Both with the zero-copy payload decoder, no
 * fragmentation, RSocket's default frame handling, the responder and the requester each on its own single-threaded
 * reactor-netty loop (native epoll when the run uses it), one connection per transport reused by every row.
 *
 * <p>Messages up to {@link #COPY_LIMIT} are fresh pooled buffers filled from the shared payload, as in the other
 * RSocket rows; larger ones are retained slices of it, so that a row at 1 MiB does not count the sender's copy of
 * its data as the transport's work. Whoever receives a message releases it (RSocket, once sent).
 *
 * <p>Thread safety: built and closed by one thread; the rows run one at a time.
 */
final class RsocketPerf implements AutoCloseable {
    /** The largest message made by copying; larger ones are slices of the payload. */
    static final int COPY_LIMIT = 64 * 1024;
    private static final Duration TIMEOUT = Duration.ofSeconds(60);

    /** What carries the RSocket frames, as named in the rows ({@code rsocket-<model>-<transport>}). */
    enum Carrier {
        RDMA, TCP;

        String wireName() {
            return name().toLowerCase(Locale.ROOT);
        }

        /** The event-loop threads of each side start with this, for {@link ThreadUsage}. */
        String clientThreads() {
            return "rs-" + wireName() + "-client";
        }

        String serverThreads() {
            return "rs-" + wireName() + "-server";
        }
    }

    /**
     * The RSocket application connected over one carrier.
     *
     * <p>Thread safety: built and closed by one thread.
     */
    static final class Stack implements AutoCloseable {
        private final Carrier carrier;
        private final LoopResources serverLoops;
        private final LoopResources clientLoops;
        private final Closeable server;
        private final RSocket requester;
        private final RsocketLoad load;

        private Stack(Carrier carrier, LoopResources serverLoops, LoopResources clientLoops, Closeable server,
                RSocket requester, RsocketLoad load) {
            this.carrier = carrier;
            this.serverLoops = serverLoops;
            this.clientLoops = clientLoops;
            this.server = server;
            this.requester = requester;
            this.load = load;
        }

        Carrier carrier() {
            return carrier;
        }

        RsocketLoad load() {
            return load;
        }

        @Override
        public void close() {
            requester.dispose();
            server.dispose();
            requester.onClose().onErrorComplete().block(TIMEOUT);
            server.onClose().onErrorComplete().block(TIMEOUT);
            clientLoops.disposeLater(Duration.ZERO, Duration.ofSeconds(2)).block(TIMEOUT);
            serverLoops.disposeLater(Duration.ZERO, Duration.ofSeconds(2)).block(TIMEOUT);
        }
    }

    private final ByteBuf payload;
    private final List<Stack> stacks = new ArrayList<>();

    /**
     * Connects the application over SoftRDMA and, with {@code tcp}, over TCP.
     *
     * @param payload at least as large as the largest message; the messages' content
     * @param crc MPA CRC32c on the SoftRDMA connection
     * @param markers MPA Markers on it
     * @param port the SoftRDMA server's port, 0 for any free one
     * @param transport the Netty transport of every event loop
     * @param messaging the SoftRDMA messaging options of both ends (inline size, send window)
     * @param tcp whether to run the TCP twin too
     */
    RsocketPerf(ByteBuf payload, boolean crc, boolean markers, int port, RdmaTransport transport,
            MessagingOptions messaging, boolean tcp) {
        this.payload = payload;
        boolean nativeLoops = transport == RdmaTransport.EPOLL;
        try {
            stacks.add(connect(Carrier.RDMA, nativeLoops, loops -> RdmaServerTransport.create(RdmaServer.create()
                    .host("127.0.0.1").port(port).mpa(MpaSettings.defaults().withCrc(crc).withMarkers(markers))
                    .messaging(messaging).tcpConfiguration(t -> t.runOn(loops, nativeLoops))),
                    (loops, address) -> RdmaClientTransport.create(RdmaClient.create()
                            .host("127.0.0.1").port(address.getPort())
                            .mpa(RdmaClient.DEFAULT_MPA.withCrc(crc).withMarkers(markers)).messaging(messaging)
                            .tcpConfiguration(t -> t.runOn(loops, nativeLoops)))));
            if (tcp) {
                stacks.add(connect(Carrier.TCP, nativeLoops, loops -> TcpServerTransport.create(TcpServer.create()
                        .host("127.0.0.1").port(0).runOn(loops, nativeLoops)),
                        (loops, address) -> TcpClientTransport.create(TcpClient.create()
                                .remoteAddress(() -> address).runOn(loops, nativeLoops))));
            }
        } catch (RuntimeException e) {
            close();
            throw e;
        }
    }

    /** How a carrier's client transport is made, once its server listens. */
    @FunctionalInterface
    private interface ClientSide {
        ClientTransport create(LoopResources loops, InetSocketAddress server);
    }

    private <S extends Closeable> Stack connect(Carrier carrier, boolean nativeLoops,
            Function<LoopResources, ServerTransport<S>> serverTransport, ClientSide clientTransport) {
        LoopResources serverLoops = LoopResources.create(carrier.serverThreads(), 1, 1, true);
        LoopResources clientLoops = LoopResources.create(carrier.clientThreads(), 1, true);
        PerfResponder responder = new PerfResponder(this::message);
        S server = RSocketServer.create(SocketAcceptor.with(responder)).payloadDecoder(PayloadDecoder.ZERO_COPY)
                .bind(serverTransport.apply(serverLoops)).block(TIMEOUT);
        RSocket requester = RSocketConnector.create().payloadDecoder(PayloadDecoder.ZERO_COPY)
                .connect(clientTransport.create(clientLoops, address(server))).block(TIMEOUT);
        RsocketLoad load = new RsocketLoad(requester, (EventLoop) clientLoops.onClient(nativeLoops).next(), responder,
                this::message, RsocketLoad.Windows::capped);
        return new Stack(carrier, serverLoops, clientLoops, server, requester, load);
    }

    private static InetSocketAddress address(Closeable server) {
        if (server instanceof io.softrdma.rsocket.CloseableRdmaServer rdma) {
            return rdma.address();
        }
        return ((io.rsocket.transport.netty.server.CloseableChannel) server).address();
    }

    /** The application over each carrier: SoftRDMA first, then TCP if it runs. */
    List<Stack> stacks() {
        return stacks;
    }

    /** A {@code size}-octet message: a pooled copy up to {@link #COPY_LIMIT}, a retained slice beyond. */
    private ByteBuf message(int size) {
        if (size > COPY_LIMIT) {
            return payload.retainedSlice(0, size);
        }
        return PooledByteBufAllocator.DEFAULT.directBuffer(size).writeBytes(payload, 0, size);
    }

    @Override
    public void close() {
        for (Stack s : stacks) {
            s.close();
        }
    }
}
