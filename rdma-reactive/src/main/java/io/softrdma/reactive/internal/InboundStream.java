package io.softrdma.reactive.internal;

import io.netty.buffer.ByteBuf;
import io.netty.channel.EventLoop;
import io.softrdma.reactive.internal.protocol.CreditWindow;
import java.util.ArrayDeque;
import reactor.core.publisher.Flux;

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
    private final DemandStream<ByteBuf> stream;

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
        this.stream = new DemandStream<>("receive()", engine, loop, window, this::drain);
    }

    /** The received DATA messages, one subscriber at a time; demand posts receive buffers. Any thread. */
    Flux<ByteBuf> receive() {
        return stream.flux();
    }

    /**
     * A message arrived; {@code freesBuffer} false for the messages of a BATCH after its first. Delivered at once if
     * wanted and nothing waits ahead of it.
     */
    void arrived(ByteBuf message, boolean freesBuffer) {
        if (held.isEmpty() && stream.wants()) {
            stream.emit(message, freesBuffer);
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
        while ((head = held.peek()) != null && stream.wants()) {
            if (head.message == null) {
                return; // still being read: what came after it waits
            }
            held.poll();
            stream.emit(head.message, head.freesBuffer);
        }
    }

    /** Messages received and not yet taken. Any thread (a racy snapshot). */
    int buffered() {
        return held.size();
    }

    long demand() {
        return stream.demand();
    }

    /** The session ended: held messages are released and the subscriber hears why. */
    void end(Throwable cause) {
        for (Held h : held) {
            if (h.message != null) {
                h.message.release();
            }
        }
        held.clear();
        stream.end(cause);
    }
}
