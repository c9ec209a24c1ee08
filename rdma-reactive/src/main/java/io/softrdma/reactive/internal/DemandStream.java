package io.softrdma.reactive.internal;

import io.netty.channel.EventLoop;
import io.softrdma.reactive.internal.protocol.CreditWindow;
import reactor.core.publisher.Flux;
import reactor.core.publisher.FluxSink;

/**
 * One subscriber at a time, fed on the event loop only as far as it asked: the Reactive Streams end of
 * {@code receive()} and {@code immediates()}. Its demand is credit: each request goes to the
 * {@link CreditWindow} (which posts receive buffers and grants them to the peer), then the owner drains what it
 * holds. A subscriber that cancels is forgotten at once, with the demand it had left — its {@code onDispose} is still
 * on its way, and anything emitted to it meanwhile would be lost; what arrives waits for the next subscriber, who
 * starts with its own demand.
 *
 * <p>Thread safety: the event loop only, but for {@link #flux()}.
 *
 * @param <T> what is emitted
 */
final class DemandStream<T> {
    private final String name;
    private final MessagingEngine engine;
    private final EventLoop loop;
    private final CreditWindow window;
    private final Runnable drain;
    private FluxSink<T> subscriber;
    private long demand;

    /**
     * @param name the method, for the error a second subscriber gets
     * @param drain the owner's: emits what it holds while {@link #wants()} says so
     */
    DemandStream(String name, MessagingEngine engine, EventLoop loop, CreditWindow window, Runnable drain) {
        this.name = name;
        this.engine = engine;
        this.loop = loop;
        this.window = window;
        this.drain = drain;
    }

    /** The stream, subscribed to one subscriber at a time. Any thread. */
    Flux<T> flux() {
        return Flux.create(sink -> loop.execute(() -> {
            if (live()) {
                sink.error(new IllegalStateException(name + " has a subscriber already"));
                return;
            }
            if (engine.ended()) {
                sink.error(engine.endCause());
                return;
            }
            subscriber = sink;
            demand = 0;
            sink.onRequest(n -> loop.execute(() -> {
                if (subscriber != sink) {
                    return;
                }
                demand = demand + n < 0 ? Long.MAX_VALUE : demand + n;
                window.demand(n);
                drain.run();
                engine.postReceives();
                engine.transmitter().maybeUpdateCredits();
            }));
            sink.onDispose(() -> loop.execute(() -> {
                if (subscriber == sink) {
                    subscriber = null;
                }
            }));
        }), FluxSink.OverflowStrategy.ERROR);
    }

    private boolean live() {
        if (subscriber != null && subscriber.isCancelled()) {
            subscriber = null;
            demand = 0;
        }
        return subscriber != null;
    }

    /** Whether a live subscriber asked for one more. */
    boolean wants() {
        return demand > 0 && live();
    }

    /** Emits {@code value}, which {@link #wants()} allowed; {@code freesBuffer} as {@link CreditWindow#delivered}. */
    void emit(T value, boolean freesBuffer) {
        if (demand != Long.MAX_VALUE) {
            demand--;
        }
        window.delivered(freesBuffer);
        subscriber.next(value);
    }

    long demand() {
        return demand;
    }

    /** The session ended: the subscriber, if any, hears why. */
    void end(Throwable cause) {
        if (subscriber != null) {
            subscriber.error(cause);
            subscriber = null;
        }
    }
}
