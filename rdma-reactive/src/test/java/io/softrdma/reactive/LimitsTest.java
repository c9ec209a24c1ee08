package io.softrdma.reactive;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.softrdma.mpa.MpaRejectedException;
import io.softrdma.verbs.Access;
import io.softrdma.verbs.RemoteMemory;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import reactor.test.StepVerifier;

/** The configured bounds of docs/robustness.md that the reactive layer enforces, each hit on purpose. */
class LimitsTest {
    private static final Duration TIMEOUT = Duration.ofSeconds(10);

    @Test
    void aServerHoldsAtMostMaxSessionsAndRefusesTheNextWithAReason() {
        DisposableRdmaServer server = RdmaServer.create().host("127.0.0.1").port(0).maxSessions(2).bindNow();
        List<RdmaSession> open = new ArrayList<>();
        try {
            for (int i = 0; i < 2; i++) {
                open.add(RdmaClient.create().host("127.0.0.1").port(server.port()).connect().block(TIMEOUT));
            }
            StepVerifier.create(RdmaClient.create().host("127.0.0.1").port(server.port()).connect())
                    .expectErrorSatisfies(t -> {
                        assertThat(t).isInstanceOf(MpaRejectedException.class);
                        // The Reject's private data says why (after the RFC 8797 block a SoftRDMA peer puts first).
                        assertThat(new String(((MpaRejectedException) t).privateData(), StandardCharsets.UTF_8))
                                .contains("server full: 2 sessions (maxSessions)");
                    })
                    .verify(TIMEOUT);
            // A session that ends makes room.
            open.remove(0).dispose();
            await().atMost(TIMEOUT).until(() -> server.sessionCount() <= 1);
            open.add(RdmaClient.create().host("127.0.0.1").port(server.port()).connect().block(TIMEOUT));
        } finally {
            open.forEach(RdmaSession::dispose);
            server.disposeNow(TIMEOUT);
        }
    }

    @Test
    void writesAndReadsBeyondTheQueuedBoundFailAtOnceAndTheRestComplete() throws Exception {
        CompletableFuture<RdmaSession> accepted = new CompletableFuture<>();
        DisposableRdmaServer server = RdmaServer.create().host("127.0.0.1").port(0).handle(session -> {
            accepted.complete(session);
            return session.onDispose();
        }).bindNow();
        try {
            // sendQueueDepth 8: 2 entries for the application; 10 more may wait.
            RdmaSession client = RdmaClient.create().host("127.0.0.1").port(server.port())
                    .queuePair(q -> q.withSendQueueDepth(8))
                    .messaging(MessagingOptions.DEFAULTS.withMaxQueuedOperations(10)).connect().block(TIMEOUT);
            LocalRegion region = accepted.get(5, TimeUnit.SECONDS).allocate(4096, Access.REMOTE_READ);
            RemoteMemory remote = region.remote();
            List<String> outcomes = new CopyOnWriteArrayList<>();
            CompletableFuture<Void> all = new CompletableFuture<>();
            // Subscribed on the session's event loop, in one task: 2 posted, 10 waiting, the 13th over the bound.
            client.connection().channel().eventLoop().submit(() -> {
                for (int i = 0; i < 13; i++) {
                    int n = i;
                    client.read(remote.slice(0, 64)).subscribe(b -> outcomes.add(n + " ok"),
                            e -> {
                                outcomes.add(n + " " + e.getMessage());
                                if (outcomes.size() == 13) {
                                    all.complete(null);
                                }
                            }, () -> {
                                if (outcomes.size() == 13) {
                                    all.complete(null);
                                }
                            });
                }
            }).get(5, TimeUnit.SECONDS);
            all.get(10, TimeUnit.SECONDS);
            assertThat(outcomes).filteredOn(o -> o.endsWith(" ok")).hasSize(12);
            assertThat(outcomes).filteredOn(o -> !o.endsWith(" ok")).singleElement().asString()
                    .startsWith("12 10 Writes and Reads already wait").contains("maxQueuedOperations");
            region.dispose();
            client.dispose();
            client.onDispose().block(TIMEOUT);
        } finally {
            server.disposeNow(TIMEOUT);
        }
    }

    @Test
    void requestsBeyondTheQueuedBoundFailAtOnce() {
        // The server never answers: requests stay outstanding.
        DisposableRdmaServer server = RdmaServer.create().host("127.0.0.1").port(0).bindNow();
        try {
            RdmaSession client = RdmaClient.create().host("127.0.0.1").port(server.port())
                    .messaging(MessagingOptions.DEFAULTS.withMaxQueuedOperations(10)).connect().block(TIMEOUT);
            List<reactor.core.Disposable> pending = new ArrayList<>();
            for (int i = 0; i < 10; i++) {
                pending.add(client.request(Unpooled.copiedBuffer("q" + i, StandardCharsets.US_ASCII))
                        .subscribe(b -> { }, e -> { }));
            }
            StepVerifier.create(client.request(Unpooled.copiedBuffer("one too many", StandardCharsets.US_ASCII)))
                    .expectErrorSatisfies(t -> assertThat(t).isInstanceOf(IllegalStateException.class)
                            .hasMessageContaining("10 requests await their response")
                            .hasMessageContaining("maxQueuedOperations"))
                    .verify(TIMEOUT);
            client.dispose();
            client.onDispose().block(TIMEOUT);
            pending.forEach(reactor.core.Disposable::dispose);
        } finally {
            server.disposeNow(TIMEOUT);
        }
    }
}
