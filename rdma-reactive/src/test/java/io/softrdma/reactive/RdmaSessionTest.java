package io.softrdma.reactive;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.softrdma.verbs.Access;
import io.softrdma.verbs.RemoteMemory;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.test.StepVerifier;

/** RDMA Write and Read as Reactor types between a client and a server session on loopback. */
class RdmaSessionTest {
    private static final Duration TIMEOUT = Duration.ofSeconds(5);

    private SessionPair pair;
    private DisposableRdmaServer server;
    private RdmaSession client;
    private RdmaSession serverSession;

    @BeforeEach
    void connect() throws Exception {
        pair = new SessionPair(c -> c);
        server = pair.server;
        client = pair.client;
        serverSession = pair.serverSession;
    }

    @AfterEach
    void close() {
        pair.close();
    }

    private static ByteBuf ascii(String s) {
        return Unpooled.directBuffer().writeBytes(s.getBytes(StandardCharsets.US_ASCII));
    }

    private static String text(ByteBuf b) {
        return b.toString(StandardCharsets.US_ASCII);
    }

    @Test
    void rfc5040Section4_3WriteThenReadBackTheSameRegion() {
        LocalRegion region = serverSession.allocate(64, Access.LOCAL_WRITE, Access.REMOTE_WRITE, Access.REMOTE_READ);
        RemoteMemory remote = region.remote();
        StepVerifier.create(client.write(remote, ascii("hello, rdma"))).expectComplete().verify(TIMEOUT);
        // RFC 5040 §5.5: a Read Request after a Write on the same stream sees the Write's data.
        StepVerifier.create(client.read(remote.slice(0, 11)).map(RdmaSessionTest::text))
                .expectNext("hello, rdma").expectComplete().verify(TIMEOUT);
        assertThat(ByteBufUtil.getBytes(region.buffer(), 0, 5)).isEqualTo("hello".getBytes(StandardCharsets.US_ASCII));
        region.dispose();
    }

    @Test
    void rfc6581Section4TheServerMaySendFirstBecauseTheClientSendsAnRtr() {
        assertThat(client.connection().readyToReceive()).isEqualTo(io.softrdma.mpa.ReadyToReceive.WRITE);
        LocalRegion target = client.allocate(16, Access.LOCAL_WRITE, Access.REMOTE_WRITE);
        StepVerifier.create(serverSession.write(target.remote(), ascii("first"))).expectComplete().verify(TIMEOUT);
        target.dispose();
    }

    @Test
    void aHeapBufferIsCopiedOnceAndWritten() {
        LocalRegion region = serverSession.allocate(16, Access.LOCAL_WRITE, Access.REMOTE_WRITE);
        ByteBuf heap = Unpooled.buffer().writeBytes("heap".getBytes(StandardCharsets.US_ASCII));
        StepVerifier.create(client.write(region.remote(), heap)).expectComplete().verify(TIMEOUT);
        assertThat(heap.refCnt()).as("released once written").isZero();
        region.dispose();
    }

    @Test
    void aFluxOfReadsComesBackInOrder() {
        LocalRegion region = serverSession.allocate(4096, Access.REMOTE_READ);
        for (int i = 0; i < 4096; i++) {
            region.buffer().setByte(i, i / 16);
        }
        RemoteMemory remote = region.remote();
        StepVerifier.create(client.read(Flux.range(0, 256).map(i -> remote.slice(i * 16L, 16)))
                .map(b -> b.getUnsignedByte(0) == b.getUnsignedByte(15) ? (int) b.getUnsignedByte(0) : -1))
                .expectNextSequence(java.util.stream.IntStream.range(0, 256).boxed().toList())
                .expectComplete().verify(TIMEOUT);
        region.dispose();
    }

    @Test
    void rfc5040Section6_1AFluxOfReadsNeverExceedsThePeersIrd() throws Exception {
        // A server that takes 2 inbound Reads at a time terminates on a third (RFC 5040 §6.1); a client
        // that offers ORD 8 gets ORD 2 from the negotiation (RFC 6581 §5) and keeps to it.
        CompletableFuture<RdmaSession> accepted = new CompletableFuture<>();
        DisposableRdmaServer narrow = RdmaServer.create().host("127.0.0.1").port(0)
                .queuePair(c -> c.withReadDepths(2, 2)).handle(session -> {
                    accepted.complete(session);
                    return session.onDispose();
                }).bindNow();
        RdmaSession c = RdmaClient.create().host("127.0.0.1").port(narrow.port())
                .queuePair(q -> q.withReadDepths(8, 8)).connect().block(TIMEOUT);
        RdmaSession s = accepted.get(5, TimeUnit.SECONDS);
        assertThat(c.ord()).isEqualTo(2);
        LocalRegion region = s.allocate(1 << 16, Access.REMOTE_READ);
        RemoteMemory remote = region.remote();
        StepVerifier.create(c.read(Flux.range(0, 500).map(i -> remote.slice((i % 64) * 1024L, 1024))).count())
                .expectNext(500L).expectComplete().verify(Duration.ofSeconds(20));
        region.dispose();
        c.dispose();
        c.onDispose().block(TIMEOUT);
        s.onDispose().block(TIMEOUT);
        narrow.disposeNow(TIMEOUT);
    }

    @Test
    void operationsBeyondTheSendQueueWaitInOrderAndCancelledWaitingOnesNeverReachTheWire() throws Exception {
        // sendQueueDepth 8: 4 entries for messages, 2 for large messages' Reads, 2 for the application.
        try (SessionPair narrow = new SessionPair(c -> c.withSendQueueDepth(8))) {
            LocalRegion region = narrow.serverSession.allocate(1 << 16, Access.REMOTE_READ, Access.REMOTE_WRITE,
                    Access.LOCAL_WRITE);
            RemoteMemory remote = region.remote();
            // 50 Writes of distinct octets then 50 Reads, all subscribed at once: they run 2 at a time, in order,
            // so every Read sees every Write before it (RFC 5040 §5.5 on one stream).
            Flux<String> all = Flux.concat(
                    Flux.range(0, 50).flatMap(i -> narrow.client.write(remote.slice(i, 1),
                            Unpooled.directBuffer(1).writeByte('a' + i % 26)), 50).then(Mono.<String>empty()),
                    Flux.range(0, 50).flatMapSequential(i -> narrow.client.read(remote.slice(0, 50)), 50)
                            .map(RdmaSessionTest::text));
            String expected = Flux.range(0, 50).map(i -> String.valueOf((char) ('a' + i % 26)))
                    .reduce("", String::concat).block();
            StepVerifier.create(all).expectNextCount(50).expectComplete().verify(TIMEOUT);
            StepVerifier.create(narrow.client.read(remote.slice(0, 50)).map(RdmaSessionTest::text))
                    .expectNext(expected).expectComplete().verify(TIMEOUT);
            // Cancelled while waiting for room: dropped before the wire, their buffers freed (the leak detector
            // checks); the ones already posted finish; the session goes on.
            java.util.List<reactor.core.Disposable> reads = new java.util.ArrayList<>();
            for (int i = 0; i < 40; i++) {
                reads.add(narrow.client.read(remote.slice(0, 1 << 16)).subscribe());
            }
            reads.forEach(reactor.core.Disposable::dispose);
            StepVerifier.create(narrow.client.read(remote.slice(0, 50)).map(RdmaSessionTest::text))
                    .expectNext(expected).expectComplete().verify(TIMEOUT);
            region.dispose();
        }
    }

    @Test
    void aSendQueueTooShallowToShareIsRefusedWithTheRule() {
        assertThatThrownBy(() -> RdmaClient.create().host("127.0.0.1").port(1).queuePair(c -> c.withSendQueueDepth(3))
                .connect().block(TIMEOUT)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("sendQueueDepth 4 or more, not 3");
    }

    @Test
    void cancellingAReadLetsItFinishOnTheWireAndReleasesItsBufferAfterwards() {
        LocalRegion region = serverSession.allocate(1 << 20, Access.REMOTE_READ);
        // Cancelled at once: the Read is still posted and completes; its sink buffer must not leak
        // (the leak detector at PARANOID fails the test if it does) and the session stays usable.
        // (Should the Read complete before the dispose, this subscriber has the buffer, and releases it.)
        client.read(region.remote()).subscribe().dispose();
        StepVerifier.create(client.read(region.remote().slice(0, 8)).map(b -> "ok")).expectNext("ok").expectComplete().verify(TIMEOUT);
        region.dispose();
    }

    @Test
    void aGracefulServerDisposeLetsPostedWorkFinishThenClosesEverySession() {
        LocalRegion target = client.allocate(1 << 20, Access.LOCAL_WRITE, Access.REMOTE_WRITE);
        ByteBuf data = Unpooled.directBuffer(1 << 20).writeZero(1 << 20);
        reactor.core.publisher.Sinks.One<String> outcome = reactor.core.publisher.Sinks.one();
        serverSession.write(target.remote(), data).subscribe(v -> { }, t -> outcome.tryEmitValue("failed: " + t),
                () -> outcome.tryEmitValue("written"));
        assertThat(server.sessionCount()).isEqualTo(1);
        server.disposeGracefully(TIMEOUT).block(TIMEOUT);
        assertThat(outcome.asMono().block(TIMEOUT)).isEqualTo("written");
        assertThat(server.sessionCount()).isZero();
        assertThat(serverSession.isDisposed()).isTrue();
        client.onDispose().block(TIMEOUT);
        target.dispose();
    }

    @Test
    void losingTheConnectionFailsEveryPendingOperation() {
        LocalRegion region = serverSession.allocate(1 << 20, Access.REMOTE_READ);
        RemoteMemory remote = region.remote();
        // 2 GiB of Reads: the connection is closed after the first arrives, long before the last could.
        Flux<ByteBuf> reads = client.read(Flux.range(0, 2048).map(i -> remote));
        StepVerifier.create(reads)
                .expectNextCount(1)
                .then(() -> serverSession.connection().channel().close())
                .thenConsumeWhile(b -> true)
                // Posted Reads fail as flushed (RdmaOperationException, caused by the lost connection); one not yet
                // posted fails with the cause itself.
                .expectErrorSatisfies(t -> assertThat(t).isInstanceOfAny(RdmaOperationException.class,
                        IllegalStateException.class, io.softrdma.ConnectionClosedException.class,
                        io.softrdma.rdmap.TerminateException.class))
                .verify(TIMEOUT);
        StepVerifier.create(client.read(remote)).expectError().verify(TIMEOUT);
        region.dispose();
    }

    @Test
    void rfc5040Section7ReadingAnInvalidatedRegionFailsWithTheTerminate() {
        LocalRegion region = serverSession.allocate(64, Access.REMOTE_READ);
        RemoteMemory remote = region.remote();
        region.dispose();
        StepVerifier.create(client.read(remote)).expectErrorSatisfies(t -> {
            assertThat(t).isInstanceOf(RdmaOperationException.class);
            assertThat(t.getCause()).isInstanceOf(io.softrdma.rdmap.TerminateException.class);
            io.softrdma.rdmap.TerminateException te = (io.softrdma.rdmap.TerminateException) t.getCause();
            // RDMAP (layer 0), remote protection error (EType 1), invalid STag (code 0).
            assertThat(te.code().layer()).isZero();
            assertThat(te.code().errorType()).isEqualTo(1);
            assertThat(te.code().errorCode()).isZero();
        }).verify(TIMEOUT);
    }

    /**
     * A cancel that reaches connect() after it emitted the session (Reactor passes a late cancel up, as RSocket's
     * resumption does from inside the delivery) leaves the session open: it is its subscriber's by then.
     */
    @Test
    void aCancelAfterTheSessionWentOutDoesNotCloseIt() {
        DisposableRdmaServer echo = RdmaServer.create().host("127.0.0.1").port(0).handle(s -> {
            s.respond(Mono::just, 4);
            return s.onDispose();
        }).bindNow();
        java.util.concurrent.atomic.AtomicReference<RdmaSession> held = new java.util.concurrent.atomic.AtomicReference<>();
        reactor.core.Disposable subscription = RdmaClient.create().host("127.0.0.1").port(echo.port()).connect()
                .flatMap(s -> {
                    held.set(s);
                    return Mono.never();
                }).subscribe();
        try {
            org.awaitility.Awaitility.await().atMost(TIMEOUT).until(() -> held.get() != null);
            subscription.dispose();
            RdmaSession late = held.get();
            try {
                StepVerifier.create(late.request(ascii("still open")).map(RdmaSessionTest::text))
                        .expectNext("still open").expectComplete().verify(TIMEOUT);
                assertThat(late.isDisposed()).isFalse();
            } finally {
                late.dispose();
                late.onDispose().block(TIMEOUT);
            }
        } finally {
            echo.disposeNow(TIMEOUT);
        }
    }
}
