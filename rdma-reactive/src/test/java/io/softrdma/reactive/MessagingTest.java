package io.softrdma.reactive;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.test.StepVerifier;

/** Messaging over RDMA Sends with credits (docs/protocol.md), between two sessions on loopback. */
class MessagingTest {
    private static final Duration TIMEOUT = Duration.ofSeconds(10);

    private SessionPair pair;
    private RdmaSession client;
    private RdmaSession serverSession;

    @BeforeEach
    void connect() throws Exception {
        pair = new SessionPair(c -> c.withReceiveQueueDepth(16));
        client = pair.client;
        serverSession = pair.serverSession;
    }

    @AfterEach
    void close() {
        pair.close();
    }

    private static ByteBuf ascii(String s) {
        return Unpooled.copiedBuffer(s, StandardCharsets.US_ASCII);
    }

    private static String text(ByteBuf b) {
        return b.toString(StandardCharsets.US_ASCII);
    }

    @Test
    void rfc8797Section4_2BothSidesAdvertiseTheirInlineSize() {
        assertThat(client.rpcRdma().peerAdvertised()).isTrue();
        assertThat(client.rpcRdma().sendInlineThreshold()).isEqualTo(4096);
        assertThat(serverSession.rpcRdma().receiveInlineThreshold()).isEqualTo(4096);
    }

    @Test
    void rfc5040Section5_3SentMessagesArriveInOrder() {
        // Without demand at the receiver there is no credit: the send completes only as it is consumed.
        Mono<Void> sending = client.send(Flux.range(0, 100).map(i -> ascii("message " + i)));
        StepVerifier.create(Flux.merge(sending.then(Mono.<String>empty()),
                serverSession.receive().take(100).map(MessagingTest::text)))
                .expectNextSequence(java.util.stream.IntStream.range(0, 100).mapToObj(i -> "message " + i).toList())
                .expectComplete().verify(TIMEOUT);
    }

    @Test
    void aSlowConsumerStallsTheSenderAndLosesNothing() {
        int count = 20_000;
        AtomicLong received = new AtomicLong();
        Mono<Void> sending = client.send(Flux.range(0, count).map(i -> Unpooled.buffer(8).writeLong(i)));
        Flux<Long> receiving = serverSession.receive().limitRate(1).map(b -> b.readLong());
        StepVerifier.create(Flux.merge(sending.then(Mono.<Long>empty()), receiving).take(count)
                .doOnNext(v -> {
                    assertThat(v).isEqualTo(received.getAndIncrement());
                }).count())
                .expectNext((long) count).expectComplete().verify(Duration.ofSeconds(60));
        assertThat(client.connection().queuePair().state()).isEqualTo(io.softrdma.verbs.QueuePairState.RTS);
    }

    @Test
    void aCancelledRequestStillTakesItsAnswerAndLosesNoBuffer() {
        // The answer waits until the request is cancelled: it cannot arrive first, whatever the machine's pace.
        reactor.core.publisher.Sinks.Empty<Void> cancelled = reactor.core.publisher.Sinks.empty();
        serverSession.respond(request -> cancelled.asMono().thenReturn(request), 1);
        client.request(ascii("cancelled")).subscribe().dispose();
        cancelled.tryEmitEmpty();
        // The cancelled request's answer arrives and is dropped (the leak detector fails the test if its
        // buffer leaks); the session keeps working.
        StepVerifier.create(client.request(ascii("next")).map(MessagingTest::text)).expectNext("next")
                .expectComplete().verify(TIMEOUT);
    }

    @Test
    void cancellingASendMidStreamStopsTakingMessagesAndLeavesTheSessionUsable() {
        AtomicLong produced = new AtomicLong();
        // No demand at the receiver yet: the send stalls on credit, and is cancelled while it waits.
        reactor.core.Disposable sending = client.send(Flux.range(0, 100_000).map(i -> {
            produced.incrementAndGet();
            return Unpooled.directBuffer(8).writeLong(i);
        })).subscribe();
        // Stalled: the one message the credit reserve lets through has arrived, and the client's event loop has
        // finished the work that sent it (and asked the publisher for more): a task queued behind it has run.
        await().atMost(TIMEOUT).until(() -> serverSession.messagesBuffered() >= 1);
        assertThat(client.connection().channel().eventLoop().submit(() -> { }).awaitUninterruptibly(TIMEOUT.toMillis()))
                .isTrue();
        sending.dispose();
        long taken = produced.get();
        assertThat(taken).as("messages taken from the publisher: bounded by the send window")
                .isLessThanOrEqualTo(MessagingOptions.DEFAULTS.sendWindow());
        // What was queued before the cancel may still go; then the session works as before.
        StepVerifier.create(Flux.merge(client.send(Mono.just(ascii("after"))).then(Mono.<String>empty()),
                serverSession.receive().map(MessagingTest::textOrLong).filter(t -> t.equals("after")).take(1)))
                .expectNext("after").expectComplete().verify(TIMEOUT);
        // "after" went behind the cancelled send's queued messages: they were sent, each freeing room in its send
        // window, and a send still subscribed would have asked its publisher for more.
        assertThat(produced.get()).as("nothing taken after the cancel").isEqualTo(taken);
    }

    /** A message as text, or as the long it holds when it is 8 octets that are not printable. */
    private static String textOrLong(ByteBuf b) {
        return b.readableBytes() == 8 && !b.toString(StandardCharsets.US_ASCII).equals("after")
                    ? Long.toString(b.getLong(b.readerIndex())) : b.toString(StandardCharsets.US_ASCII);
    }

    @Test
    void oneRequestIsAnswered() {
        serverSession.respond(request -> Mono.just(ascii("re: " + text(request))), 1);
        StepVerifier.create(client.request(ascii("q")).map(MessagingTest::text)).expectNext("re: q")
                .expectComplete().verify(TIMEOUT);
    }

    @Test
    void requestingLongMaxValueIsNotInfiniteCredit() {
        // An unbounded request posts no more than the receive queue holds: the sender still waits for
        // credit, and the peer's receive queue never overflows (it would Terminate: RFC 5041 §7.2).
        Mono<Void> sending = client.send(Flux.range(0, 5_000).map(i -> Unpooled.directBuffer(8).writeLong(i)));
        StepVerifier.create(Flux.merge(sending.then(Mono.<Long>empty()), serverSession.receive().map(b -> b.readLong())).take(5_000).count()).expectNext(5_000L).expectComplete().verify(TIMEOUT);
        assertThat(serverSession.connection().queuePair().state()).isEqualTo(io.softrdma.verbs.QueuePairState.RTS);
    }

    @Test
    void losingTheConnectionFailsSendsReceivesAndRequests() {
        Mono<ByteBuf> pending = client.request(ascii("never answered"));
        Flux<ByteBuf> receiving = client.receive();
        StepVerifier.create(Flux.merge(pending.flux(), receiving))
                .then(() -> serverSession.connection().channel().close())
                .expectError().verify(TIMEOUT);
        StepVerifier.create(client.send(Mono.just(ascii("late")))).expectError().verify(TIMEOUT);
    }

    @Test
    void losingTheConnectionFailsASendWaitingForCredit() {
        // Nobody receives at the server: after its initial credits the send waits; then the link goes.
        StepVerifier.create(client.send(Flux.range(0, 100).map(i -> Unpooled.directBuffer(8).writeLong(i))))
                .then(() -> serverSession.connection().channel().close())
                .expectError().verify(TIMEOUT);
    }

    @Test
    void cancellingReceiveLetsANewSubscriberContinue() {
        Mono<Void> sending = client.send(Flux.range(0, 10).map(i -> Unpooled.directBuffer(8).writeLong(i)));
        sending.subscribe();
        StepVerifier.create(serverSession.receive().take(3).map(b -> b.readLong())).expectNext(0L, 1L, 2L).expectComplete().verify(TIMEOUT);
        StepVerifier.create(serverSession.receive().take(7).map(b -> b.readLong())).expectNext(3L, 4L, 5L, 6L, 7L, 8L, 9L).expectComplete().verify(TIMEOUT);
    }

    @Test
    void requestsAreAnsweredAndCorrelated() {
        serverSession.respond(request -> Mono.just(ascii("re: " + text(request))), 4);
        try {
            StepVerifier.create(Flux.range(0, 50).flatMap(i -> client.request(ascii("q" + i))
                    .map(MessagingTest::text).map(r -> r.equals("re: q" + i)), 8).all(ok -> ok))
                    .expectNext(true).expectComplete().verify(TIMEOUT);
        } catch (AssertionError e) {
            throw new AssertionError(e.getMessage() + "\nclient " + client + "\nserver " + serverSession, e);
        }
    }

    @Test
    void rfc8797Section4_1WithoutRemoteInvalidationTheLenderInvalidatesLocally() throws Exception {
        CompletableFuture<RdmaSession> accepted = new CompletableFuture<>();
        DisposableRdmaServer noR = RdmaServer.create().host("127.0.0.1").port(0)
                .messaging(MessagingOptions.DEFAULTS.withRemoteInvalidation(false)).handle(session -> {
                    accepted.complete(session);
                    return session.onDispose();
                }).bindNow();
        RdmaSession c = RdmaClient.create().host("127.0.0.1").port(noR.port()).connect().block(TIMEOUT);
        RdmaSession s = accepted.get(5, java.util.concurrent.TimeUnit.SECONDS);
        assertThat(c.rpcRdma().remoteInvalidation()).isFalse();
        s.respond(request -> Mono.just(request), 1);
        StepVerifier.create(c.request(pattern(50_000, 1)).map(b -> {
            ByteBuf expected = pattern(50_000, 1);
            try {
                return io.netty.buffer.ByteBufUtil.equals(b, expected);
            } finally {
                expected.release();
            }
        })).expectNext(true).expectComplete().verify(TIMEOUT);
        c.dispose();
        c.onDispose().block(TIMEOUT);
        s.onDispose().block(TIMEOUT);
        noR.disposeNow(TIMEOUT);
    }

    @Test
    void aFailingHandlerAnswersWithAnError() {
        serverSession.respond(request -> {
            return Mono.error(new IllegalStateException("no such thing"));
        }, 1);
        StepVerifier.create(client.request(ascii("x"))).expectErrorSatisfies(t -> assertThat(t)
                .isInstanceOf(RdmaRemoteException.class).hasMessageContaining("no such thing")).verify(TIMEOUT);
    }

    static ByteBuf pattern(int length, int seed) {
        byte[] bytes = new byte[length];
        for (int i = 0; i < length; i++) {
            bytes[i] = (byte) (i * 31 + seed);
        }
        return Unpooled.directBuffer(length).writeBytes(bytes);
    }

    private static ByteBuf heapPattern(int length, int seed) {
        ByteBuf direct = pattern(length, seed);
        try {
            return Unpooled.buffer(length).writeBytes(direct);
        } finally {
            direct.release();
        }
    }

    @Test
    void rfc8797Section4_1LargeMessagesGoByRdmaReadNotByManySends() {
        assertThat(client.rpcRdma().remoteInvalidation()).as("both ends set R").isTrue();
        int[] sizes = {4089, 65536, 1 << 20};
        Mono<Void> sending = client.send(Flux.fromArray(new Integer[] {0, 1, 2}).map(i -> i == 1
                ? heapPattern(sizes[i], i) : pattern(sizes[i], i)));
        StepVerifier.create(Flux.merge(sending.then(Mono.<Boolean>empty()), serverSession.receive().take(3)
                .index().map(t -> {
                    ByteBuf b = t.getT2();
                    int i = t.getT1().intValue();
                    ByteBuf expected = pattern(sizes[i], i);
                    try {
                        return b.readableBytes() == sizes[i] && io.netty.buffer.ByteBufUtil.equals(b, expected);
                    } finally {
                        expected.release();
                    }
                })))
                .expectNext(true, true, true).expectComplete().verify(TIMEOUT);
    }

    @Test
    void rfc5040Section5_3SmallAndLargeMessagesMixedStillArriveInOrder() {
        // Inline messages (and batches of them) must not overtake a LARGE one whose RDMA Read is still
        // running: the stream's order is the order of the Sends (RFC 5040 §5.3).
        int count = 300;
        Mono<Void> sending = client.send(Flux.range(0, count).map(i -> pattern(i % 3 == 0 ? 20_000 : 16, i)));
        expectSentInOrder(sending, count, i -> i % 3 == 0 ? 20_000 : 16);
    }

    /** The server receives {@code count} messages, the i-th {@link #pattern}{@code (size(i), i)}, as the send ends. */
    private void expectSentInOrder(Mono<Void> sending, int count, java.util.function.IntUnaryOperator size) {
        StepVerifier.create(Flux.merge(sending.then(Mono.<Long>empty()), serverSession.receive().take(count)
                .index().filter(t -> {
                    int i = t.getT1().intValue();
                    ByteBuf expected = pattern(size.applyAsInt(i), i);
                    try {
                        return !io.netty.buffer.ByteBufUtil.equals(t.getT2(), expected);
                    } finally {
                        expected.release();
                    }
                }).count()))
                .expectNext(0L).as("messages out of order or wrong").expectComplete().verify(TIMEOUT);
    }

    /**
     * docs/protocol.md, "Large messages", step 4: one READ_DONE releases every region whose Read has finished by the
     * time it goes. The client here receives nothing, so it grants the server only its reserve of credits: one
     * READ_DONE per region would go at one per credit round trip, and the client would take at least one Send per
     * message. Every message still arrives whole and every region is released (the send completes), the first of
     * each READ_DONE by its Send with Invalidate (RFC 8797 §4.1, both ends set R here) and the rest by its payload.
     */
    @Test
    void oneReadDoneReleasesEveryRegionReadByThen() {
        int count = 64;
        int size = 16 * 1024;
        long sendsBefore = sendsReceived(client);
        Mono<Void> sending = client.send(Flux.range(0, count).map(i -> pattern(size, i)));
        expectSentInOrder(sending, count, i -> size);
        // The send completes on the last release, so every READ_DONE has been counted by now.
        assertThat(sendsReceived(client) - sendsBefore).as("Sends the client received for %d large messages", count)
                .isPositive().isLessThan(count);
    }

    /**
     * docs/protocol.md, "BATCH": messages a {@code send(Publisher)} takes in together are all queued before any
     * goes, so they pack into as few Sends as fit the inline size, even with credit for a Send each. The server
     * grants its credits first (in the header of a response). The send asks for one message (to learn their size),
     * then for the rest, which {@code Flux.range} hands over at once: one Send for the first, one BATCH for the
     * other 63 (64 × (32 + 4) octets fit one 4 KiB Send). Sending each while credit lasts took one Send per credit
     * (5 or more here) before the rest packed.
     */
    @Test
    void messagesTakenInTogetherShareABatchWhateverTheCredit() {
        int count = 64;
        AtomicLong received = new AtomicLong();
        reactor.core.Disposable receiving = serverSession.receive().subscribe(b -> received.incrementAndGet());
        try {
            // The server's buffers posted for that demand are granted in the header of its next message.
            serverSession.respond(Mono::just, 1);
            StepVerifier.create(client.request(ascii("grant")).map(MessagingTest::text)).expectNext("grant")
                    .expectComplete().verify(TIMEOUT);
            await().atMost(TIMEOUT).until(() -> client.statistics().creditsAvailable() >= 5);
            long sendsBefore = sendsReceived(serverSession);
            // Subscribed on the client's event loop, so that the publisher emits there: one subscribed elsewhere
            // may still be emitting on its own thread when the loop asks for more, and hand over one at a time.
            StepVerifier.create(client.send(Flux.range(0, count).map(i -> pattern(32, i))).subscribeOn(
                    reactor.core.scheduler.Schedulers.fromExecutor(client.connection().channel().eventLoop())))
                    .expectComplete().verify(TIMEOUT);
            await().atMost(TIMEOUT).until(() -> received.get() == count);
            assertThat(sendsReceived(serverSession) - sendsBefore)
                    .as("Sends the server received for %d messages", count).isBetween(1L, 3L);
        } finally {
            receiving.dispose();
        }
    }

    private static long sendsReceived(RdmaSession session) {
        io.softrdma.verbs.QueuePairCounters c = session.statistics().counters();
        long n = 0;
        for (io.softrdma.rdmap.RdmapOpcode op : new io.softrdma.rdmap.RdmapOpcode[] {
                io.softrdma.rdmap.RdmapOpcode.SEND, io.softrdma.rdmap.RdmapOpcode.SEND_WITH_INVALIDATE,
                io.softrdma.rdmap.RdmapOpcode.SEND_WITH_SE, io.softrdma.rdmap.RdmapOpcode.SEND_WITH_SE_AND_INVALIDATE}) {
            n += c.messages(op, true);
        }
        return n;
    }

    @Test
    void largeRequestsAndResponsesToo() {
        serverSession.respond(request -> {
            int n = request.readableBytes();
            return Mono.just(pattern(n * 2, 7));
        }, 2);
        StepVerifier.create(client.request(pattern(100_000, 3)).map(b -> {
            ByteBuf expected = pattern(200_000, 7);
            try {
                return io.netty.buffer.ByteBufUtil.equals(b, expected);
            } finally {
                expected.release();
            }
        })).expectNext(true).expectComplete().verify(TIMEOUT);
    }

    @Test
    void aMessageAboveTheLargestMessageSizeFailsTheSend() {
        int n = (int) MessagingOptions.DEFAULTS.maxMessageSize() + 1;
        StepVerifier.create(client.send(Mono.fromSupplier(() -> Unpooled.buffer(n).writeZero(n))))
                .expectErrorSatisfies(t -> assertThat(t).hasMessageContaining("exceeds the largest of"))
                .verify(TIMEOUT);
    }

    @Test
    void aBufferAlreadyReleasedFailsFastWithWhatToDo() {
        serverSession.respond(Mono::just, 4);
        ByteBuf used = ascii("used");
        used.release();
        StepVerifier.create(client.request(used)).expectErrorSatisfies(t -> assertThat(t)
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("already released")
                .hasMessageContaining("Mono.defer")).verify(TIMEOUT);
        ByteBuf message = ascii("message");
        message.release();
        StepVerifier.create(client.send(Mono.just(message))).expectErrorSatisfies(t -> assertThat(t)
                .hasMessageContaining("the message's buffer was already released")).verify(TIMEOUT);
        // A request Mono subscribed twice: the second subscription finds the buffer the first released.
        Mono<String> twice = client.request(ascii("twice")).map(MessagingTest::text);
        StepVerifier.create(twice).expectNext("twice").expectComplete().verify(TIMEOUT);
        StepVerifier.create(twice).expectError(IllegalArgumentException.class).verify(TIMEOUT);
        // And the session is still fine.
        StepVerifier.create(client.request(ascii("fine")).map(MessagingTest::text)).expectNext("fine")
                .expectComplete().verify(TIMEOUT);
    }

    /**
     * A peer that breaks the messaging protocol (a LARGE announcement beyond this side's largest message) ends the
     * session, and the session says why: the queue pair's close is graceful, but the session was lost.
     */
    @Test
    void aPeerThatBreaksTheProtocolEndsTheSessionWithTheReason() {
        java.util.concurrent.CompletableFuture<RdmaSession> accepted = new java.util.concurrent.CompletableFuture<>();
        DisposableRdmaServer small = RdmaServer.create().host("127.0.0.1").port(0)
                .messaging(MessagingOptions.DEFAULTS.withMaxMessageSize(1024 * 1024))
                .handle(s -> {
                    accepted.complete(s);
                    return s.onDispose();
                }).bindNow();
        try {
            RdmaSession sender = RdmaClient.create().host("127.0.0.1").port(small.port()).connect().block(TIMEOUT);
            int n = 2 * 1024 * 1024;
            sender.send(Mono.fromSupplier(() -> Unpooled.directBuffer(n).writeZero(n))).subscribe(v -> { }, e -> { });
            RdmaSession receiver = accepted.join();
            StepVerifier.create(receiver.onTermination())
                    .expectErrorSatisfies(t -> assertThat(t).hasMessageContaining("exceeds the 1048576 octets"))
                    .verify(TIMEOUT);
            sender.onDispose().block(TIMEOUT);
        } finally {
            small.disposeNow(TIMEOUT);
        }
    }
}
