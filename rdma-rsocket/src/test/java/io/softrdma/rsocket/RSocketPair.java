package io.softrdma.rsocket;

import io.rsocket.RSocket;
import io.rsocket.SocketAcceptor;
import io.rsocket.core.RSocketConnector;
import io.rsocket.core.RSocketServer;
import io.softrdma.reactive.RdmaClient;
import io.softrdma.reactive.RdmaServer;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.UnaryOperator;
import org.awaitility.Awaitility;
import reactor.core.publisher.Mono;

/**
 * An RSocket server and a connected RSocket client over SoftRDMA on 127.0.0.1, for tests. Both ends' RDMA
 * connections are kept as they open (through RSocket's {@code SOURCE} connection interceptor, which sees the
 * transport's own connection), so a test can reach the RDMA session under an RSocket: its counters, its TCP channel.
 * Closing ends the client, the server and every connection, and waits until each has ended, so that the leak check
 * after the test sees every buffer's fate decided.
 */
final class RSocketPair implements AutoCloseable {
    static final Duration TIMEOUT = Duration.ofSeconds(20);

    final CloseableRdmaServer server;
    final RSocket client;
    /** Every RDMA connection the client opened, oldest first (more than one after a resumption). */
    final List<RdmaDuplexConnection> clientConnections = new CopyOnWriteArrayList<>();
    /** Every RDMA connection the server accepted, oldest first. */
    final List<RdmaDuplexConnection> serverConnections = new CopyOnWriteArrayList<>();

    RSocketPair(RSocket responder) {
        this(responder, s -> s, c -> c, s -> s, c -> c);
    }

    RSocketPair(RSocket responder, UnaryOperator<RSocketServer> rsocketServer,
            UnaryOperator<RSocketConnector> connector, UnaryOperator<RdmaServer> rdmaServer,
            UnaryOperator<RdmaClient> rdmaClient) {
        RSocketServer s = RSocketServer.create(SocketAcceptor.with(responder))
                .interceptors(r -> r.forConnection((type, c) -> keep(c, serverConnections)));
        server = rsocketServer.apply(s)
                .bind(RdmaServerTransport.create(rdmaServer.apply(RdmaServer.create().host("127.0.0.1").port(0))))
                .block(TIMEOUT);
        RSocketConnector c = RSocketConnector.create()
                .interceptors(r -> r.forConnection((type, conn) -> keep(conn, clientConnections)));
        RdmaClient rdma = rdmaClient.apply(RdmaClient.create().host("127.0.0.1").port(server.address().getPort()));
        client = connector.apply(c).connect(RdmaClientTransport.create(rdma)).block(TIMEOUT);
    }

    private static io.rsocket.DuplexConnection keep(io.rsocket.DuplexConnection c, List<RdmaDuplexConnection> to) {
        if (c instanceof RdmaDuplexConnection rdma && !to.contains(rdma)) {
            to.add(rdma);
        }
        return c;
    }

    /** The client's current RDMA connection. */
    RdmaDuplexConnection clientConnection() {
        return clientConnections.get(clientConnections.size() - 1);
    }

    /** The server's current RDMA connection, once the server has accepted it. */
    RdmaDuplexConnection serverConnection() {
        if (serverConnections.isEmpty()) {
            Awaitility.await().atMost(TIMEOUT).until(() -> !serverConnections.isEmpty());
        }
        return serverConnections.get(serverConnections.size() - 1);
    }

    @Override
    public void close() {
        client.dispose();
        server.dispose();
        for (RdmaDuplexConnection c : clientConnections) {
            c.dispose();
        }
        for (RdmaDuplexConnection c : serverConnections) {
            c.dispose();
        }
        Mono.when(client.onClose().onErrorResume(e -> Mono.empty()), server.onClose().onErrorResume(e -> Mono.empty()))
                .block(TIMEOUT);
        for (RdmaDuplexConnection c : clientConnections) {
            c.session().onDispose().block(TIMEOUT);
        }
        for (RdmaDuplexConnection c : serverConnections) {
            c.session().onDispose().block(TIMEOUT);
        }
    }
}
