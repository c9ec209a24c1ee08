package io.softrdma.rsocket;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import org.reactivestreams.Subscription;
import reactor.core.CoreSubscriber;
import reactor.core.publisher.Flux;
import reactor.core.publisher.FluxOperator;
import reactor.core.publisher.Operators;
import reactor.util.context.Context;

/**
 * The peer's frames as RSocket gets them: each in memory of its own, released once RSocket's {@code onNext} returns,
 * as Reactor Netty hands over its frames.
 *
 * <p>Why inline frames are copied: SoftRDMA hands a message that came in a Send over as a view of the registered
 * receive buffer it landed in. Retained, the view keeps that buffer — and the credit it stands for — out of use until
 * released, and its memory goes back to the pool when the session ends, retained or not. RSocket retains what it keeps
 * (its zero-copy payload decoder a slice of every payload, its resume store every frame), and an application keeps
 * payloads as long as it likes: a subscriber holding more payloads than there are receive buffers (128 by default)
 * would stall its own stream for good, and a payload held past the connection's end would read memory the pool has
 * given to someone else. So a frame that may have come inline (no larger than the receive inline threshold) is copied
 * once into a buffer of the connection's allocator, and the receive buffer goes back as soon as it is copied. A larger
 * frame came by RDMA Read into memory allocated for it alone, freed only when its last holder releases it: it is
 * handed on as it is.
 *
 * <p>Thread safety: a Reactive Streams operator; signals arrive serially.
 */
final class InboundFrames extends FluxOperator<ByteBuf, ByteBuf> {
    private final ByteBufAllocator alloc;
    private final int inlineThreshold;

    /**
     * @param source the session's messages, each valid while its {@code onNext} runs
     * @param alloc where copies are allocated
     * @param inlineThreshold the largest Send this side receives: frames up to this size are copied
     */
    InboundFrames(Flux<ByteBuf> source, ByteBufAllocator alloc, int inlineThreshold) {
        super(source);
        this.alloc = alloc;
        this.inlineThreshold = inlineThreshold;
    }

    @Override
    public void subscribe(CoreSubscriber<? super ByteBuf> actual) {
        source.subscribe(new Copier(actual, alloc, inlineThreshold));
    }

    private static final class Copier implements CoreSubscriber<ByteBuf>, Subscription {
        private final CoreSubscriber<? super ByteBuf> actual;
        private final ByteBufAllocator alloc;
        private final int inlineThreshold;
        private Subscription upstream;

        Copier(CoreSubscriber<? super ByteBuf> actual, ByteBufAllocator alloc, int inlineThreshold) {
            this.actual = actual;
            this.alloc = alloc;
            this.inlineThreshold = inlineThreshold;
        }

        @Override
        public Context currentContext() {
            return actual.currentContext();
        }

        @Override
        public void onSubscribe(Subscription s) {
            if (Operators.validate(upstream, s)) {
                upstream = s;
                actual.onSubscribe(this);
            }
        }

        @Override
        public void onNext(ByteBuf frame) {
            int n = frame.readableBytes();
            if (n > inlineThreshold) {
                actual.onNext(frame); // released by the session once this returns
                return;
            }
            ByteBuf copy = alloc.ioBuffer(n, n).writeBytes(frame, frame.readerIndex(), n);
            try {
                actual.onNext(copy);
            } finally {
                copy.release();
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
}
