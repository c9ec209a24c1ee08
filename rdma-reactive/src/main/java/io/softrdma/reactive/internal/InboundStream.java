package io.softrdma.reactive.internal;

import io.netty.buffer.ByteBuf;
import io.netty.channel.EventLoop;
import io.softrdma.reactive.internal.protocol.CreditWindow;
import java.util.ArrayDeque;
import reactor.core.publisher.Flux;
import reactor.core.publisher.FluxSink;

/**
 * The peer's stream of DATA messages, as {@code receive()} emits them: in the order of their Sends, one subscriber
 * at a time, and only on demand. Demand is what grants credit ({@link CreditWindow#demand}); messages that arrive
 * beyond it (the window's reserve) wait here, as does everything behind a LARGE message still being RDMA-Read, so
 * nothing overtakes it.
 *
 * <p>Thread safety: the event loop only, but for {@link #receive()}.
 */
final class InboundStream {
    private final MessagingEngine engine;
    private final EventLoop loop;
    private final CreditWindow window;
    private final ArrayDeque<Held> held = new ArrayDeque<>();
    private FluxSink<ByteBuf> receiver;
    private long demand;

    /**
     * A message waiting for demand. {@code message} is null while a LARGE message is still being read; a message of
     * a BATCH other than its first does not free a receive buffer when delivered (the first paid for it).
     */
    private final class Held implements LargeMessages.Arrival {
        ByteBuf message;
        final boolean freesBuffer;

        Held(ByteBuf message, boolean freesBuffer) {
            this.message = message;
            this.freesBuffer = freesBuffer;
        }

        @Override
        public void arrived(ByteBuf m) {
            message = m;
            drain();
        }
    }

    InboundStream(MessagingEngine engine, EventLoop loop, CreditWindow window) {
        this.engine = engine;
        this.loop = loop;
        this.window = window;
    }

    /** The received DATA messages, one subscriber at a time; demand posts receive buffers. Any thread. */
    Flux<ByteBuf> receive() {
        return Flux.create(sink -> loop.execute(() -> {
            if (live()) {
                sink.error(new IllegalStateException("receive() has a subscriber already"));
                return;
            }
            if (engine.ended()) {
                sink.error(engine.endCause());
                return;
            }
            receiver = sink;
            demand = 0; // a new subscriber starts with its own demand, not what the last one left
            sink.onRequest(n -> loop.execute(() -> {
                if (receiver != sink) {
                    return;
                }
                long before = demand;
                demand = before + n < 0 ? Long.MAX_VALUE : before + n;
                window.demand(n);
                drain();
                engine.postReceives();
                engine.transmitter().maybeUpdateCredits();
            }));
            sink.onDispose(() -> loop.execute(() -> {
                if (receiver == sink) {
                    receiver = null;
                }
            }));
        }), FluxSink.OverflowStrategy.ERROR);
    }

    /**
     * A message arrived; {@code freesBuffer} false for the messages of a BATCH after its first. Delivered at once if
     * wanted and nothing waits ahead of it.
     */
    void arrived(ByteBuf message, boolean freesBuffer) {
        if (live() && demand > 0 && held.isEmpty()) {
            deliver(message, freesBuffer);
        } else {
            held.add(new Held(message, freesBuffer));
        }
    }

    /** A LARGE message was announced: its place in the stream, filled once it has been read. */
    LargeMessages.Arrival place() {
        Held h = new Held(null, true);
        held.add(h);
        return h;
    }

    private void drain() {
        Held head;
        while (demand > 0 && live() && (head = held.peek()) != null) {
            if (head.message == null) {
                return; // still being read: what came after it waits
            }
            held.poll();
            deliver(head.message, head.freesBuffer);
        }
    }

    /**
     * Whether a subscriber still takes messages. One that cancelled (a {@code take}, a {@code timeout}) is forgotten at
     * once, with what it had asked for: its onDispose is on its way, and a message emitted to it meanwhile would be
     * lost. What arrives now waits for the next subscriber.
     */
    private boolean live() {
        if (receiver != null && receiver.isCancelled()) {
            receiver = null;
            demand = 0;
        }
        return receiver != null;
    }

    private void deliver(ByteBuf message, boolean freesBuffer) {
        if (demand != Long.MAX_VALUE) {
            demand--;
        }
        window.delivered(freesBuffer);
        receiver.next(message);
    }

    /** Messages received and not yet taken. Any thread (a racy snapshot). */
    int buffered() {
        return held.size();
    }

    long demand() {
        return demand;
    }

    /** The session ended: held messages are released and the subscriber hears why. */
    void end(Throwable cause) {
        for (Held h : held) {
            if (h.message != null) {
                h.message.release();
            }
        }
        held.clear();
        if (receiver != null) {
            receiver.error(cause);
            receiver = null;
        }
    }
}
