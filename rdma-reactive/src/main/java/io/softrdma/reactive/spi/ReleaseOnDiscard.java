package io.softrdma.reactive.spi;

import io.netty.util.ReferenceCountUtil;
import io.netty.util.ReferenceCounted;
import java.util.function.Consumer;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Operators;
import reactor.util.context.Context;

/**
 * For a protocol whose Mono hands a reference-counted value over to its subscriber (RPC-over-RDMA's replies): the
 * value the subscriber never got — discarded by an operator, or dropped by {@code Mono.create}'s sink when
 * {@code success} races {@code cancel} (a {@code timeout} firing as the reply lands) — is released rather than
 * leaked. What the subscriber gets is its own, as before.
 *
 * <p>Thread safety: stateless.
 */
public final class ReleaseOnDiscard {
    /** Reactor's per-subscription key for dropped values ({@code Hooks.KEY_ON_NEXT_DROPPED}, package-private). */
    private static final String ON_NEXT_DROPPED = "reactor.onNextDropped.local";
    private static final Consumer<Object> RELEASE = ReleaseOnDiscard::release;

    private ReleaseOnDiscard() {
    }

    /** {@code source}, with the values operators above it discard or drop released. */
    public static <T> Mono<T> mono(Mono<T> source) {
        return source.contextWrite(ReleaseOnDiscard::releasing);
    }

    /** {@code c} with hooks that release what operators discard or drop: for subscribers the library owns. */
    public static Context releasing(Context c) {
        return Operators.enableOnDiscard(c, RELEASE).put(ON_NEXT_DROPPED, RELEASE);
    }

    /** Releases {@code value} if it is reference-counted and not released already. */
    public static void release(Object value) {
        if (value instanceof ReferenceCounted counted && counted.refCnt() > 0) {
            ReferenceCountUtil.safeRelease(counted);
        }
    }
}
