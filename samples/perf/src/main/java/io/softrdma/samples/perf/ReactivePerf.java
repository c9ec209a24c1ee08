package io.softrdma.samples.perf;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.channel.EventLoop;
import io.rsocket.RSocket;
import io.rsocket.SocketAcceptor;
import io.rsocket.core.RSocketConnector;
import io.rsocket.core.RSocketServer;
import io.rsocket.frame.decoder.PayloadDecoder;
import io.rsocket.transport.netty.client.TcpClientTransport;
import io.rsocket.transport.netty.server.CloseableChannel;
import io.rsocket.transport.netty.server.TcpServerTransport;
import io.rsocket.util.ByteBufPayload;
import io.softrdma.mpa.MpaSettings;
import io.softrdma.reactive.DisposableRdmaServer;
import io.softrdma.reactive.LocalRegion;
import io.softrdma.reactive.MessagingOptions;
import io.softrdma.reactive.RdmaClient;
import io.softrdma.reactive.RdmaServer;
import io.softrdma.reactive.RdmaSession;
import io.softrdma.samples.perf.PerfProtocol.Test;
import io.softrdma.verbs.Access;
import io.softrdma.verbs.RemoteMemory;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.IntFunction;
import org.reactivestreams.Publisher;
import org.reactivestreams.Subscription;
import reactor.core.publisher.BaseSubscriber;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.netty.resources.LoopResources;
import reactor.netty.tcp.TcpClient;
import reactor.netty.tcp.TcpServer;

/**
 * The reactive API ({@link RdmaSession}) next to RSocket 1.1.5 over TCP, in one process on 127.0.0.1,
 * each side on its own single-threaded reactor-netty loop (as the verbs tests have one event loop per
 * side), both connections opened once and reused by every test:
 *
 * <ul>
 *   <li>{@link #rxSend}: {@code send(Flux)} of {@code size}-octet messages to a peer whose
 *       {@code receive()} subscriber asks for {@link #RECEIVE_BATCH} at a time (its demand is the credits
 *       granted); the phase ends when the receiver has counted the last one;
 *   <li>{@link #rsocketFireAndForget}: RSocket fire-and-forget to a server that counts them; RSocket has
 *       no flow control for it, so the harness keeps at most {@link RsocketLoad#FNF_WINDOW} messages uncounted
 *       (a generous window; the reactive send has {@link #RECEIVE_DEPTH} credits at most);
 *   <li>{@link #rsocketStream}: RSocket request-stream, the server streaming {@code size}-octet payloads
 *       to a client asking for {@link #RECEIVE_BATCH} at a time — the counterpart of {@code receive()};
 *   <li>{@link #rxRequest} / {@link #rsocketRequestResponse}: {@code size}-octet requests answered with
 *       {@code size} octets, {@link #WINDOW} outstanding; and, one at a time, the round trip;
 *   <li>{@link #rxAtomic} / {@link #rxAtomicLatency}: {@code fetchAdd} and {@code compareAndSwap} (RFC 7306)
 *       on a word the server session registered, as the verbs test does them (RSocket has no counterpart:
 *       they stand next to the verbs rows and raw TCP's).
 * </ul>
 * Messages are retained slices of one pooled buffer (RSocket's wrapped in recycled
 * {@link ByteBufPayload}s, decoded zero-copy and released), so the harness itself allocates little.
 *
 * <p>Why this class is long: it runs the reactive API and RSocket side by side, each test's phases written out for
 * both stacks so that the rows compare like with like.
 */
final class ReactivePerf implements AutoCloseable {
    static final String RX_SERVER_THREADS = "rx-server";
    static final String RX_CLIENT_THREADS = "rx-client";
    static final String RSOCKET_SERVER_THREADS = "rs-server";
    static final String RSOCKET_CLIENT_THREADS = "rs-client";
    /** Receive buffers the receiver keeps asked for (its credits), as the verbs server posts 256. */
    static final int RECEIVE_DEPTH = 256;
    /** The receiver asks for this many more each time it has consumed as many. */
    static final int RECEIVE_BATCH = 64;
    /** Requests outstanding in a request bandwidth phase, as in the verbs tests. */
    static final int WINDOW = RsocketLoad.WINDOW;
    private static final Duration TIMEOUT = Duration.ofSeconds(60);

    private final ByteBuf payload;
    private final LoopResources rxServerLoops = LoopResources.create(RX_SERVER_THREADS, 1, 1, true);
    private final LoopResources rxClientLoops = LoopResources.create(RX_CLIENT_THREADS, 1, true);
    private final LoopResources rsServerLoops = LoopResources.create(RSOCKET_SERVER_THREADS, 1, 1, true);
    private final LoopResources rsClientLoops = LoopResources.create(RSOCKET_CLIENT_THREADS, 1, true);
    private final DisposableRdmaServer rdmaServer;
    private final RdmaSession client;
    private final RdmaSession serverSession;
    private final CloseableChannel rsocketServer;
    private final RSocket rsocket;
    /** The RSocket application's requester side (the same code the {@code --api rsocket} rows run). */
    private final RsocketLoad rsocketLoad;

    /**
     * @param port the SoftRDMA server's port, 0 for any free one (a fixed one lets a capture find it)
     * @param messaging both ends' messaging options (inline size, send window)
     */
    ReactivePerf(ByteBuf payload, boolean crc, boolean markers, int port, MessagingOptions messaging)
            throws Exception {
        this.payload = payload;
        CompletableFuture<RdmaSession> accepted = new CompletableFuture<>();
        rdmaServer = RdmaServer.create().host("127.0.0.1").port(port)
                .mpa(MpaSettings.defaults().withCrc(crc).withMarkers(markers))
                .queuePair(c -> c.withReceiveQueueDepth(2 * RECEIVE_DEPTH).withSendQueueDepth(2 * RECEIVE_DEPTH))
                .messaging(messaging)
                .tcpConfiguration(t -> t.runOn(rxServerLoops))
                .handle(session -> {
                    accepted.complete(session);
                    return session.onDispose();
                }).bindNow();
        client = RdmaClient.create().host("127.0.0.1").port(rdmaServer.port())
                .mpa(RdmaClient.DEFAULT_MPA.withCrc(crc).withMarkers(markers))
                .queuePair(c -> c.withReceiveQueueDepth(2 * RECEIVE_DEPTH).withSendQueueDepth(2 * RECEIVE_DEPTH))
                .messaging(messaging)
                .tcpConfiguration(t -> t.runOn(rxClientLoops))
                .connect().block(TIMEOUT);
        serverSession = accepted.get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
        // Request/response: the server answers each request with as many octets as it asked with.
        serverSession.respond(request -> Mono.just(message(request.readableBytes())), WINDOW);

        PerfResponder responder = new PerfResponder(this::message);
        rsocketServer = RSocketServer.create(SocketAcceptor.with(responder)).payloadDecoder(PayloadDecoder.ZERO_COPY)
                .bind(TcpServerTransport.create(TcpServer.create().host("127.0.0.1").port(0).runOn(rsServerLoops)))
                .block(TIMEOUT);
        rsocket = RSocketConnector.create().payloadDecoder(PayloadDecoder.ZERO_COPY)
                .connect(TcpClientTransport.create(TcpClient.create()
                        .remoteAddress(() -> rsocketServer.address()).runOn(rsClientLoops)))
                .block(TIMEOUT);
        rsocketLoad = new RsocketLoad(rsocket, (EventLoop) rsClientLoops.onClient(true).next(), responder,
                this::message, size -> RsocketLoad.Windows.FIXED);
    }

    // ---- one-way streams ----

    /** Reactive {@code send} to the peer's {@code receive()}: warm-up, then the measured phase. */
    Measured rxSend(int size, Budget warmup, Budget budget, AtomicLong progress, Runnable measuring)
            throws Exception {
        Arrivals arrivals = new Arrivals();
        Receiver receiver = new Receiver(arrivals);
        serverSession.receive().subscribe(receiver);
        try {
            long sent = 0;
            if (!warmup.isEmpty()) {
                sent += rxSendPhase(size, warmup, null);
                arrivals.await(sent).get(warmup.timeoutSeconds(), TimeUnit.SECONDS);
            }
            measuring.run();
            long start = System.nanoTime();
            long n = rxSendPhase(size, budget, progress);
            arrivals.await(sent + n).get(budget.timeoutSeconds(), TimeUnit.SECONDS);
            return new Measured(n, System.nanoTime() - start);
        } finally {
            receiver.dispose();
        }
    }

    private long rxSendPhase(int size, Budget budget, AtomicLong progress) throws Exception {
        return startSendPhase(client, payload, size, budget, progress).get(budget.timeoutSeconds(), TimeUnit.SECONDS);
    }

    /**
     * {@code client.send} of {@code size}-octet messages until the budget is spent, without waiting: completes with
     * how many were sent ({@link ConnectionScale} runs one on each of many sessions at once).
     */
    static CompletableFuture<Long> startSendPhase(RdmaSession client, ByteBuf payload, int size, Budget budget,
            AtomicLong progress) {
        long[] count = new long[1];
        long deadline = budget.deadline(System.nanoTime());
        Flux<ByteBuf> messages = Flux.generate(sink -> {
            if (budget.over(count[0], deadline)) {
                sink.complete();
                return;
            }
            long c = ++count[0];
            if (progress != null) {
                progress.lazySet(c);
            }
            sink.next(message(payload, size));
        });
        // The send's completion orders the generator's writes before the read of the count.
        return client.send(messages).toFuture().thenApply(v -> count[0]);
    }

    /** Consumes and counts messages, asking for {@link #RECEIVE_BATCH} more each time as many are consumed. */
    static final class Receiver extends BaseSubscriber<ByteBuf> {
        private final Arrivals arrivals;
        private int consumed;

        Receiver(Arrivals arrivals) {
            this.arrivals = arrivals;
        }

        @Override
        protected void hookOnSubscribe(Subscription s) {
            s.request(RECEIVE_DEPTH);
        }

        @Override
        protected void hookOnNext(ByteBuf b) {
            // The library releases the message once this returns.
            arrivals.arrived();
            if (++consumed == RECEIVE_BATCH) {
                consumed = 0;
                request(RECEIVE_BATCH);
            }
        }
    }

    /** RSocket fire-and-forget to a counting server: warm-up, then the measured phase. */
    Measured rsocketFireAndForget(int size, Budget warmup, Budget budget, AtomicLong progress, Runnable measuring)
            throws Exception {
        return rsocketLoad.fireAndForget(size, warmup, budget, progress, measuring);
    }

    /** RSocket request-stream with the client asking for {@link #RECEIVE_BATCH} at a time. */
    Measured rsocketStream(int size, Budget warmup, Budget budget, AtomicLong progress, Runnable measuring)
            throws Exception {
        return rsocketLoad.stream(size, warmup, budget, progress, measuring);
    }

    // ---- request/response ----

    /** Reactive request/response, {@link #WINDOW} outstanding: warm-up, then the measured phase. */
    Measured rxRequest(int size, Budget warmup, Budget budget, AtomicLong progress, Runnable measuring)
            throws Exception {
        // The response is valid in onNext only: it is read there, inside flatMap (which may queue what it emits).
        return RequestLoop.requests(n -> client.request(message(n)).map(ByteBuf::readableBytes), size, WINDOW, warmup,
                budget, progress, measuring);
    }

    /** RSocket request-response, {@link #WINDOW} outstanding: warm-up, then the measured phase. */
    Measured rsocketRequestResponse(int size, Budget warmup, Budget budget, AtomicLong progress,
            Runnable measuring) throws Exception {
        return rsocketLoad.requestResponse(size, warmup, budget, progress, measuring);
    }

    /** Round trips of one request at a time, reactive; fills {@code rtts} (sorted). */
    void rxLatency(int size, int warmup, long[] rtts) throws Exception {
        RequestLoop.roundTrips(n -> client.request(message(n)).map(ByteBuf::readableBytes), size, warmup, rtts);
    }

    /** Round trips of one request at a time, RSocket; fills {@code rtts} (sorted). */
    void rsocketLatency(int size, int warmup, long[] rtts) throws Exception {
        rsocketLoad.requestResponseLatency(size, warmup, rtts);
    }

    // ---- RFC 7306 atomics ----

    /**
     * Reactive Fetch-and-Add (adding 1) or Compare-and-Swap (expecting 0, swapping in 0: every one succeeds and
     * the word stays 0) on a fresh word, {@link #WINDOW} outstanding at most (and the ORD: the session holds
     * more back): warm-up, then the measured phase; then the word is checked into {@code check}.
     */
    Measured rxAtomic(Test op, Budget warmup, Budget budget, AtomicLong progress, Runnable measuring,
            WordCheck check) throws Exception {
        LocalRegion region = newWord();
        try {
            RemoteMemory word = region.remote();
            // Fetch-and-Add: the values returned, each seen once, sum to 0 + 1 + ... + (n - 1).
            AtomicLong sum = new AtomicLong();
            IntFunction<Publisher<Long>> call = op == Test.FETCH_ADD
                    ? n -> client.fetchAdd(word, 1).doOnNext(sum::addAndGet)
                    : n -> client.compareAndSwap(word, 0, 0).doOnNext(v -> expectValue(op, v, 0));
            int window = Math.min(WINDOW, client.ord());
            long warmed = warmup.isEmpty() ? 0 : RequestLoop.requestPhase(call, 0, warmup, window, null, null);
            measuring.run();
            long start = System.nanoTime();
            long n = RequestLoop.requestPhase(call, 0, budget, window, progress, null);
            Measured measured = new Measured(n, System.nanoTime() - start);
            long total = warmed + n;
            if (op == Test.FETCH_ADD) {
                expectValue(op, sum.get(), total * (total - 1) / 2);
                check.verify("rx-fetch-add", "bandwidth", total + " fetch-adds of 1", total, wordValue(region));
            } else {
                check.verify("rx-compare-swap", "bandwidth", total + " compare-swaps of 0 for 0, each finding 0", 0,
                        wordValue(region));
            }
            return measured;
        } finally {
            region.dispose();
        }
    }

    /**
     * Round trips of one atomic at a time on a fresh word: Fetch-and-Add of 1, or the serial Compare-and-Swap
     * increment (each expects what the one before returned, plus 1); fills {@code rtts} (sorted), checks each
     * value returned and the word at the end into {@code check}.
     */
    void rxAtomicLatency(Test op, int warmup, long[] rtts, WordCheck check) throws Exception {
        LocalRegion region = newWord();
        try {
            RemoteMemory word = region.remote();
            // One at a time: the next is built once the one before has returned its value.
            long[] expect = {0};
            IntFunction<Publisher<Long>> call = n -> (op == Test.FETCH_ADD ? client.fetchAdd(word, 1)
                    : client.compareAndSwap(word, expect[0], expect[0] + 1)).doOnNext(v -> {
                        expectValue(op, v, expect[0]);
                        expect[0] = v + 1;
                    });
            RequestLoop.requestPhase(call, 0, Budget.of(warmup), 1, null, null);
            RequestLoop.requestPhase(call, 0, Budget.of(rtts.length), 1, null, rtts);
            java.util.Arrays.sort(rtts);
            long total = warmup + rtts.length;
            String row = "rx-" + op.wireName();
            check.verify(row, "latency", op == Test.FETCH_ADD ? total + " fetch-adds of 1"
                    : total + " serial compare-swaps of v for v+1, each swapping", total, wordValue(region));
        } finally {
            region.dispose();
        }
    }

    /** A word the server session registers for atomics, set to 0 (registered memory is not cleared). */
    private LocalRegion newWord() {
        if (!client.extensions().atomics()) {
            throw new IllegalStateException("the sessions did not agree to RFC 7306 atomics (agreed: "
                    + client.extensions() + ")");
        }
        LocalRegion region = serverSession.allocate(PerfProtocol.ATOMIC_SIZE, Access.LOCAL_WRITE, Access.REMOTE_ATOMIC);
        region.buffer().setLong(0, 0);
        return region;
    }

    /** The word as the server holds it (this process's memory), once every operation on it has returned. */
    private static long wordValue(LocalRegion region) {
        return region.buffer().getLong(0);
    }

    private static void expectValue(Test op, long value, long expected) {
        if (value != expected) {
            throw new IllegalStateException("rx-" + op.wireName() + ": " + value + " where " + expected
                    + " was due");
        }
    }

    // ---- plumbing ----

    /**
     * A {@code size}-octet message: a pooled buffer, whose wrapper the allocator recycles on an event
     * loop (a slice of the shared payload measured 124 octets of garbage per message: an unpooled slice).
     */
    private ByteBuf message(int size) {
        return message(payload, size);
    }

    /** A {@code size}-octet message copied from {@code payload} into a pooled buffer (see {@link #message(int)}). */
    static ByteBuf message(ByteBuf payload, int size) {
        return PooledByteBufAllocator.DEFAULT.directBuffer(size).writeBytes(payload, 0, size);
    }

    @Override
    public void close() {
        rsocket.dispose();
        rsocketServer.dispose();
        client.dispose();
        client.onDispose().block(TIMEOUT);
        serverSession.onDispose().block(TIMEOUT);
        rdmaServer.disposeNow(TIMEOUT);
        rsocketServer.onClose().block(TIMEOUT);
        for (LoopResources loops : new LoopResources[] {rsClientLoops, rsServerLoops, rxClientLoops,
            rxServerLoops}) {
            loops.disposeLater(Duration.ZERO, Duration.ofSeconds(2)).block(TIMEOUT);
        }
    }
}
