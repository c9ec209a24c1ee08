package io.softrdma.rsocket;

import static io.softrdma.rsocket.Payloads.index;
import static io.softrdma.rsocket.Payloads.numbered;
import static io.softrdma.rsocket.Payloads.text;
import static io.softrdma.rsocket.Payloads.utf8;
import static io.softrdma.rsocket.RSocketPair.TIMEOUT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelOption;
import io.rsocket.Payload;
import io.rsocket.RSocket;
import io.rsocket.exceptions.CanceledException;
import io.rsocket.exceptions.ConnectionErrorException;
import io.rsocket.frame.decoder.PayloadDecoder;
import io.rsocket.util.ByteBufPayload;
import io.softrdma.ConnectionClosedException;
import io.softrdma.rdmap.RdmapOpcode;
import io.softrdma.rdmap.TerminateException;
import io.softrdma.reactive.LocalRegion;
import io.softrdma.reactive.MessagingOptions;
import io.softrdma.reactive.RdmaSession;
import io.softrdma.verbs.Access;
import io.softrdma.verbs.QueuePairCounters;
import io.softrdma.verbs.RemoteMemory;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.reactivestreams.Publisher;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Hooks;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;
import reactor.test.StepVerifier;

/**
 * RSocket over SoftRDMA, scenario by scenario, where RSocket's transport test kit ({@link RdmaTransportTest}) has no
 * test: what each interaction model delivers, cancellation, a lost connection, a Terminate, 1 MiB and 10 MiB
 * payloads, and the largest frame. Section names are those of the RSocket protocol specification (rsocket.io,
 * "Protocol", version 1.0) and of RFC 5040 (RDMAP). The Netty leak detector runs at PARANOID and fails a test on any
 * leak (rdma-core's {@code LeakCheckExtension}).
 */
class RdmaRSocketScenariosTest {
    private static final int MiB = 1024 * 1024;

    // ---- the five interaction models (spec "Frame Types", "Stream Sequences and Lifetimes") ----

    @Test
    void specRequestFireAndForgetReachesTheResponderInOrder() {
        Sinks.Many<String> seen = Sinks.many().replay().all();
        try (RSocketPair pair = new RSocketPair(new RSocket() {
            @Override
            public Mono<Void> fireAndForget(Payload p) {
                seen.tryEmitNext(utf8(p));
                return Mono.empty();
            }
        })) {
            Flux.range(0, 100).concatMap(i -> pair.client.fireAndForget(text("ff " + i))).blockLast(TIMEOUT);
            StepVerifier.create(seen.asFlux().take(100).collectList())
                    .assertNext(l -> assertThat(l).containsExactlyElementsOf(
                            LongStream.range(0, 100).mapToObj(i -> "ff " + i).toList()))
                    .expectComplete().verify(TIMEOUT);
        }
    }

    @Test
    void specRequestResponseAnswersWithDataAndMetadata() {
        try (RSocketPair pair = new RSocketPair(new RSocket() {
            @Override
            public Mono<Payload> requestResponse(Payload p) {
                try {
                    return Mono.just(text("re: " + p.getDataUtf8(), "meta: " + p.getMetadataUtf8()));
                } finally {
                    p.release();
                }
            }
        })) {
            StepVerifier.create(Flux.range(0, 200).flatMap(i -> pair.client.requestResponse(text("q" + i, "m" + i))
                            .map(r -> {
                                try {
                                    return r.getDataUtf8() + "|" + r.getMetadataUtf8();
                                } finally {
                                    r.release();
                                }
                            }), 32).collectList())
                    .assertNext(l -> assertThat(l).hasSize(200).contains("re: q0|meta: m0", "re: q199|meta: m199"))
                    .expectComplete().verify(TIMEOUT);
        }
    }

    /** Spec "Flow Control: Reactive Streams Semantics": the responder emits exactly what REQUEST_N allows. */
    @Test
    void specRequestStreamHonoursRequestN() {
        AtomicLong requested = new AtomicLong();
        try (RSocketPair pair = new RSocketPair(new RSocket() {
            @Override
            public Flux<Payload> requestStream(Payload p) {
                long n = Long.parseLong(utf8(p));
                return Flux.range(0, (int) n).map(i -> numbered(i)).doOnRequest(r -> requested.addAndGet(r));
            }
        })) {
            // A subscriber that asks for 5, then 7: the responder is asked for exactly 12 (REQUEST_N 5, then 7).
            StepVerifier.create(pair.client.requestStream(text("1000")).map(Payloads::index), 0)
                    .thenRequest(5).expectNext(0L, 1L, 2L, 3L, 4L)
                    .then(() -> assertThat(requested).hasValue(5))
                    .thenRequest(7).expectNextCount(7)
                    .then(() -> assertThat(requested).hasValue(12))
                    .thenCancel().verify(TIMEOUT);
            // All of a stream, in order, through a subscriber that asks 64 at a time.
            List<Long> all = pair.client.requestStream(text("20000")).map(Payloads::index).limitRate(64)
                    .collectList().block(TIMEOUT);
            assertThat(all).containsExactlyElementsOf(LongStream.range(0, 20_000).boxed().toList());
        }
    }

    @Test
    void specRequestChannelCarriesBothDirections() {
        try (RSocketPair pair = new RSocketPair(new RSocket() {
            @Override
            public Flux<Payload> requestChannel(Publisher<Payload> payloads) {
                return Flux.from(payloads).map(p -> numbered(2 * index(p)));
            }
        })) {
            List<Long> doubled = pair.client.requestChannel(Flux.range(0, 5000).map(i -> numbered(i)))
                    .map(Payloads::index).collectList().block(TIMEOUT);
            assertThat(doubled).containsExactlyElementsOf(LongStream.range(0, 5000).map(i -> 2 * i).boxed().toList());
        }
    }

    /** Spec "METADATA_PUSH Frame": stream 0, metadata only, no response. */
    @Test
    void specMetadataPushReachesTheResponder() {
        Sinks.Many<String> seen = Sinks.many().replay().all();
        try (RSocketPair pair = new RSocketPair(new RSocket() {
            @Override
            public Mono<Void> metadataPush(Payload p) {
                try {
                    seen.tryEmitNext(p.getMetadataUtf8());
                } finally {
                    p.release();
                }
                return Mono.empty();
            }
        })) {
            Flux.range(0, 10).concatMap(i -> pair.client.metadataPush(text("", "pushed " + i))).blockLast(TIMEOUT);
            StepVerifier.create(seen.asFlux().take(10).collectList())
                    .assertNext(l -> assertThat(l).hasSize(10).contains("pushed 0", "pushed 9"))
                    .expectComplete().verify(TIMEOUT);
        }
    }

    // ---- cancellation ----

    /**
     * Spec "CANCEL Frame": a requester that cancels mid-stream stops the responder's publisher; what was in flight
     * is released (the leak check after the test), nothing stays queued on either RDMA session, and the connection
     * goes on serving.
     */
    @Test
    void specCancelStopsTheResponderMidStreamAndTheConnectionGoesOn() {
        AtomicBoolean cancelled = new AtomicBoolean();
        AtomicLong emitted = new AtomicLong();
        try (RSocketPair pair = new RSocketPair(new RSocket() {
            @Override
            public Flux<Payload> requestStream(Payload p) {
                p.release();
                // Endless: only a CANCEL ends it. Every tenth payload is above the inline threshold (a LARGE
                // message, lent for an RDMA Read), so a cancel also meets frames lent and not yet read.
                return Flux.<Payload, Long>generate(() -> 0L, (i, sink) -> {
                    sink.next(i % 10 == 9 ? ByteBufPayload.create(Payloads.pattern(64 * 1024, i.intValue()))
                            : numbered(i));
                    return i + 1;
                }).doOnNext(x -> emitted.incrementAndGet()).doOnCancel(() -> cancelled.set(true));
            }

            @Override
            public Mono<Payload> requestResponse(Payload p) {
                return Mono.just(text("still here: " + utf8(p)));
            }
        })) {
            Long received = pair.client.requestStream(text("go")).take(3000).doOnNext(Payload::release).count()
                    .block(TIMEOUT);
            assertThat(received).isEqualTo(3000);
            await().atMost(TIMEOUT).untilTrue(cancelled);
            long atCancel = emitted.get();
            assertThat(pair.client.requestResponse(text("ping")).map(Payloads::utf8).block(TIMEOUT))
                    .isEqualTo("still here: ping");
            await().atMost(TIMEOUT).untilAsserted(() -> {
                assertThat(pair.serverConnection().framesQueued()).isZero();
                assertThat(pair.clientConnection().session().messagesBuffered()).isZero();
                assertThat(pair.serverConnection().session().messagesBuffered()).isZero();
            });
            assertThat(emitted.get()).as("the responder emits nothing after the cancel").isEqualTo(atCancel);
            assertThat(pair.clientConnection().isDisposed()).isFalse();
        }
    }

    /**
     * With RSocket's zero-copy decoder a received payload is a retained slice of the frame, which RSocket and the
     * application may keep as long as they like, as over TCP. A subscriber that holds 300 payloads before it releases
     * any (here, {@code buffer(300)}) must get all 300: the frames it holds must not hold the receive buffers the
     * peer needs credit for (128 by default), or the stream would stall for good.
     */
    @Test
    void zeroCopyPayloadsHeldByTheApplicationDoNotHoldReceiveCredit() {
        try (RSocketPair pair = new RSocketPair(new RSocket() {
            @Override
            public Flux<Payload> requestStream(Payload p) {
                int n = Integer.parseInt(utf8(p));
                // 3,000 octets: one frame per receive buffer, none packed with another.
                return Flux.range(0, n).map(i -> ByteBufPayload.create(Payloads.pattern(3000, i).setLong(0, i)));
            }
        }, s -> s.payloadDecoder(PayloadDecoder.ZERO_COPY), c -> c.payloadDecoder(PayloadDecoder.ZERO_COPY),
                s -> s, c -> c)) {
            List<Payload> held = pair.client.requestStream(text("300")).buffer(300).blockLast(TIMEOUT);
            try {
                assertThat(held).hasSize(300);
                assertThat(held.stream().mapToLong(p -> p.data().getLong(p.data().readerIndex())))
                        .containsExactlyElementsOf(LongStream.range(0, 300).boxed().toList());
            } finally {
                held.forEach(Payload::release);
            }
        }
    }

    /**
     * A zero-copy payload kept past the end of the connection it came on keeps its content, as over TCP (a resumed
     * stream's store keeps frames so, and an application may finish with a request after its connection went). Its
     * memory must not be the receive buffers, which go back to the pool when the session ends and are handed out
     * again at once: here to buffers the size of the session's receive buffers, filled on its event loop.
     */
    @Test
    void aZeroCopyPayloadKeptPastItsConnectionsEndKeepsItsContent() throws Exception {
        try (RSocketPair pair = new RSocketPair(new RSocket() {
            @Override
            public Mono<Payload> requestResponse(Payload p) {
                p.release();
                return Mono.just(ByteBufPayload.create(Payloads.pattern(3000, 42)));
            }
        }, s -> s, c -> c.payloadDecoder(PayloadDecoder.ZERO_COPY), s -> s, c -> c)) {
            ByteBuf expected = Payloads.pattern(3000, 42);
            Payload kept = pair.client.requestResponse(text("keep")).block(TIMEOUT);
            try {
                RdmaDuplexConnection connection = pair.clientConnection();
                connection.session().connection().channel().close();
                connection.onClose().block(TIMEOUT);
                int arena = 128 * 4096; // the session's receive buffers: the default queue depth × inline size
                List<ByteBuf> reuse = connection.session().connection().channel().eventLoop().submit(() -> {
                    List<ByteBuf> taken = new java.util.ArrayList<>();
                    for (int i = 0; i < 8; i++) {
                        ByteBuf b = io.netty.buffer.PooledByteBufAllocator.DEFAULT.directBuffer(arena);
                        taken.add(b.writeBytes(new byte[b.capacity()]));
                    }
                    return taken;
                }).get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
                reuse.forEach(ByteBuf::release);
                assertThat(Payloads.crc(kept.data())).isEqualTo(Payloads.crc(expected));
            } finally {
                kept.release();
                expected.release();
            }
        }
    }

    // ---- how a connection ends ----

    /**
     * RFC 5040 §6.2 (a stream ended without a Terminate) under RSocket: the TCP connection under the session
     * closes, on either side, without RSocket's doing. Every stream in flight on the client — a response, a stream,
     * a channel — fails with the typed error, a CONNECTION_ERROR (spec "Error Codes": "The connection is being
     * terminated") that says the RDMA connection was lost; RSocket's onClose() terminates; the responder's
     * publishers are cancelled. And no error is left for Reactor's onErrorDropped hook: RSocket subscribes to a
     * connection's onClose() without an error handler, so the transport's onClose() completes, and the reason goes
     * by the frame.
     */
    @ParameterizedTest(name = "the {0}''s TCP connection closes")
    @ValueSource(strings = {"client", "server"})
    void aLostConnectionFailsEveryStreamWithAConnectionError(String side) throws Exception {
        Inflight inflight = new Inflight();
        List<Throwable> dropped = new CopyOnWriteArrayList<>();
        Hooks.onErrorDropped(dropped::add);
        try (RSocketPair pair = new RSocketPair(inflight)) {
            List<CompletableFuture<Throwable>> failures = Inflight.start(pair.client);
            await().atMost(TIMEOUT).untilAsserted(() -> assertThat(inflight.started).hasValue(3));
            RdmaDuplexConnection cut = side.equals("client") ? pair.clientConnection() : pair.serverConnection();
            cut.session().connection().channel().close();

            for (CompletableFuture<Throwable> f : failures) {
                Throwable t = f.orTimeout(TIMEOUT.toSeconds(), TimeUnit.SECONDS).join();
                assertThat(t).isInstanceOf(ConnectionErrorException.class)
                        .hasMessageStartingWith("the RDMA connection was lost: ");
            }
            pair.client.onClose().onErrorResume(e -> Mono.empty()).block(TIMEOUT);
            assertThat(pair.client.isDisposed()).isTrue();
            RdmaDuplexConnection other = side.equals("client") ? pair.serverConnection() : pair.clientConnection();
            for (RdmaDuplexConnection c : List.of(cut, other)) {
                StepVerifier.create(c.onClose()).expectComplete().verify(TIMEOUT);
            }
            StepVerifier.create(other.session().onTermination()).expectError(ConnectionClosedException.class)
                    .verify(TIMEOUT);
            await().atMost(TIMEOUT).untilAsserted(() -> assertThat(inflight.cancelled).hasValue(3));
            for (RdmaDuplexConnection c : List.of(cut, other)) {
                // Each session ended in one task of its event loop, telling every subscriber: one more task there
                // runs after all of them.
                c.session().connection().channel().eventLoop().submit(() -> { }).get(TIMEOUT.toSeconds(),
                        TimeUnit.SECONDS);
            }
            assertThat(dropped).isEmpty();
        } finally {
            Hooks.resetOnErrorDropped();
        }
    }

    /**
     * RFC 5040 §7: an RDMA Read of a region the responder has invalidated is answered by a Terminate (RDMAP layer,
     * remote protection error, invalid STag), which ends the RDMAP stream at both ends. RSocket's streams in flight
     * fail with a CONNECTION_ERROR naming it; the session underneath reports the TerminateException itself.
     */
    @Test
    void rfc5040Section7ATerminateFailsEveryStreamWithAConnectionErrorNamingIt() {
        Inflight inflight = new Inflight();
        try (RSocketPair pair = new RSocketPair(inflight)) {
            List<CompletableFuture<Throwable>> failures = Inflight.start(pair.client);
            await().atMost(TIMEOUT).untilAsserted(() -> assertThat(inflight.started).hasValue(3));
            LocalRegion region = pair.serverConnection().session().allocate(64, Access.REMOTE_READ);
            RemoteMemory invalid = region.remote();
            region.dispose();
            pair.clientConnection().session().read(invalid).subscribe(b -> { }, e -> { });

            for (CompletableFuture<Throwable> f : failures) {
                Throwable t = f.orTimeout(TIMEOUT.toSeconds(), TimeUnit.SECONDS).join();
                assertThat(t).isInstanceOf(ConnectionErrorException.class)
                        .hasMessageStartingWith("the RDMA connection ended with TerminateException: Terminate received");
            }
            StepVerifier.create(pair.clientConnection().session().onTermination()).expectErrorSatisfies(e -> {
                assertThat(e).isInstanceOf(TerminateException.class);
                TerminateException te = (TerminateException) e;
                assertThat(te.remote()).isTrue();
                assertThat(te.code().layer()).isZero();       // RDMAP
                assertThat(te.code().errorType()).isEqualTo(1); // remote protection error
                assertThat(te.code().errorCode()).isZero();     // invalid STag
            }).verify(TIMEOUT);
            pair.client.onClose().onErrorResume(e -> Mono.empty()).block(TIMEOUT);
            await().atMost(TIMEOUT).untilAsserted(() -> assertThat(inflight.cancelled).hasValue(3));
        }
    }

    /** A responder with three interactions that never end by themselves: a response, a stream, a channel. */
    static final class Inflight implements RSocket {
        /** Interactions the responder has started, and those RSocket has cancelled. */
        final AtomicInteger started = new AtomicInteger();
        final AtomicInteger cancelled = new AtomicInteger();

        @Override
        public Mono<Payload> requestResponse(Payload p) {
            p.release();
            return Mono.<Payload>never().doOnSubscribe(s -> started.incrementAndGet())
                    .doOnCancel(cancelled::incrementAndGet);
        }

        @Override
        public Flux<Payload> requestStream(Payload p) {
            p.release();
            return Flux.concat(Mono.fromSupplier(() -> numbered(0)), Flux.<Payload>never())
                    .doOnSubscribe(s -> started.incrementAndGet()).doOnCancel(cancelled::incrementAndGet);
        }

        @Override
        public Flux<Payload> requestChannel(Publisher<Payload> payloads) {
            return Flux.from(payloads).doOnNext(Payload::release).thenMany(Flux.<Payload>never())
                    .doOnSubscribe(s -> started.incrementAndGet()).doOnCancel(cancelled::incrementAndGet);
        }

        /** Starts one of each; each future completes with the error its interaction ends with. */
        static List<CompletableFuture<Throwable>> start(RSocket client) {
            List<CompletableFuture<Throwable>> failures = new CopyOnWriteArrayList<>();
            List<Publisher<Payload>> interactions = List.of(client.requestResponse(text("response")),
                    client.requestStream(text("stream")),
                    client.requestChannel(Flux.just(text("channel")).concatWith(Flux.never())));
            for (Publisher<Payload> p : interactions) {
                CompletableFuture<Throwable> f = new CompletableFuture<>();
                failures.add(f);
                Flux.from(p).subscribe(Payload::release, f::complete,
                        () -> f.completeExceptionally(new AssertionError("completed instead of failing")));
            }
            return failures;
        }
    }

    /**
     * A connection handed over is RSocket's: a subscriber of {@code connect()} that cancels after the connection was
     * emitted — as RSocket's resumption does, from inside the delivery of the RESUME_OK frame on the new connection —
     * does not close it. (rdma-reactive's {@code RdmaClient.connect()} closes its TCP connection on any cancel that
     * reaches it, even one after its session went out; the transport keeps such a cancel from it.)
     */
    @Test
    void aCancelAfterConnectEmittedLeavesTheConnectionOpen() {
        try (RSocketPair pair = new RSocketPair(new RSocket() {
            @Override
            public Mono<Payload> requestResponse(Payload p) {
                return Mono.just(text("still open: " + utf8(p)));
            }
        })) {
            RdmaClientTransport transport = RdmaClientTransport.create("127.0.0.1", pair.server.address().getPort());
            AtomicReference<io.rsocket.DuplexConnection> handedOver = new AtomicReference<>();
            Disposable subscriber = transport.connect().flatMap(c -> {
                handedOver.set(c);
                return Mono.never();
            }).subscribe();
            await().atMost(TIMEOUT).until(() -> handedOver.get() != null);
            subscriber.dispose(); // the cancel goes up to connect(), which has emitted

            // RSocket over that very connection: a SETUP, a request and its answer go through.
            RSocket rsocket = io.rsocket.core.RSocketConnector.connectWith(() -> Mono.just(handedOver.get()))
                    .block(TIMEOUT);
            try {
                assertThat(rsocket.requestResponse(text("after the cancel")).map(Payloads::utf8).block(TIMEOUT))
                        .isEqualTo("still open: after the cancel");
            } finally {
                rsocket.dispose();
                handedOver.get().onClose().block(TIMEOUT);
            }
        }
    }

    // ---- large payloads ----

    /** Payloads of 1 MiB, far above the 4 KiB inline threshold, in every direction, checked octet for octet. */
    @Test
    void oneMebibytePayloadsGoEveryWayIntact() {
        try (RSocketPair pair = new RSocketPair(new RSocket() {
            @Override
            public Mono<Payload> requestResponse(Payload p) {
                return Mono.just(p); // the same frame's payload back: RSocket releases it once sent
            }

            @Override
            public Flux<Payload> requestStream(Payload p) {
                int n = Integer.parseInt(utf8(p));
                return Flux.range(0, n).map(i -> ByteBufPayload.create(Payloads.pattern(MiB, i)));
            }
        })) {
            List<Long> echoed = Flux.range(0, 8).flatMap(i -> {
                ByteBuf data = Payloads.pattern(MiB, i);
                long crc = Payloads.crc(data);
                return pair.client.requestResponse(ByteBufPayload.create(data)).map(r -> {
                    try {
                        assertThat(r.data().readableBytes()).isEqualTo(MiB);
                        return Payloads.crc(r.data()) == crc ? 1L : 0L;
                    } finally {
                        r.release();
                    }
                });
            }, 4).collectList().block(TIMEOUT);
            assertThat(echoed).hasSize(8).containsOnly(1L);

            AtomicInteger i = new AtomicInteger();
            Long intact = pair.client.requestStream(text("16")).map(r -> {
                try {
                    ByteBuf expected = Payloads.pattern(MiB, i.getAndIncrement());
                    try {
                        return Payloads.crc(r.data()) == Payloads.crc(expected) ? 1L : 0L;
                    } finally {
                        expected.release();
                    }
                } finally {
                    r.release();
                }
            }).reduce(0L, Long::sum).block(TIMEOUT);
            assertThat(intact).isEqualTo(16);
        }
    }

    /**
     * A 10 MiB payload is one RSocket frame, one SoftRDMA LARGE message, fetched by one RDMA Read of exactly the
     * frame (RFC 5040 §4.4; no RSocket fragmentation, spec "Fragmentation and Reassembly", is configured or needed);
     * and it is not copied on the sending side: the client's allocator, which RSocket's frames and any copy of
     * SoftRDMA's come from, is never asked for a buffer that large.
     */
    @Test
    void aTenMebibytePayloadGoesAsOneFrameByOneRdmaReadUncopied() {
        LargestAllocation clientAlloc = new LargestAllocation();
        try (RSocketPair pair = tenMebibytePair(clientAlloc)) {
            QueuePairCounters server = pair.serverConnection().session().statistics().counters();
            QueuePairCounters client = pair.clientConnection().session().statistics().counters();
            long readsBefore = server.messages(RdmapOpcode.RDMA_READ_REQUEST, false);
            long octetsBefore = server.octets(RdmapOpcode.RDMA_READ_RESPONSE, true);
            long servedBefore = client.octets(RdmapOpcode.RDMA_READ_RESPONSE, false);

            ByteBuf data = Payloads.pattern(10 * MiB, 7);  // direct memory, as a zero-copy sender holds it
            long crc = Payloads.crc(data);
            String answer = pair.client.requestResponse(ByteBufPayload.create(data)).map(Payloads::utf8)
                    .block(TIMEOUT);

            assertThat(answer).isEqualTo(10 * MiB + " octets, crc " + crc);
            int frame = 6 + 10 * MiB;  // stream id and type/flags (spec "Frame Header Format"), then the data
            assertThat(server.messages(RdmapOpcode.RDMA_READ_REQUEST, false) - readsBefore).isEqualTo(1);
            assertThat(server.octets(RdmapOpcode.RDMA_READ_RESPONSE, true) - octetsBefore).isEqualTo(frame);
            assertThat(client.octets(RdmapOpcode.RDMA_READ_RESPONSE, false) - servedBefore).isEqualTo(frame);
            assertThat(clientAlloc.largest()).as("the largest buffer the client allocated").isLessThan(MiB);
        }
    }

    /** The probe of the test above sees a copy when there is one: a heap payload is copied into direct memory. */
    @Test
    void aTenMebibyteHeapPayloadIsCopiedOnceAndTheAllocatorSeesIt() {
        LargestAllocation clientAlloc = new LargestAllocation();
        try (RSocketPair pair = tenMebibytePair(clientAlloc)) {
            byte[] heap = new byte[10 * MiB];
            heap[12345] = 42;
            String answer = pair.client.requestResponse(ByteBufPayload.create(Unpooled.wrappedBuffer(heap)))
                    .map(Payloads::utf8).block(TIMEOUT);
            assertThat(answer).startsWith(10 * MiB + " octets");
            assertThat(clientAlloc.largest()).isGreaterThanOrEqualTo(10 * MiB + 6);
        }
    }

    private static RSocketPair tenMebibytePair(LargestAllocation clientAlloc) {
        return new RSocketPair(new RSocket() {
            @Override
            public Mono<Payload> requestResponse(Payload p) {
                try {
                    return Mono.just(text(p.data().readableBytes() + " octets, crc " + Payloads.crc(p.data())));
                } finally {
                    p.release();
                }
            }
        }, s -> s, c -> c, s -> s, c -> c.tcpConfiguration(t -> t.option(ChannelOption.ALLOCATOR, clientAlloc)));
    }

    // ---- the largest frame ----

    @Test
    void maxFrameLengthIsTheLargestMessageUpToRSocketsOwnLimit() {
        assertThat(RdmaClientTransport.create("127.0.0.1", 7471).maxFrameLength()).isEqualTo(16 * MiB - 1);
        assertThat(RdmaServerTransport.create(0).maxFrameLength()).isEqualTo(16 * MiB - 1);
        assertThat(RdmaClientTransport.create(io.softrdma.reactive.RdmaClient.create()
                .messaging(MessagingOptions.DEFAULTS.withMaxMessageSize(MiB))).maxFrameLength()).isEqualTo(MiB);
        assertThat(RdmaServerTransport.create(io.softrdma.reactive.RdmaServer.create()
                .messaging(MessagingOptions.DEFAULTS.withMaxMessageSize(64L * MiB))).maxFrameLength())
                .isEqualTo(16 * MiB - 1);
    }

    /**
     * Spec "Fragmentation and Reassembly" is off, so a payload that does not fit maxFrameLength is refused by RSocket
     * before it reaches the transport, on either side: the requester's call fails with RSocket's message, a
     * responder's answer becomes a CANCELED error (spec "Error Codes", 0x203); the payload is released, and the
     * connection goes on.
     */
    @Test
    void aFrameAboveMaxFrameLengthIsRefusedByRSocketAndTheConnectionGoesOn() {
        MessagingOptions oneMebibyte = MessagingOptions.DEFAULTS.withMaxMessageSize(MiB);
        try (RSocketPair pair = new RSocketPair(new RSocket() {
            @Override
            public Mono<Payload> requestResponse(Payload p) {
                int size = Integer.parseInt(utf8(p));
                return Mono.just(ByteBufPayload.create(Payloads.pattern(size, size)));
            }

            @Override
            public Mono<Void> fireAndForget(Payload p) {
                p.release();
                return Mono.empty();
            }
        }, s -> s, c -> c, s -> s.messaging(oneMebibyte), c -> c.messaging(oneMebibyte))) {
            StepVerifier.create(pair.client.requestResponse(ByteBufPayload.create(Payloads.pattern(2 * MiB, 1))))
                    .expectErrorSatisfies(e -> assertThat(e).isInstanceOf(IllegalArgumentException.class)
                            .hasMessage("The payload is too big to be send as a single frame with a max frame length "
                                    + MiB + ". Consider enabling fragmentation."))
                    .verify(TIMEOUT);
            StepVerifier.create(pair.client.fireAndForget(ByteBufPayload.create(Payloads.pattern(MiB, 1))))
                    .expectError(IllegalArgumentException.class).verify(TIMEOUT);
            StepVerifier.create(pair.client.requestResponse(text(String.valueOf(2 * MiB))))
                    .expectErrorSatisfies(e -> assertThat(e).isInstanceOf(CanceledException.class)
                            .hasMessage("The payload is too big to be send as a single frame with a max frame length "
                                    + MiB + ". Consider enabling fragmentation."))
                    .verify(TIMEOUT);
            // At the limit: RSocket counts a frame as its payload, its 6-octet header and the 3-octet length prefix
            // of TCP framing (spec "Framing"), which a message does not need; 9 octets in all.
            StepVerifier.create(pair.client.requestResponse(text(String.valueOf(MiB - 8))))
                    .expectError(CanceledException.class).verify(TIMEOUT);
            assertThat(pair.client.requestResponse(text(String.valueOf(MiB - 9)))
                    .map(r -> {
                        try {
                            return r.data().readableBytes();
                        } finally {
                            r.release();
                        }
                    }).block(TIMEOUT)).isEqualTo(MiB - 9);
            assertThat(pair.clientConnection().isDisposed()).isFalse();
        }
    }

    /**
     * The limit RSocket cannot see: maxFrameLength is this side's largest message, and the peer must take messages
     * that large too (docs/rsocket.md, "Limits"). A frame above the peer's maxMessageSize is a LARGE descriptor the
     * peer refuses (docs/protocol.md): it ends the connection, and every stream hears so, with the typed error.
     */
    @Test
    void aFrameAboveThePeersLargestMessageEndsTheConnectionWithATypedError() {
        try (RSocketPair pair = new RSocketPair(new RSocket() {
            @Override
            public Mono<Payload> requestResponse(Payload p) {
                p.release();
                return Mono.just(text("taken"));
            }
        }, s -> s, c -> c, s -> s.messaging(MessagingOptions.DEFAULTS.withMaxMessageSize(MiB)), c -> c)) {
            StepVerifier.create(pair.client.requestResponse(ByteBufPayload.create(Payloads.pattern(2 * MiB, 1))))
                    .expectErrorSatisfies(e -> assertThat(e).isInstanceOf(ConnectionErrorException.class)
                            .hasMessageStartingWith("the RDMA connection was lost: "))
                    .verify(TIMEOUT);
            pair.serverConnection().session().onDispose().block(TIMEOUT);
        }
    }
}
