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
    /**
     * Messages waiting for demand, in order: a {@code ByteBuf}, or a {@link Held} for a LARGE message (whose buffer
     * comes once it has been read). A plain message waits as itself, so holding one allocates nothing.
     */
    private final ArrayDeque<Object> held = new ArrayDeque<>();
    /**
     * For each of {@link #held}, whether delivering it frees a receive buffer: a message of a BATCH other than its
     * first does not (the first paid for it). Boolean's two constants: no allocation.
     */
    private final ArrayDeque<Boolean> freesBuffer = new ArrayDeque<>();
    private final DemandStream<ByteBuf> stream;

    /** A LARGE message's place in the stream: {@code message} is null while it is still being read. */
    private final class Held implements LargeMessages.Arrival {
        ByteBuf message;

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
            held.add(message);
            this.freesBuffer.add(freesBuffer);
        }
    }

    /** A LARGE message was announced: its place in the stream, filled once it has been read. */
    LargeMessages.Arrival place() {
        Held h = new Held();
        held.add(h);
        freesBuffer.add(Boolean.TRUE);
        return h;
    }

    private void drain() {
        Object head;
        while ((head = held.peek()) != null && stream.wants()) {
            ByteBuf message = head instanceof Held h ? h.message : (ByteBuf) head;
            if (message == null) {
                return; // still being read: what came after it waits
            }
            held.poll();
            stream.emit(message, freesBuffer.poll());
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
        for (Object o : held) {
            ByteBuf message = o instanceof Held h ? h.message : (ByteBuf) o;
            if (message != null) {
                message.release();
            }
        }
        held.clear();
        freesBuffer.clear();
        stream.end(cause);
    }
}
