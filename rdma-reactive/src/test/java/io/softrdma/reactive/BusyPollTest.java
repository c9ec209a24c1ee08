package io.softrdma.reactive;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.buffer.Unpooled;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;

/**
 * {@link RdmaClient#busyPoll(Duration)} and {@link RdmaServer#busyPoll(Duration)}: the sessions run on the shared
 * polling loops of that time, requests and responses go through them, and a negative time is refused.
 */
class BusyPollTest {
    private static final Duration TIMEOUT = Duration.ofSeconds(10);

    @Test
    void sessionsRunOnThePollingLoopsAndRequestsGoThrough() throws Exception {
        CompletableFuture<RdmaSession> accepted = new CompletableFuture<>();
        DisposableRdmaServer server = RdmaServer.create().host("127.0.0.1").port(0).busyPoll(Duration.ofNanos(25_000))
                .handle(session -> {
                    accepted.complete(session);
                    session.respond(request -> Mono.just(Unpooled.copiedBuffer("re: " + request.toString(
                            StandardCharsets.US_ASCII), StandardCharsets.US_ASCII)), 1);
                    return session.onDispose();
                }).bindNow();
        RdmaSession client = RdmaClient.create().host("127.0.0.1").port(server.port())
                .busyPoll(Duration.ofNanos(35_000)).connect().block(TIMEOUT);
        try {
            RdmaSession served = accepted.get(10, TimeUnit.SECONDS);
            assertThat(loopThread(client)).startsWith("softrdma-busy-poll-35us");
            assertThat(loopThread(served)).startsWith("softrdma-busy-poll-25us");
            for (int i = 0; i < 200; i++) {
                // The response is the library's, valid during onNext: read it there.
                String response = client.request(Unpooled.copiedBuffer("q" + i, StandardCharsets.US_ASCII))
                        .map(b -> b.toString(StandardCharsets.US_ASCII)).block(TIMEOUT);
                assertThat(response).isEqualTo("re: q" + i);
            }
        } finally {
            client.dispose();
            client.onDispose().block(TIMEOUT);
            server.disposeNow(TIMEOUT);
        }
    }

    @Test
    void zeroIsTheDefaultLoopsAndANegativeTimeIsRefused() {
        RdmaClient client = RdmaClient.create();
        assertThat(client.busyPoll(Duration.ZERO)).isSameAs(client);
        RdmaServer server = RdmaServer.create();
        assertThat(server.busyPoll(Duration.ZERO)).isSameAs(server);
        assertThatThrownBy(() -> client.busyPoll(Duration.ofNanos(-1))).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("Duration.ZERO (off) or positive");
        assertThatThrownBy(() -> server.busyPoll(null)).isInstanceOf(IllegalArgumentException.class);
    }

    private static String loopThread(RdmaSession session) throws Exception {
        return session.connection().channel().eventLoop().submit(() -> Thread.currentThread().getName())
                .get(10, TimeUnit.SECONDS);
    }
}
