package io.softrdma.samples.perf;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.channel.EventLoop;
import io.rsocket.Payload;
import io.rsocket.RSocket;
import io.rsocket.util.ByteBufPayload;
import java.util.Arrays;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.IntFunction;
import org.reactivestreams.Publisher;
import org.reactivestreams.Subscription;
import reactor.core.CoreSubscriber;
import reactor.core.publisher.BaseSubscriber;
import reactor.core.publisher.Mono;

/**
 * The requester side of the RSocket rows: one RSocket requester driving a {@link PerfResponder}, whatever transport
 * connects them (the code is the same over TCP and over SoftRDMA):
 *
 * <ul>
 *   <li>{@link #fireAndForget}: fire-and-forget from the requester's event loop to the counting responder; RSocket
 *       has no flow control for it, so the harness keeps at most {@link Windows#fireAndForget} messages uncounted;
 *       the phase ends when the responder has counted the last one;
 *   <li>{@link #stream}: request-stream, the requester asking for {@link Windows#streamDemand} and then
 *       {@link Windows#streamBatch} more each time as many are consumed, cancelling at the end of the phase;
 *   <li>{@link #requestResponse}: requests answered with as many octets, {@link Windows#requests} outstanding.
 * </ul>
 * And, one at a time, what each takes: {@link #requestResponseLatency} the round trip, {@link #streamLatency} from
 * asking for one more stream payload (REQUEST_N) to receiving it, {@link #fireAndForgetLatency} from the call to the
 * responder's handler (one-way; both ends read the same clock, in one process).
 *
 * <p>Buffers: every message is fresh from {@code messages}, handed to RSocket in a {@link ByteBufPayload}; what the
 * requester receives it releases. Thread safety: one phase at a time, from one thread, which waits for it to end.
 */
final class RsocketLoad {
    /** Requests outstanding in a request-response phase, as in the verbs tests. */
    static final int WINDOW = RdmaPerfClient.WINDOW;
    /** Fire-and-forget messages at most sent and not yet counted by the responder. */
    static final int FNF_WINDOW = 8192;
    /** Stream payloads the requester keeps asked for, as the verbs server posts 256 receives. */
    static final int STREAM_DEMAND = 256;
    /** The requester asks for this many more each time it has consumed as many. */
    static final int STREAM_BATCH = 64;

    /**
     * How much a phase keeps outstanding.
     *
     * @param fireAndForget fire-and-forget messages sent and not yet counted by the responder, at most
     * @param streamDemand stream payloads first asked for
     * @param streamBatch stream payloads asked for again each time as many have been consumed
     * @param requests requests outstanding
     */
    record Windows(int fireAndForget, int streamDemand, int streamBatch, int requests) {
        /** The rows {@code rsocket-ff}, {@code rsocket-stream} and {@code rsocket-rr}: the same whatever the size. */
        static final Windows FIXED = new Windows(FNF_WINDOW, STREAM_DEMAND, STREAM_BATCH, WINDOW);
        /** Payload octets outstanding at most in the capped windows: 8192 messages of 4 KiB, 32 of 1 MiB. */
        static final long IN_FLIGHT_BYTES = 32L * 1024 * 1024;

        /**
         * {@link #FIXED}, each count capped so that at most {@link #IN_FLIGHT_BYTES} of payload is outstanding (no
         * fewer than 4 messages): up to 4 KiB the same windows, at 1 MiB 32 messages, where 8192 uncounted
         * fire-and-forgets would hold 8 GiB.
         */
        static Windows capped(int size) {
            int most = (int) Math.max(4, Math.min(Integer.MAX_VALUE, IN_FLIGHT_BYTES / size));
            int demand = Math.min(STREAM_DEMAND, most);
            return new Windows(Math.min(FNF_WINDOW, most), demand,
                    Math.max(1, demand * STREAM_BATCH / STREAM_DEMAND), Math.min(WINDOW, most));
        }
    }

    private final RSocket requester;
    private final EventLoop requesterLoop;
    private final PerfResponder responder;
    private final IntFunction<ByteBuf> messages;
    private final IntFunction<Windows> windows;

    /**
     * @param requester the RSocket that sends the requests
     * @param requesterLoop the event loop of its connection, where fire-and-forget messages are sent from
     * @param responder the application at the other end (in this process), which counts fire-and-forgets
     * @param messages makes a message of a given size, RSocket's to release once handed over
     * @param windows how much each phase keeps outstanding, by message size
     */
    RsocketLoad(RSocket requester, EventLoop requesterLoop, PerfResponder responder, IntFunction<ByteBuf> messages,
            IntFunction<Windows> windows) {
        this.requester = requester;
        this.requesterLoop = requesterLoop;
        this.responder = responder;
        this.messages = messages;
        this.windows = windows;
    }

    // ---- fire-and-forget ----

    /** Fire-and-forget to the counting responder: warm-up, then the measured phase. */
    Measured fireAndForget(int size, Budget warmup, Budget budget, AtomicLong progress, Runnable measuring)
            throws Exception {
        int window = windows.apply(size).fireAndForget();
        Arrivals arrivals = new Arrivals();
        responder.countFireAndForget(arrivals);
        long sent = 0;
        if (!warmup.isEmpty()) {
            sent += new FireAndForgetPump(arrivals, size, window, warmup, sent, null).pump();
            arrivals.await(sent).get(warmup.timeoutSeconds(), TimeUnit.SECONDS);
        }
        measuring.run();
        long start = System.nanoTime();
        long n = new FireAndForgetPump(arrivals, size, window, budget, sent, progress).pump();
        arrivals.await(sent + n).get(budget.timeoutSeconds(), TimeUnit.SECONDS);
        return new Measured(n, System.nanoTime() - start);
    }

    /**
     * One fire-and-forget at a time: from the call to the responder counting it, {@code warmup} times, then as many
     * as {@code rtts} holds, recorded there (sorted).
     */
    void fireAndForgetLatency(int size, int warmup, long[] rtts) throws Exception {
        Arrivals arrivals = new Arrivals();
        responder.countFireAndForget(arrivals);
        long[] sent = {0};
        IntFunction<Publisher<Boolean>> call = n -> {
            CompletableFuture<Void> counted = arrivals.await(++sent[0]);
            return requester.fireAndForget(ByteBufPayload.create(messages.apply(n)))
                    .then(Mono.fromFuture(counted)).thenReturn(Boolean.TRUE);
        };
        RequestLoop.roundTrips(call, size, warmup, rtts);
    }

    /**
     * Fires messages from the requester's event loop, in batches so that the loop does its I/O in between,
     * pausing while {@code window} are uncounted; the responder's count resumes it.
     */
    private final class FireAndForgetPump implements Runnable {
        private final Arrivals arrivals;
        private final int size;
        private final int window;
        private final Budget budget;
        private final long base;
        private final AtomicLong progress;
        private final CompletableFuture<Long> done = new CompletableFuture<>();
        private final AtomicBoolean parked = new AtomicBoolean();
        private volatile long resumeAt;
        private long deadline;
        private long sent;

        FireAndForgetPump(Arrivals arrivals, int size, int window, Budget budget, long base, AtomicLong progress) {
            this.arrivals = arrivals;
            this.size = size;
            this.window = window;
            this.budget = budget;
            this.base = base;
            this.progress = progress;
        }

        /** Runs the phase; returns how many were sent. */
        long pump() throws Exception {
            deadline = budget.deadline(System.nanoTime());
            arrivals.listener = this::counted;
            requesterLoop.execute(this);
            try {
                return done.get(budget.timeoutSeconds(), TimeUnit.SECONDS);
            } finally {
                arrivals.listener = null;
            }
        }

        @Override
        public void run() {
            for (int i = 0; i < 256; i++) {
                if (budget.over(sent, deadline)) {
                    done.complete(sent);
                    return;
                }
                if (base + sent - arrivals.count() >= window) {
                    resumeAt = base + sent - window / 2;
                    parked.set(true);
                    if (arrivals.count() >= resumeAt && parked.compareAndSet(true, false)) {
                        continue; // counted meanwhile
                    }
                    return; // the responder's count resumes the pump
                }
                requester.fireAndForget(ByteBufPayload.create(messages.apply(size))).subscribe(IGNORE);
                sent++;
                if (progress != null) {
                    progress.lazySet(sent);
                }
            }
            requesterLoop.execute(this);
        }

        void counted(long count) {
            if (parked.get() && count >= resumeAt && parked.compareAndSet(true, false)) {
                requesterLoop.execute(this);
            }
        }
    }

    /** A stateless subscriber for fire-and-forget Monos: no subscriber object per message. */
    private static final CoreSubscriber<Void> IGNORE = new CoreSubscriber<>() {
        @Override
        public void onSubscribe(Subscription s) {
            s.request(Long.MAX_VALUE);
        }

        @Override
        public void onNext(Void v) {
        }

        @Override
        public void onError(Throwable t) {
        }

        @Override
        public void onComplete() {
        }
    };

    // ---- request-stream ----

    /** Request-stream with the requester asking in batches: warm-up, then the measured phase. */
    Measured stream(int size, Budget warmup, Budget budget, AtomicLong progress, Runnable measuring)
            throws Exception {
        if (!warmup.isEmpty()) {
            streamPhase(size, warmup, null);
        }
        measuring.run();
        return streamPhase(size, budget, progress);
    }

    private Measured streamPhase(int size, Budget budget, AtomicLong progress) throws Exception {
        Windows w = windows.apply(size);
        CompletableFuture<Measured> done = new CompletableFuture<>();
        long start = System.nanoTime();
        long deadline = budget.deadline(start);
        requester.requestStream(streamRequest(size)).subscribe(new BaseSubscriber<Payload>() {
            private long count;
            private int consumed;

            @Override
            protected void hookOnSubscribe(Subscription s) {
                s.request(w.streamDemand());
            }

            @Override
            protected void hookOnNext(Payload p) {
                p.release();
                long c = ++count;
                if (progress != null) {
                    progress.lazySet(c);
                }
                if (budget.over(c, deadline)) {
                    cancel();
                    done.complete(new Measured(c, System.nanoTime() - start));
                } else if (++consumed == w.streamBatch()) {
                    consumed = 0;
                    request(w.streamBatch());
                }
            }

            @Override
            protected void hookOnError(Throwable t) {
                done.completeExceptionally(t);
            }
        });
        return done.get(budget.timeoutSeconds(), TimeUnit.SECONDS);
    }

    /**
     * One stream payload at a time on one stream: from asking for one more (the first: the REQUEST_STREAM asking
     * for one) to receiving it, {@code warmup} times, then as many as {@code rtts} holds, recorded there (sorted).
     */
    void streamLatency(int size, int warmup, long[] rtts) throws Exception {
        CompletableFuture<Void> done = new CompletableFuture<>();
        long total = warmup + (long) rtts.length;
        requester.requestStream(streamRequest(size)).subscribe(new BaseSubscriber<Payload>() {
            private long received;
            private long askedAt;

            @Override
            protected void hookOnSubscribe(Subscription s) {
                askedAt = System.nanoTime();
                s.request(1);
            }

            @Override
            protected void hookOnNext(Payload p) {
                long now = System.nanoTime();
                p.release();
                if (received >= warmup) {
                    rtts[(int) (received - warmup)] = now - askedAt;
                }
                if (++received == total) {
                    cancel();
                    done.complete(null);
                } else {
                    askedAt = System.nanoTime();
                    request(1);
                }
            }

            @Override
            protected void hookOnError(Throwable t) {
                done.completeExceptionally(t);
            }
        });
        done.get(Budget.of(total).timeoutSeconds(), TimeUnit.SECONDS);
        Arrays.sort(rtts);
    }

    /** What asks the responder for a stream of {@code size}-octet payloads: the size, 4 octets. */
    private static Payload streamRequest(int size) {
        return ByteBufPayload.create(PooledByteBufAllocator.DEFAULT.buffer(4).writeInt(size));
    }

    // ---- request-response ----

    /** Request-response, {@link Windows#requests} outstanding: warm-up, then the measured phase. */
    Measured requestResponse(int size, Budget warmup, Budget budget, AtomicLong progress, Runnable measuring)
            throws Exception {
        return RequestLoop.requests(this::request, size, windows.apply(size).requests(), warmup, budget, progress,
                measuring);
    }

    /** Round trips of one request at a time; fills {@code rtts} (sorted). */
    void requestResponseLatency(int size, int warmup, long[] rtts) throws Exception {
        RequestLoop.roundTrips(this::request, size, warmup, rtts);
    }

    private Mono<Payload> request(int size) {
        return requester.requestResponse(ByteBufPayload.create(messages.apply(size)));
    }
}
