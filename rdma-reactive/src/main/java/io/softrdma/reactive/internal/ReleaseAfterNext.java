package io.softrdma.reactive.internal;

import io.netty.util.ReferenceCountUtil;
import io.netty.util.ReferenceCounted;
import org.reactivestreams.Subscription;
import reactor.core.CoreSubscriber;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Operators;
import reactor.util.context.Context;

/**
 * The library owns what it emits, as Reactor Netty does: each reference-counted element is released once the
 * subscriber's {@code onNext} returns, and whatever the operators above this one discard (a message emitted as the
 * subscriber cancels, a Read result that completes after a {@code timeout} fired) is released through the discard
 * hook this subscriber puts in its context. A subscriber that wants to keep an element past {@code onNext} retains
 * it there ({@code .map(ByteBuf::retain)}): that is the explicit zero-copy opt-in, and the element is then its own.
 *
 * <p>An element the subscriber already released in {@code onNext} (the old habit) is left alone rather than released
 * twice: it was valid for as long as it was used.
 *
 * <p>Thread safety: a Reactive Streams subscriber; signals arrive serially.
 *
 * @param <T> the element type (its reference-counted elements are released)
 */
public final class ReleaseAfterNext<T> implements CoreSubscriber<T>, Subscription {
    private final CoreSubscriber<? super T> actual;
    private final Context context;
    private Subscription upstream;

    private ReleaseAfterNext(CoreSubscriber<? super T> actual) {
        this.actual = actual;
        this.context = Operators.enableOnDiscard(actual.currentContext(), ReleaseAfterNext::discard);
    }

    /**
     * {@code source} with its elements released after {@code onNext} and its discarded elements released.
     *
     * @param source a publisher of reference-counted elements that it hands over
     * @param <T> the element type
     * @return the same elements, owned by the library
     */
    public static <T> Flux<T> flux(Flux<T> source) {
        return source.transform(Operators.<T, T>lift((scannable, subscriber) -> new ReleaseAfterNext<>(subscriber)));
    }

    /**
     * {@code source}'s element released after {@code onNext}, or released if discarded.
     *
     * @param source a publisher of a reference-counted element that it hands over
     * @param <T> the element type
     * @return the same element, owned by the library
     */
    public static <T> Mono<T> mono(Mono<T> source) {
        return source.transform(Operators.<T, T>lift((scannable, subscriber) -> new ReleaseAfterNext<>(subscriber)));
    }

    /** Releases a discarded element; one released already is left alone. */
    public static void discard(Object element) {
        if (element instanceof ReferenceCounted counted && counted.refCnt() > 0) {
            ReferenceCountUtil.safeRelease(counted);
        }
    }

    @Override
    public Context currentContext() {
        return context;
    }

    @Override
    public void onSubscribe(Subscription s) {
        if (Operators.validate(upstream, s)) {
            upstream = s;
            actual.onSubscribe(this);
        }
    }

    @Override
    public void onNext(T element) {
        try {
            actual.onNext(element);
        } finally {
            discard(element);
        }
    }

    @Override
    public void onError(Throwable t) {
        actual.onError(t);
    }

    @Override
    public void onComplete() {
        actual.onComplete();
    }

    @Override
    public void request(long n) {
        upstream.request(n);
    }

    @Override
    public void cancel() {
        upstream.cancel();
    }
}
