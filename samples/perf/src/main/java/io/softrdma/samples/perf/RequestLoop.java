package io.softrdma.samples.perf;

import io.netty.util.ReferenceCountUtil;
import java.util.Arrays;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.IntFunction;
import org.reactivestreams.Publisher;
import org.reactivestreams.Subscription;
import reactor.core.publisher.BaseSubscriber;
import reactor.core.publisher.Flux;

/**
 * Requests with a window outstanding, the same loop for every stack whose calls return a Publisher (the reactive
 * API's requests and atomics, RSocket's request-response, a fire-and-forget awaited at the responder): for rate,
 * a window of many, and for latency, one at a time with each round trip recorded.
 *
 * <p>Thread safety: each phase runs on the threads its calls complete on; the caller waits for it to end.
 */
final class RequestLoop {
    private static final Object TOKEN = Boolean.TRUE;

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
     */
    static <T> long requestPhase(IntFunction<Publisher<T>> call, int size, Budget budget, int window,
            AtomicLong progress, long[] rtts) throws Exception {
        long deadline = budget.deadline(System.nanoTime());
        long[] issued = new long[1];
        AtomicLong startedAt = new AtomicLong();
        CompletableFuture<Long> done = new CompletableFuture<>();
        Flux.generate(sink -> {
            if (budget.timed() ? System.nanoTime() - deadline >= 0 : issued[0] >= budget.iterations()) {
                sink.complete();
                return;
            }
            issued[0]++;
            if (rtts != null) {
                startedAt.lazySet(System.nanoTime());
            }
            sink.next(TOKEN);
        }).flatMap(t -> call.apply(size), window, 1).subscribe(new BaseSubscriber<T>() {
            private long answered;

            @Override
            protected void hookOnSubscribe(Subscription s) {
                s.request(Long.MAX_VALUE);
            }

            @Override
            protected void hookOnNext(T response) {
                if (rtts != null) {
                    rtts[(int) answered] = System.nanoTime() - startedAt.get();
                }
                ReferenceCountUtil.release(response);
                answered++;
                if (progress != null) {
                    progress.lazySet(answered);
                }
            }

            @Override
            protected void hookOnComplete() {
                done.complete(answered);
            }

            @Override
            protected void hookOnError(Throwable t) {
                done.completeExceptionally(t);
            }
        });
        return done.get(budget.timeoutSeconds(), TimeUnit.SECONDS);
    }
}
