package io.softrdma.reactive;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.softrdma.verbs.Access;
import io.softrdma.verbs.RemoteMemory;
import io.softrdma.rdmap.RdmapOpcode;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;
import reactor.test.StepVerifier;

/**
 * The library owns what it emits (as Reactor Netty does): a received message, a Read result or a response is
 * released once the subscriber's {@code onNext} returns, or when an operator discards it; keeping one is the explicit
 * {@code retain()} opt-in. One test per race a Reactor user meets — cancel, {@code take}, {@code timeout}, an empty or
 * failing handler — run with Netty's leak detector at PARANOID (a leak report fails the test), and checked by state:
 * buffers' reference counts, and receive buffers and credits coming back.
 */
class BufferOwnershipTest {
    private static final Duration TIMEOUT = SessionPair.TIMEOUT;

    private SessionPair pair;

    @BeforeEach
    void connect() throws Exception {
        pair = new SessionPair(c -> c.withReceiveQueueDepth(16).withSendQueueDepth(32));
    }

    @AfterEach
    void close() {
        pair.close();
    }

    private static ByteBuf ascii(String s) {
        return Unpooled.copiedBuffer(s, StandardCharsets.US_ASCII);
    }

    /**
     * Each result is released once onNext returns: here by nobody else, so a result the library failed to release
     * would be reported by the leak detector (PARANOID, checked after every test), and one it released early would
     * fail the map. (Reference counts of released pooled buffers cannot be asserted: their objects are recycled.)
     */
    @Test
    void aReadResultIsReleasedOnceOnNextReturns() {
        LocalRegion region = pair.serverSession.allocate(4096, Access.REMOTE_READ);
        StepVerifier.create(Flux.range(0, 50).concatMap(i -> pair.client.read(region.remote().slice(i * 64L, 64))
                .map(ByteBuf::readableBytes)))
                .expectNextCount(50).expectComplete().verify(TIMEOUT);
        region.dispose();
    }

    @Test
    void retainingAReadResultKeepsItValidUntilReleased() {
        LocalRegion region = pair.serverSession.allocate(64, Access.REMOTE_READ);
        region.buffer().setLong(0, 0x1122334455667788L);
        ByteBuf kept = pair.client.read(region.remote()).map(ByteBuf::retain).block(TIMEOUT);
        // block() returns as onNext is signalled; the library's release follows on the event loop.
        await().atMost(TIMEOUT).until(() -> kept.refCnt() == 1);
        assertThat(kept.getLong(0)).isEqualTo(0x1122334455667788L);
        kept.release();
        // (block() without the opt-in hands over a buffer already released; its reference count cannot be asserted:
        // a released pooled buffer's object may already serve another allocation.)
        region.dispose();
    }

    /** A Read whose timeout fires while it completes, at every point of the race: nothing leaks, nothing hangs. */
    @Test
    void readsRacingTheirTimeoutLeakNothing() {
        LocalRegion region = pair.serverSession.allocate(1 << 16, Access.REMOTE_READ);
        RemoteMemory remote = region.remote();
        for (int i = 0; i < 300; i++) {
            Duration limit = Duration.ofNanos((i % 30) * 5_000L);
            pair.client.read(remote).map(ByteBuf::readableBytes).timeout(limit, Mono.just(-1))
                    .block(TIMEOUT);
        }
        // Every Read finished on the wire and gave its memory back: a last one still works.
        StepVerifier.create(pair.client.read(remote).map(ByteBuf::readableBytes)).expectNext(1 << 16)
                .expectComplete().verify(TIMEOUT);
        region.dispose();
    }

    /** Requests cancelled as their response arrives release it, and the credits all come back. */
    @Test
    void requestsRacingCancellationLeakNothingAndKeepTheirCredits() {
        pair.serverSession.respond(r -> Mono.just(ascii("answer")), 4);
        for (int i = 0; i < 300; i++) {
            Duration limit = Duration.ofNanos((i % 30) * 5_000L);
            pair.client.request(ascii("q" + i)).map(ByteBuf::readableBytes).timeout(limit, Mono.just(-1))
                    .block(TIMEOUT);
        }
        StepVerifier.create(Flux.range(0, 100).flatMap(i -> pair.client.request(ascii("q")).map(b -> b.toString(
                StandardCharsets.US_ASCII)), 8)).expectNextCount(100).expectComplete().verify(TIMEOUT);
    }

    /**
     * A response that arrives before its subscriber asks for it waits, is emitted on the request and released after
     * {@code onNext}; one whose subscriber cancels instead is released then. A response is a view of a receive
     * buffer: one kept would hold its receive slot, and forty of them are more than the session's 16.
     */
    @Test
    void aResponseAnsweredBeforeDemandWaitsForItAndOneCancelledThenIsReleased() {
        java.util.concurrent.atomic.AtomicInteger handled = new java.util.concurrent.atomic.AtomicInteger();
        pair.serverSession.respond(r -> {
            handled.incrementAndGet();
            return Mono.just(ascii("early"));
        }, 4);
        for (int round = 0; round < 80; round++) {
            int asked = round + 1;
            boolean cancel = round % 2 == 1;
            List<String> got = new CopyOnWriteArrayList<>();
            AtomicReference<ByteBuf> seen = new AtomicReference<>();
            reactor.core.publisher.BaseSubscriber<ByteBuf> lazy = new reactor.core.publisher.BaseSubscriber<>() {
                @Override
                protected void hookOnSubscribe(org.reactivestreams.Subscription subscription) {
                    // no demand yet
                }

                @Override
                protected void hookOnNext(ByteBuf value) {
                    seen.set(value);
                    got.add(value.toString(StandardCharsets.US_ASCII));
                }
            };
            pair.client.request(ascii("q")).subscribe(lazy);
            // handled (so the client holds the request as waiting), then answered: none waits any more
            await().pollInterval(Duration.ofMillis(1)).atMost(TIMEOUT).until(() -> handled.get() == asked);
            await().pollInterval(Duration.ofMillis(1)).atMost(TIMEOUT)
                    .until(() -> pair.client.toString().contains(", requests 0,"));
            assertThat(got).isEmpty();
            if (cancel) {
                lazy.cancel();
            } else {
                lazy.request(1);
                assertThat(got).containsExactly("early");
                assertThat(seen.get().refCnt()).as("released once onNext returned").isZero();
            }
        }
        // the credits all came back: more requests go through
        StepVerifier.create(Flux.range(0, 20).flatMap(i -> pair.client.request(ascii("q")).map(b -> b.toString(
                StandardCharsets.US_ASCII)), 4)).expectNextCount(20).expectComplete().verify(TIMEOUT);
    }

    /**
     * {@code take} cancels receive() while messages keep arriving: what it was emitting as it cancelled is released,
     * the rest wait for the next subscriber, and no message is lost or seen twice.
     */
    @Test
    void takeOnReceiveLosesNothingAndLeaksNothing() {
        int count = 2_000;
        pair.client.send(Flux.range(0, count).map(i -> Unpooled.directBuffer(8).writeLong(i))).subscribe();
        ConcurrentLinkedQueue<Long> got = new ConcurrentLinkedQueue<>();
        while (got.size() < count) {
            List<Long> some = pair.serverSession.receive().take(Math.min(7, count - got.size()))
                    .map(b -> b.getLong(b.readerIndex()))
                    .collectList().block(TIMEOUT);
            got.addAll(some);
        }
        assertThat(got).containsExactlyElementsOf(java.util.stream.LongStream.range(0, count).boxed().toList());
        await().atMost(TIMEOUT).until(() -> pair.serverSession.messagesBuffered() == 0);
    }

    /** A retained message (the zero-copy opt-in) stays valid past onNext; releasing it gives its buffer back. */
    @Test
    void aRetainedMessageStaysValidAndHoldsItsBufferUntilReleased() {
        pair.client.send(Flux.range(0, 40).map(i -> Unpooled.directBuffer(8).writeLong(i))).subscribe();
        List<ByteBuf> kept = pair.serverSession.receive().take(10).map(ByteBuf::retain).collectList()
                .block(TIMEOUT);
        for (int i = 0; i < kept.size(); i++) {
            ByteBuf b = kept.get(i);
            assertThat(b.getLong(b.readerIndex())).as("message %d after onNext", i).isEqualTo(i);
        }
        kept.forEach(ByteBuf::release);
        StepVerifier.create(pair.serverSession.receive().take(30).map(b -> b.getLong(b.readerIndex())))
                .expectNextSequence(java.util.stream.LongStream.range(10, 40).boxed().toList()).expectComplete()
                .verify(TIMEOUT);
    }

    /**
     * Messages that arrive together in one BATCH (docs/protocol.md) are separate buffers: each kept message stays
     * valid until its own release, whatever order they are released in, and the receive buffer they share goes back
     * (as credit) only once the last of them is released.
     */
    @Test
    void batchedMessagesReleasedInAnyOrderEachStayValidUntilTheirOwnRelease() {
        int count = 120;
        pair.client.send(Flux.range(0, count).map(i -> Unpooled.directBuffer(8).writeLong(i))).subscribe();
        // Every tenth message is kept: at most 12 of the 16 receive buffers stay held, so the stream goes on.
        List<ByteBuf> kept = pair.serverSession.receive().take(count)
                .filter(b -> b.getLong(b.readerIndex()) % 10 == 0).map(ByteBuf::retain).collectList()
                .block(TIMEOUT);
        assertThat(kept).hasSize(count / 10);
        long sends = pair.serverSession.statistics().counters().messages(RdmapOpcode.SEND, true)
                + pair.serverSession.statistics().counters().messages(RdmapOpcode.SEND_WITH_SE, true);
        assertThat(sends).as("Sends that carried %d messages (some must be BATCHes)", count).isLessThan(count);
        for (int i = kept.size() - 1; i >= 0; i -= 2) {
            kept.get(i).release();
        }
        // More traffic through the buffers that came back: none may land where a kept message still lives.
        pair.client.send(Flux.range(0, 4 * count).map(i -> Unpooled.directBuffer(8).writeLong(-1))).subscribe();
        StepVerifier.create(pair.serverSession.receive().take(4 * count).map(b -> b.getLong(b.readerIndex())))
                .thenConsumeWhile(v -> v == -1).expectComplete().verify(TIMEOUT);
        for (int i = 0; i < kept.size(); i += 2) {
            ByteBuf b = kept.get(i);
            assertThat(b.getLong(b.readerIndex())).as("message %d after the others' release", 10 * i)
                    .isEqualTo(10L * i);
            b.release();
        }
        // With demand outstanding, every buffer is posted again: none stayed held by a released message.
        Disposable waiting = pair.serverSession.receive().subscribe();
        try {
            await().atMost(TIMEOUT).until(() -> pair.serverSession.statistics().receiveBuffersPosted() == 16);
        } finally {
            waiting.dispose();
        }
    }

    /** Messages published on another thread and cancelled mid-stream: those the send discards are released. */
    @Test
    void aCancelledSendReleasesWhatItsPublisherHandedOverAndDiscarded() {
        List<ByteBuf> made = new CopyOnWriteArrayList<>();
        Flux<ByteBuf> messages = Flux.range(0, 100_000)
                .map(i -> {
                    // Unpooled: a released buffer's object is not recycled, so its count can be read afterwards.
                    ByteBuf b = Unpooled.directBuffer(8).writeLong(i);
                    made.add(b);
                    return b;
                })
                .publishOn(Schedulers.parallel(), 256);
        AtomicReference<reactor.core.Disposable> sending = new AtomicReference<>(
                pair.client.send(messages).subscribe(v -> { }, e -> { }));
        await().atMost(TIMEOUT).until(() -> made.size() > 1_000);
        sending.get().dispose();
        // Drain what got through, so its receive buffers go back too.
        pair.serverSession.receive().subscribe();
        await().atMost(TIMEOUT).untilAsserted(() -> assertThat(made).allSatisfy(b -> assertThat(b.refCnt())
                .isZero()));
    }

    @Test
    void aHandlerThatCompletesEmptyAnswersEmptyAndFreesItsSlot() {
        pair.serverSession.respond(r -> Mono.empty(), 1);
        // Concurrency 1: each request waits for the last handler's slot, so all five prove it was freed.
        StepVerifier.create(Flux.range(0, 5).concatMap(i -> pair.client.request(ascii("x" + i))
                .map(ByteBuf::readableBytes))).expectNext(0, 0, 0, 0, 0).expectComplete().verify(TIMEOUT);
    }

    @Test
    void aHandlerThatThrowsOrReturnsNullAnswersWithAnError() {
        pair.serverSession.respond(r -> {
            if (r.readableBytes() == 1) {
                throw new IllegalStateException("thrown by the handler");
            }
            return null;
        }, 1);
        StepVerifier.create(pair.client.request(ascii("1"))).expectErrorSatisfies(t -> assertThat(t)
                .isInstanceOf(RdmaRemoteException.class).hasMessageContaining("thrown by the handler"))
                .verify(TIMEOUT);
        StepVerifier.create(pair.client.request(ascii("22"))).expectErrorSatisfies(t -> assertThat(t)
                .isInstanceOf(RdmaRemoteException.class).hasMessageContaining("returned null"))
                .verify(TIMEOUT);
    }

    /** The request is the library's until the handler's publisher ends; an echo may answer with it. */
    @Test
    void theRequestLivesUntilTheHandlerEndsAndAnEchoMayReturnIt() {
        List<ByteBuf> requests = new CopyOnWriteArrayList<>();
        pair.serverSession.respond(r -> {
            requests.add(r);
            // Used after onNext and on another thread: valid until this Mono ends.
            return Mono.delay(Duration.ofMillis(1)).map(t -> r);
        }, 4);
        // Large requests arrive in memory of their own, so their reference counts can be read afterwards.
        ByteBuf big = PooledByteBufAllocator.DEFAULT.directBuffer(20_000).writeZero(20_000);
        StepVerifier.create(pair.client.request(big).map(ByteBuf::readableBytes)).expectNext(20_000)
                .expectComplete().verify(TIMEOUT);
        StepVerifier.create(Flux.range(0, 50).flatMap(i -> pair.client.request(ascii("echo " + i))
                .map(b -> b.toString(StandardCharsets.US_ASCII)), 8).collectList())
                .assertNext(l -> assertThat(l).hasSize(50).allSatisfy(s -> assertThat(s).startsWith("echo ")))
                .expectComplete().verify(TIMEOUT);
        // The requests' release: the leak detector (PARANOID, after every test) reports any the library kept.
        assertThat(requests).hasSize(51);
    }

    /** A handler still running when the session ends is cancelled, and its request released. */
    @Test
    void aSessionThatEndsCancelsRunningHandlersAndReleasesTheirRequests() {
        List<ByteBuf> requests = new CopyOnWriteArrayList<>();
        pair.serverSession.respond(r -> {
            requests.add(r);
            return Mono.never();
        }, 4);
        ByteBuf big = PooledByteBufAllocator.DEFAULT.directBuffer(20_000).writeZero(20_000);
        pair.client.request(big).subscribe(v -> { }, e -> { });
        await().atMost(TIMEOUT).until(() -> requests.size() == 1);
        pair.client.dispose();
        // The server's session ends, cancelling the handler, which releases the request: the leak detector
        // (PARANOID, after every test) reports it if not.
        await().atMost(TIMEOUT).until(pair.serverSession::isDisposed);
    }

    /** A handler may answer with a slice of its request: the answer is taken before the request goes back. */
    @Test
    void aSliceOfTheRequestAnsweredLaterIsSentIntact() {
        pair.serverSession.respond(r -> Mono.delay(Duration.ofMillis(1)).map(t -> r.slice(r.readerIndex(), 6)), 4);
        StepVerifier.create(Flux.range(0, 50).flatMap(i -> pair.client.request(ascii("slice-" + (1000 + i)))
                .map(b -> b.toString(StandardCharsets.US_ASCII)), 8).collectList())
                .assertNext(l -> assertThat(l).hasSize(50).containsOnly("slice-"))
                .expectComplete().verify(TIMEOUT);
    }

    /**
     * A connect cancelled during its MPA startup (here: the server never decides, and a timeout cancels) releases
     * the queue pair's registered memory and posted receives; the leak detector (PARANOID, after every test)
     * reports them if not. It found that the resources were claimed before the startup ended, so a cancel in
     * between left them to nobody.
     */
    @Test
    void aConnectCancelledDuringTheStartupLeavesNothingBehind() {
        DisposableRdmaServer undecided = RdmaServer.create().host("127.0.0.1").port(0)
                .accept(request -> Mono.never()).bindNow();
        try {
            for (int i = 0; i < 5; i++) {
                StepVerifier.create(RdmaClient.create().host("127.0.0.1").port(undecided.port()).connect()
                        .timeout(Duration.ofMillis(300)))
                        .expectError(java.util.concurrent.TimeoutException.class).verify(TIMEOUT);
            }
        } finally {
            undecided.disposeNow(TIMEOUT);
        }
    }
}
