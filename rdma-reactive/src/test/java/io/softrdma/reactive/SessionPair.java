package io.softrdma.reactive;

import io.softrdma.verbs.QueuePairConfig;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;

/** A server and a client session connected over loopback, for tests; closing ends both. */
final class SessionPair implements AutoCloseable {
    static final Duration TIMEOUT = Duration.ofSeconds(10);

    final DisposableRdmaServer server;
    final RdmaSession client;
    final RdmaSession serverSession;

    SessionPair(UnaryOperator<QueuePairConfig> queuePair) throws Exception {
        CompletableFuture<RdmaSession> accepted = new CompletableFuture<>();
        server = RdmaServer.create().host("127.0.0.1").port(0).queuePair(queuePair).handle(session -> {
            accepted.complete(session);
            return session.onDispose();
        }).bindNow();
        client = RdmaClient.create().host("127.0.0.1").port(server.port()).queuePair(queuePair).connect()
                .block(TIMEOUT);
        serverSession = accepted.get(5, TimeUnit.SECONDS);
    }

    @Override
    public void close() {
        client.dispose();
        client.onDispose().block(TIMEOUT);
        serverSession.onDispose().block(TIMEOUT);
        server.disposeNow(TIMEOUT);
    }
}
