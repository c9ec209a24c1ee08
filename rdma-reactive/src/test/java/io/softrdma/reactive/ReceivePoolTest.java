package io.softrdma.reactive;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.softrdma.verbs.QueuePairState;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.BaseSubscriber;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Sessions drawing their receive buffers from a shared {@link ReceivePool} (docs/robustness.md, Memory): credits stay
 * exact however small the pool (no Terminate for a Send without a posted receive, RFC 5041 §7.1; no message lost or
 * reordered), a spent pool throttles senders rather than failing them, and an idle session holds only its dedicated
 * buffers.
 */
class ReceivePoolTest {
    private static final Duration TIMEOUT = Duration.ofSeconds(60);
    private static final int INLINE = MessagingOptions.DEFAULTS.inlineSize();

    private DisposableRdmaServer server;
    private final List<RdmaSession> clients = new ArrayList<>();
    private final List<RdmaSession> serverSessions = new CopyOnWriteArrayList<>();

    /** A server whose sessions share {@code serverPool}, and {@code n} clients sharing {@code clientPool}. */
    private void connect(int n, ReceivePool serverPool, ReceivePool clientPool, boolean respond) {
        server = RdmaServer.create().host("127.0.0.1").port(0).receivePool(serverPool).handle(session -> {
            if (respond) {
                session.respond(request -> Mono.just(request), 64);
            }
            serverSessions.add(session);
            return session.onDispose();
        }).bindNow();
        RdmaClient client = RdmaClient.create().host("127.0.0.1").port(server.port()).receivePool(clientPool);
        for (int i = 0; i < n; i++) {
            clients.add(client.connect().block(TIMEOUT));
        }
        await().atMost(TIMEOUT).until(() -> serverSessions.size() == n);
    }

    @AfterEach
    void close() {
        for (RdmaSession c : clients) {
            c.dispose();
        }
        for (RdmaSession c : clients) {
            c.onDispose().block(TIMEOUT);
        }
        for (RdmaSession s : serverSessions) {
            s.onDispose().block(TIMEOUT);
        }
        if (server != null) {
            server.disposeNow(TIMEOUT);
        }
    }

    @Test
    void manySendersThroughAPoolOfEightBuffersLoseNothingAndAreThrottled() {
        // Eight buffers for sixteen sessions that each want 128: most of the time most of them wait for credit.
        ReceivePool serverPool = ReceivePool.of(8L * INLINE);
        connect(16, serverPool, null, false);
        int count = 3000;
        List<Mono<Long>> checks = new ArrayList<>();
        for (RdmaSession s : serverSessions) {
            // Each session's messages arrive in order, every one of them: a running check, then the count.
            long[] next = {0};
            checks.add(s.receive().take(count).map(b -> {
                long v = b.readLong();
                assertThat(v).as("message in order").isEqualTo(next[0]++);
                return v;
            }).count());
        }
        Flux<Void> sends = Flux.fromIterable(clients)
                .flatMap(c -> c.send(Flux.range(0, count).map(i -> (ByteBuf) Unpooled.buffer(8).writeLong(i))));
        List<Long> counted = Flux.merge(sends.then(Mono.<List<Long>>empty()),
                Flux.fromIterable(checks).flatMap(m -> m).collectList()).blockLast(TIMEOUT);
        assertThat(counted).hasSize(16).containsOnly((long) count);
        assertThat(serverPool.refusals()).as("the pool ran dry and sessions waited for it").isPositive();
        assertThat(serverPool.peakUsed()).isLessThanOrEqualTo(serverPool.capacity());
        for (RdmaSession c : clients) {
            assertThat(c.connection().queuePair().state()).as("no Terminate").isEqualTo(QueuePairState.RTS);
        }
        // The buffers behind credit the senders still hold stay posted; once the sessions end, all come back.
        clients.forEach(RdmaSession::dispose);
        await().atMost(TIMEOUT).until(() -> serverPool.used() == 0);
    }

    @Test
    void requestsAndResponsesThroughSpentPoolsOnBothSidesAllComplete() {
        // Two buffers' worth each side: requests and their responses both wait for pooled credit.
        ReceivePool serverPool = ReceivePool.of(2L * INLINE);
        ReceivePool clientPool = ReceivePool.of(2L * INLINE);
        connect(8, serverPool, clientPool, true);
        int perClient = 200;
        long answered = Flux.fromIterable(clients).flatMap(c -> Flux.range(0, perClient)
                .flatMap(i -> c.request(Unpooled.buffer(8).writeLong(i)).map(b -> {
                    long v = b.readLong();
                    b.release();
                    assertThat(v).as("the answer to its own request").isEqualTo((long) i);
                    return v;
                }), 64)).count().block(TIMEOUT);
        assertThat(answered).isEqualTo(8L * perClient);
        assertThat(serverPool.refusals() + clientPool.refusals()).isPositive();
        assertThat(serverPool.peakUsed()).isLessThanOrEqualTo(serverPool.capacity());
        assertThat(clientPool.peakUsed()).isLessThanOrEqualTo(clientPool.capacity());
    }

    @Test
    void idleSessionsHoldOnlyTheirDedicatedBuffersWhateverTheirDemand() {
        ReceivePool serverPool = ReceivePool.of(ReceivePool.DEFAULT_CAPACITY);
        connect(32, serverPool, null, false);
        List<Holder> holders = new ArrayList<>();
        for (RdmaSession s : serverSessions) {
            // Demand for 256 messages, and no traffic: no credit beyond the dedicated buffers, no pool memory.
            Holder h = new Holder();
            s.receive().subscribe(h);
            holders.add(h);
        }
        for (RdmaSession s : serverSessions) {
            await().atMost(TIMEOUT).until(() -> s.statistics().receiveBuffersPosted() == ReceivePool.DEDICATED_BUFFERS);
        }
        assertThat(serverPool.used()).as("pool octets held by 32 idle sessions").isZero();
        // All an idle session registers: its three dedicated receive buffers and one chunk of eight send slots.
        for (RdmaSession s : serverSessions) {
            assertThat(s.statistics().bufferBytes()).isEqualTo((ReceivePool.DEDICATED_BUFFERS + 8L) * INLINE);
        }
        // A client without a pool registers its whole receive queue (128 by default) up front.
        assertThat(clients.get(0).statistics().bufferBytes()).isEqualTo((128 + 8L) * INLINE);
        // Traffic on one session: its buffers grow from the pool, the others' do not.
        RdmaSession busy = clients.get(0);
        busy.send(Flux.range(0, 2000).map(i -> (ByteBuf) Unpooled.buffer(8).writeLong(i))).block(TIMEOUT);
        await().atMost(TIMEOUT).until(() -> holders.stream().mapToLong(h -> h.received).sum() == 2000);
        assertThat(serverPool.peakUsed()).as("the busy session drew on the pool").isPositive()
                .isLessThanOrEqualTo(127L * INLINE);
        for (RdmaSession s : serverSessions) {
            assertThat(s.statistics().receiveBuffersPosted()).isLessThanOrEqualTo(128);
        }
        holders.forEach(BaseSubscriber::dispose);
    }

    @Test
    void aClosedSessionGivesItsBuffersBack() {
        ReceivePool serverPool = ReceivePool.of(ReceivePool.DEFAULT_CAPACITY);
        connect(4, serverPool, null, false);
        Holder h = new Holder();
        serverSessions.get(0).receive().subscribe(h);
        // The sender stops with credit outstanding: the buffers behind it stay posted (a granted credit keeps its
        // buffer) until the session ends.
        clients.get(0).send(Flux.range(0, 500).map(i -> (ByteBuf) Unpooled.buffer(8).writeLong(i))).block(TIMEOUT);
        await().atMost(TIMEOUT).until(() -> h.received == 500);
        assertThat(serverPool.used()).isPositive();
        assertThat(serverPool.sessions()).isEqualTo(4);
        clients.get(0).dispose();
        serverSessions.get(0).onDispose().block(TIMEOUT);
        await().atMost(TIMEOUT).until(() -> serverPool.used() == 0);
        assertThat(serverPool.sessions()).as("the others still draw on it").isEqualTo(3);
    }

    @Test
    void aPoolSmallerThanABufferIsRefusedWithTheFix() {
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> ReceivePool.of(512))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("at least 1024");
    }

    /** Asks for 256 messages and keeps asking, counting them. */
    private static final class Holder extends BaseSubscriber<ByteBuf> {
        volatile long received;

        @Override
        protected void hookOnSubscribe(org.reactivestreams.Subscription s) {
            s.request(256);
        }

        @Override
        protected void hookOnNext(ByteBuf b) {
            received++;
            request(1);
        }
    }
}
