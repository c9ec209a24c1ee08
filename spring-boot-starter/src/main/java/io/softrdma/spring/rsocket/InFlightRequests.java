package io.softrdma.spring.rsocket;

import io.netty.util.ReferenceCountUtil;
import io.rsocket.Payload;
import io.rsocket.RSocket;
import io.rsocket.exceptions.RejectedException;
import io.rsocket.util.RSocketProxy;
import java.util.concurrent.atomic.AtomicInteger;
import org.reactivestreams.Publisher;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;

/**
 * The requests a server is answering, counted by a responder interceptor, so that a drain can wait for them; once
 * draining, new requests are refused with {@link RejectedException}, whose meaning in RSocket is "not handled, try
 * elsewhere".
 *
 * <p>Thread safety: thread-safe.
 */
final class InFlightRequests {
    private final AtomicInteger count = new AtomicInteger();
    private final Sinks.Empty<Void> idle = Sinks.empty();
    private volatile boolean draining;

    /** Wraps one connection's responder. */
    RSocket wrap(RSocket responder) {
        return new Counting(responder);
    }

    /**
     * From now on refuses new requests.
     *
     * @return the requests in flight now
     */
    int drain() {
        draining = true;
        int n = count.get();
        if (n == 0) {
            idle.tryEmitEmpty();
        }
        return n;
    }

    /** Completes once draining and no request is in flight. */
    Mono<Void> idle() {
        return idle.asMono();
    }

    int count() {
        return count.get();
    }

    /**
     * Counts a request in, unless draining. Counted before the check, so that a drain that found no request in
     * flight is sure to see this one refused: {@link #drain()} sets the flag, then reads the count.
     */
    private boolean begin(Payload payload) {
        count.incrementAndGet();
        if (draining) {
            end();
            if (payload != null) {
                ReferenceCountUtil.safeRelease(payload);
            }
            return false;
        }
        return true;
    }

    private void end() {
        if (count.decrementAndGet() == 0 && draining) {
            // Several threads may see zero; the sink takes the first.
            idle.tryEmitEmpty();
        }
    }

    private static RejectedException rejected() {
        return new RejectedException("the server is shutting down");
    }

    private final class Counting extends RSocketProxy {
        Counting(RSocket source) {
            super(source);
        }

        @Override
        public Mono<Void> fireAndForget(Payload payload) {
            return Mono.defer(() -> begin(payload)
                    ? super.fireAndForget(payload).doFinally(s -> end())
                    : Mono.error(rejected()));
        }

        @Override
        public Mono<Payload> requestResponse(Payload payload) {
            return Mono.defer(() -> begin(payload)
                    ? super.requestResponse(payload).doFinally(s -> end())
                    : Mono.error(rejected()));
        }

        @Override
        public Flux<Payload> requestStream(Payload payload) {
            return Flux.defer(() -> begin(payload)
                    ? super.requestStream(payload).doFinally(s -> end())
                    : Flux.error(rejected()));
        }

        @Override
        public Flux<Payload> requestChannel(Publisher<Payload> payloads) {
            // The first payload is RSocket's to release when the channel is refused (it cancels the inbound side).
            return Flux.defer(() -> begin(null)
                    ? super.requestChannel(payloads).doFinally(s -> end())
                    : Flux.error(rejected()));
        }
    }
}
