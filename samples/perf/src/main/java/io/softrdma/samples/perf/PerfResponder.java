package io.softrdma.samples.perf;

import io.netty.buffer.ByteBuf;
import io.rsocket.Payload;
import io.rsocket.RSocket;
import io.rsocket.util.ByteBufPayload;
import java.util.function.IntFunction;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * The RSocket application every RSocket row measures, whatever carries it: fire-and-forget counted and released;
 * a request answered with as many octets as it carried; a request-stream (its data: the payload size, 4 octets)
 * answered with payloads of that size, generated as fast as the requester asks.
 *
 * <p>Buffers: it releases every payload it receives once read; what it answers is a fresh message from
 * {@code messages}, RSocket's to send and release. Thread safety: RSocket calls it from its connection's thread;
 * {@link #countFireAndForget} may be called from any thread between phases.
 */
final class PerfResponder implements RSocket {
    private final IntFunction<ByteBuf> messages;
    /** Where fire-and-forget messages are counted in the current phase. */
    private volatile Arrivals fireAndForgetArrivals = new Arrivals();

    /** @param messages makes a message of the given size, the caller's to release */
    PerfResponder(IntFunction<ByteBuf> messages) {
        this.messages = messages;
    }

    /** Counts the fire-and-forget messages that arrive from now on in {@code arrivals}. */
    void countFireAndForget(Arrivals arrivals) {
        fireAndForgetArrivals = arrivals;
    }

    @Override
    public Mono<Void> fireAndForget(Payload p) {
        p.release();
        fireAndForgetArrivals.arrived();
        return Mono.empty();
    }

    @Override
    public Mono<Payload> requestResponse(Payload p) {
        int n = p.data().readableBytes();
        p.release();
        return Mono.just(ByteBufPayload.create(messages.apply(n)));
    }

    @Override
    public Flux<Payload> requestStream(Payload p) {
        int n = p.data().getInt(p.data().readerIndex());
        p.release();
        return Flux.generate(sink -> sink.next(ByteBufPayload.create(messages.apply(n))));
    }
}
