package io.softrdma.reactive;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelOption;
import io.softrdma.verbs.Access;
import io.softrdma.verbs.RemoteMemory;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.SignalType;

/**
 * Faults under load: with Writes, Reads, requests and a message stream in flight, the connection is reset (RST) or
 * closed by either side. Every subscriber terminates exactly once — completed before the loss, or with an error —
 * nothing hangs, no buffer leaks (PARANOID), and the client connects again.
 */
class FaultsUnderLoadTest {
    private static final Duration TIMEOUT = Duration.ofSeconds(20);

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"client resets", "server resets", "server closes"})
    void everySubscriberEndsExactlyOnceAndTheClientReconnects(String fault) throws Exception {
        CompletableFuture<RdmaSession> accepted = new CompletableFuture<>();
        AtomicInteger streamed = new AtomicInteger();
        DisposableRdmaServer server = RdmaServer.create().host("127.0.0.1").port(0).handle(session -> {
            accepted.complete(session);
            session.respond(request -> Mono.delay(Duration.ofMillis(1)).thenReturn(request), 16);
            return session.receive().doOnNext(m -> streamed.incrementAndGet()).then();
        }).bindNow();
        try {
            RdmaSession client = RdmaClient.create().host("127.0.0.1").port(server.port()).connect().block(TIMEOUT);
            RdmaSession serverSession = accepted.get(5, TimeUnit.SECONDS);
            LocalRegion region = serverSession.allocate(1 << 20, Access.LOCAL_WRITE, Access.REMOTE_WRITE,
                    Access.REMOTE_READ);
            RemoteMemory remote = region.remote();

            int operations = 4 * 100 + 1;
            CountDownLatch ended = new CountDownLatch(operations);
            ConcurrentHashMap<Integer, AtomicInteger> terminals = new ConcurrentHashMap<>();
            AtomicInteger errors = new AtomicInteger();
            int[] next = {0};
            java.util.function.Function<Mono<?>, Mono<?>> watch = m -> {
                int id = next[0]++;
                AtomicInteger count = terminals.computeIfAbsent(id, k -> new AtomicInteger());
                return m.doFinally(signal -> {
                    if (signal == SignalType.ON_ERROR) {
                        errors.incrementAndGet();
                    }
                    count.incrementAndGet();
                    ended.countDown();
                });
            };
            for (int i = 0; i < 100; i++) {
                int slot = (i % 16) * 65536;
                watch.apply(client.write(remote.slice(slot, 65536), Unpooled.directBuffer(65536).writeZero(65536)))
                        .subscribe(v -> { }, e -> { });
                watch.apply(client.read(remote.slice(slot, 65536)))
                        .subscribe(v -> { }, e -> { });
                watch.apply(client.request(Unpooled.copiedBuffer("r" + i, StandardCharsets.US_ASCII))).subscribe(v -> { }, e -> { });
                watch.apply(client.write(remote.slice(0, 4096), Unpooled.buffer(4096).writeZero(4096)))
                        .subscribe(v -> { }, e -> { });
            }
            watch.apply(client.send(Flux.range(0, 1_000_000).map(i -> Unpooled.directBuffer(64).writeZero(64))))
                    .subscribe(v -> { }, e -> { });
            // The stream is going: the fault cuts it, and whatever else is in flight, mid-way.
            await().atMost(TIMEOUT).pollInterval(Duration.ofMillis(1)).until(() -> streamed.get() >= 100);

            switch (fault) {
                case "client resets" -> reset(client.connection().channel());
                case "server resets" -> reset(serverSession.connection().channel());
                default -> serverSession.connection().channel().close();
            }
            assertThat(ended.await(20, TimeUnit.SECONDS)).as("every subscriber ended; %d still running",
                    ended.getCount()).isTrue();
            assertThat(terminals).hasSize(operations)
                    .allSatisfy((id, n) -> assertThat(n.get()).as("terminal signals of operation %d", id).isEqualTo(1));
            assertThat(errors.get()).as("at least the million-message stream was cut short").isPositive();
            client.onDispose().block(TIMEOUT);
            serverSession.onDispose().block(TIMEOUT);
            assertThat(client.isDisposed()).isTrue();
            region.dispose();

            // The client connects again, and the new session works.
            RdmaSession second = RdmaClient.create().host("127.0.0.1").port(server.port()).connect().block(TIMEOUT);
            assertThat(second.request(Unpooled.copiedBuffer("again", StandardCharsets.US_ASCII)).map(b -> b.toString(StandardCharsets.US_ASCII)).block(TIMEOUT)).isEqualTo("again");
            second.dispose();
            second.onDispose().block(TIMEOUT);
        } finally {
            server.disposeNow(TIMEOUT);
        }
    }

    private static void reset(io.netty.channel.Channel ch) {
        ch.config().setOption(ChannelOption.SO_LINGER, 0);
        ch.close();
    }
}
