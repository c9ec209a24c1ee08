package io.softrdma.samples.perf;

import io.netty.util.ReferenceCountUtil;
import java.util.Arrays;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.IntFunction;
import org.reactivestreams.Publisher;
import org.reactivestreams.Subscription;
import reactor.core.CoreSubscriber;

/**
 * Requests with a window outstanding, the same loop for every stack whose calls return a Publisher (the reactive
 * API's requests and atomics, RSocket's request-response, a fire-and-forget awaited at the responder): for rate,
 * a window of many, and for latency, one at a time with each round trip recorded.
 *
 * <p>Thread safety: each phase runs on the threads its calls complete on; the caller waits for it to end.
 */
final class RequestLoop {
    private RequestLoop() {
    }

    /** A warm-up, then the measured phase, {@code window} outstanding. */
    static <T> Measured requests(IntFunction<Publisher<T>> call, int size, int window, Budget warmup, Budget budget,
            AtomicLong progress, Runnable measuring) throws Exception {
        if (!warmup.isEmpty()) {
            requestPhase(call, size, warmup, window, null, null);
        }
        measuring.run();
        long start = System.nanoTime();
        long n = requestPhase(call, size, budget, window, progress, null);
        return new Measured(n, System.nanoTime() - start);
    }

    /** {@code warmup} round trips one at a time, then as many as {@code rtts} holds, recorded there (sorted). */
    static <T> void roundTrips(IntFunction<Publisher<T>> call, int size, int warmup, long[] rtts) throws Exception {
        requestPhase(call, size, Budget.of(warmup), 1, null, null);
        requestPhase(call, size, Budget.of(rtts.length), 1, null, rtts);
        Arrays.sort(rtts);
    }

    /**
     * Requests until the budget is spent, {@code window} outstanding; returns how many were answered (and
     * releases what they answered, when reference-counted). With {@code rtts} (and a window of one), records
     * each round trip.
     *
     * <p>The window is kept by subscribing the next request when one completes, not by {@code flatMap}: with 128
     * inner subscribers, flatMap's drain loop scans them all for every answer, which cost a sixth of the client's
     * CPU (async-profiler, issue 18) — the same for every stack measured, diluting their difference.
     */
    static <T> long requestPhase(IntFunction<Publisher<T>> call, int size, Budget budget, int window,
            AtomicLong progress, long[] rtts) throws Exception {
        return startRequestPhase(call, size, budget, window, progress, rtts).get(budget.timeoutSeconds(),
                TimeUnit.SECONDS);
    }

    /**
     * As {@link #requestPhase}, without waiting once the first window is issued: completes with how many were
     * answered ({@link ConnectionScale} runs one on each of many sessions at once).
     */
    static <T> CompletableFuture<Long> startRequestPhase(IntFunction<Publisher<T>> call, int size, Budget budget,
            int window, AtomicLong progress, long[] rtts) {
        Window<T> w = new Window<>(call, size, budget, window, progress, rtts);
        w.start();
        return w.done;
    }

    /** At most {@code window} requests outstanding; each answered one makes room for the next. */
    private static final class Window<T> {
        private final IntFunction<Publisher<T>> call;
        private final int size;
        private final Budget budget;
        private final int window;
        private final AtomicLong progress;
        private final long[] rtts;
        private final long deadline;
        private final AtomicLong issued = new AtomicLong();
        private final AtomicLong answered = new AtomicLong();
        private final AtomicLong outstanding = new AtomicLong();
        private volatile boolean exhausted;
        final CompletableFuture<Long> done = new CompletableFuture<>();

        Window(IntFunction<Publisher<T>> call, int size, Budget budget, int window, AtomicLong progress,
                long[] rtts) {
            this.call = call;
            this.size = size;
            this.budget = budget;
            this.window = window;
            this.progress = progress;
            this.rtts = rtts;
            this.deadline = budget.deadline(System.nanoTime());
        }

        void start() {
            for (int i = 0; i < window && issueNext(); i++) {
                // fill the window
            }
            finishIfIdle();
        }

        /** Issues one more request unless the budget is spent; false when it is. */
        private boolean issueNext() {
            if (exhausted || done.isDone()) {
                return false;
            }
            // The first window is issued by the caller while answers already arrive on an event loop.
            if (budget.over(issued.getAndIncrement(), deadline)) {
                exhausted = true;
                return false;
            }
            outstanding.incrementAndGet();
            call.apply(size).subscribe(new Request(rtts != null ? System.nanoTime() : 0));
            return true;
        }

        private void finishIfIdle() {
            if (exhausted && outstanding.get() == 0) {
                done.complete(answered.get());
            }
        }

        /** One request: its answer is counted (and released) and makes room for the next. */
        private final class Request implements CoreSubscriber<T> {
            private final long startedAt;

            Request(long startedAt) {
                this.startedAt = startedAt;
            }

            @Override
            public void onSubscribe(Subscription s) {
                s.request(Long.MAX_VALUE);
            }

            @Override
            public void onNext(T response) {
                ReferenceCountUtil.release(response);
            }

            @Override
            public void onError(Throwable t) {
                done.completeExceptionally(t);
            }

            @Override
            public void onComplete() {
                long n = answered.incrementAndGet();
                if (rtts != null) {
                    rtts[(int) n - 1] = System.nanoTime() - startedAt;
                }
                if (progress != null) {
                    progress.lazySet(n);
                }
                outstanding.decrementAndGet();
                if (!issueNext()) {
                    finishIfIdle();
                }
            }
        }
    }
}
