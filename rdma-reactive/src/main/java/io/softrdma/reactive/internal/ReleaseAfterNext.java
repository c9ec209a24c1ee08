package io.softrdma.reactive.internal;

import org.reactivestreams.Subscription;
import reactor.core.CoreSubscriber;
import reactor.core.publisher.Flux;
import reactor.core.publisher.FluxOperator;
import reactor.core.publisher.Mono;
import reactor.core.publisher.MonoOperator;
import reactor.core.publisher.Operators;
import io.softrdma.reactive.spi.ReleaseOnDiscard;
import reactor.util.context.Context;

/**
 * The library owns what it emits, as Reactor Netty does: each reference-counted element is released once the
 * subscriber's {@code onNext} returns, and whatever the operators above this one discard (a message emitted as the
 * subscriber cancels, a Read result that completes after a {@code timeout} fired) is released through the discard
 * hook this subscriber puts in its context. A subscriber that wants to keep an element past {@code onNext} retains
 * it there ({@code .map(ByteBuf::retain)}): that is the explicit zero-copy opt-in, and the element is then its own.
 *
 * <p>A subscriber must not release what it did not retain, as in Reactor Netty: the library releases each element
 * once. (An element whose count is already 0 is left alone, but that is no protection: the messages of a BATCH share
 * one count, so a subscriber's own release of one would take another's.)
 *
 * <p>Thread safety: a Reactive Streams subscriber; signals arrive serially.
 *
 * @param <T> the element type (its reference-counted elements are released)
 */
public final class ReleaseAfterNext<T> implements CoreSubscriber<T>, Subscription {
    private final CoreSubscriber<? super T> actual;
    private final Context context;
    private Subscription upstream;

    // Discarding is not enough: Mono.create's sink, when success races cancel, can see the cancel half done and
    // drop the value instead of discarding it (found by BufferOwnershipTest's Read-against-timeout race); the
    // context releases dropped buffers as it does discarded ones (ReleaseOnDiscard).

    /** The context of a subscriber that brings none: built once, since most bring none. */
    private static final Context RELEASING = releasing(Context.empty());

    private ReleaseAfterNext(CoreSubscriber<? super T> actual) {
        this.actual = actual;
        Context c = actual.currentContext();
        this.context = c.isEmpty() ? RELEASING : releasing(c);
    }

    /** A context whose operators release the buffers they discard or drop: for subscribers the library owns. */
    static Context releasingContext() {
        return RELEASING;
    }

    private static Context releasing(Context c) {
        return ReleaseOnDiscard.releasing(c);
    }

    /**
     * {@code source} with its elements released after {@code onNext} and its discarded elements released.
     *
     * @param source a publisher of reference-counted elements that it hands over
     * @param <T> the element type
     * @return the same elements, owned by the library
     */
    public static <T> Flux<T> flux(Flux<T> source) {
        return new ReleasingFlux<>(source);
    }

    /**
     * {@code source}'s element released after {@code onNext}, or released if discarded.
     *
     * @param source a publisher of a reference-counted element that it hands over
     * @param <T> the element type
     * @return the same element, owned by the library
     */
    public static <T> Mono<T> mono(Mono<T> source) {
        return new ReleasingMono<>(source);
    }

    /** One object per call and one subscriber per subscription: this is on every request's path. */
    private static final class ReleasingMono<T> extends MonoOperator<T, T> {
        ReleasingMono(Mono<? extends T> source) {
            super(source);
        }

        @Override
        public void subscribe(CoreSubscriber<? super T> actual) {
            source.subscribe(new ReleaseAfterNext<>(actual));
        }
    }

    private static final class ReleasingFlux<T> extends FluxOperator<T, T> {
        ReleasingFlux(Flux<? extends T> source) {
            super(source);
        }

        @Override
        public void subscribe(CoreSubscriber<? super T> actual) {
            source.subscribe(new ReleaseAfterNext<>(actual));
        }
    }

    /** Releases a discarded element; one released already is left alone. */
    public static void discard(Object element) {
        ReleaseOnDiscard.release(element);
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
