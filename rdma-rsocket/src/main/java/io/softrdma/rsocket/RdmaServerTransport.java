package io.softrdma.rsocket;

import io.rsocket.transport.ServerTransport;
import io.softrdma.reactive.RdmaServer;
import java.util.Objects;
import reactor.core.publisher.Mono;

/**
 * RSocket's server transport over SoftRDMA: each accepted RDMA session is one RSocket connection, its frames
 * one credit-controlled message each (docs/rsocket.md). The {@link RdmaServer} given keeps its MPA settings,
 * TLS, accept decision, session limits and metrics; its {@code handle} is this transport's.
 *
 * <pre>{@code
 * CloseableRdmaServer server = RSocketServer.create(SocketAcceptor.with(handler))
 *         .bind(RdmaServerTransport.create(host, port)).block();
 * }</pre>
 *
 * <p>Thread safety: immutable; {@link #start} may be called from any thread.
 */
public final class RdmaServerTransport implements ServerTransport<CloseableRdmaServer> {
    private final RdmaServer server;

    private RdmaServerTransport(RdmaServer server) {
        this.server = server;
    }

    /**
     * A transport listening on every address at {@code port}, with SoftRDMA's defaults but
     * {@link RSocketMessaging#DEFAULTS}' messaging sizes (16 KiB Sends).
     *
     * @param port 0 for any free port, or 1 to 65535
     * @return the transport
     */
    public static RdmaServerTransport create(int port) {
        return create("0.0.0.0", port);
    }

    /**
     * A transport listening on {@code host}:{@code port}, with SoftRDMA's defaults but
     * {@link RSocketMessaging#DEFAULTS}' messaging sizes (16 KiB Sends).
     *
     * @param host the address to bind
     * @param port 0 for any free port, or 1 to 65535
     * @return the transport
     */
    public static RdmaServerTransport create(String host, int port) {
        Objects.requireNonNull(host, "host");
        if (port < 0 || port > 65535) {
            throw new IllegalArgumentException("port must be from 0 (any) to 65535, was " + port);
        }
        return new RdmaServerTransport(RdmaServer.create().host(host).port(port)
                .messaging(RSocketMessaging.DEFAULTS));
    }

    /**
     * A transport that listens with {@code server} as configured.
     *
     * @param server an {@link RdmaServer} that runs SoftRDMA messaging (no other session protocol)
     * @return the transport
     * @throws IllegalArgumentException if {@code server} runs another session protocol
     */
    public static RdmaServerTransport create(RdmaServer server) {
        Objects.requireNonNull(server, "server");
        if (!server.configuration().session().runsMessaging()) {
            throw new IllegalArgumentException("RSocket runs on SoftRDMA messaging, but this server runs "
                    + server.configuration().session().protocol().name() + ": drop its protocol(...)");
        }
        return new RdmaServerTransport(server);
    }

    /** The {@link RdmaServer} it listens with. */
    public RdmaServer server() {
        return server;
    }

    @Override
    public Mono<CloseableRdmaServer> start(ConnectionAcceptor acceptor) {
        Objects.requireNonNull(acceptor, "acceptor");
        return server.handle(session -> {
            RdmaDuplexConnection connection = new RdmaDuplexConnection("server", session);
            // The session lives until it ends; RSocket closes it (rejected SETUP, dispose) through the connection,
            // and an acceptor that fails closes it too, after the frames it queued (an ERROR frame, typically).
            // The acceptor's Context names the peer, for RdmaPeer.interceptor() to hand on to the responder.
            return acceptor.apply(connection).contextWrite(RdmaPeer.context(session)).onErrorResume(e -> {
                connection.dispose();
                return Mono.empty();
            }).then(connection.onClose());
        }).bind().map(CloseableRdmaServer::new);
    }

    /** The largest frame: RSocket's own limit (16 MiB less one octet) or the largest message, if smaller. */
    @Override
    public int maxFrameLength() {
        return Frames.maxFrameLength(server.configuration().session().messaging().maxMessageSize());
    }
}
