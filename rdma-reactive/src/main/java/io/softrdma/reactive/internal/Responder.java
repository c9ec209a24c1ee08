package io.softrdma.reactive.internal;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.EventLoop;
import io.softrdma.reactive.internal.protocol.CreditWindow;
import io.softrdma.reactive.internal.protocol.MessageType;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.Objects;
import java.util.Set;
import java.util.function.Function;
import org.reactivestreams.Publisher;
import reactor.core.publisher.BaseSubscriber;
import reactor.core.publisher.Mono;
import reactor.core.publisher.SignalType;

/**
 * Request/response correlation, the responder's side (docs/protocol.md): each REQUEST runs the application's handler,
 * at most {@code concurrency} at a time (that many receive buffers are posted for requests), and its answer goes back
 * with the request's correlation id. The credit reserve lets the peer run a request or two ahead of the handler's
 * concurrency: those wait here, in order.
 *
 * <p>Buffers: the request is the library's; it is released once the handler's publisher terminates or is cancelled
 * (a handler keeps it longer by retaining it). The response the handler emits is handed to the library, which
 * releases it once sent; a handler that answers with the request itself, as an echo does, gets it retained for that,
 * since the request is released too. A handler that completes empty answers with an empty response, so the requester
 * never waits for nothing; one that throws or fails answers with an ERROR the requester sees as
 * {@code RdmaRemoteException}. Either way its concurrency slot is free again.
 *
 * <p>Thread safety: the event loop only, but for {@link #respond}.
 */
final class Responder {
    private final MessagingEngine engine;
    private final EventLoop loop;
    private final CreditWindow window;
    private final long maxMessageSize;
    private final ArrayDeque<HeldRequest> held = new ArrayDeque<>();
    /** Handlers running now: a session that ends cancels them, which releases their requests. */
    private final Set<HandlerRun> running = Collections.newSetFromMap(new IdentityHashMap<>());
    private Function<ByteBuf, ? extends Publisher<ByteBuf>> handler;
    private int concurrency;

    /** A request waiting for the handler's concurrency. */
    private record HeldRequest(ByteBuf message, int correlationId) {
    }

    Responder(MessagingEngine engine, EventLoop loop, CreditWindow window, long maxMessageSize) {
        this.engine = engine;
        this.loop = loop;
        this.window = window;
        this.maxMessageSize = maxMessageSize;
    }

    /** Answers each request with what {@code handler} returns; {@code concurrency} at a time. Any thread. */
    void respond(Function<ByteBuf, ? extends Publisher<ByteBuf>> handler, int concurrency) {
        loop.execute(() -> {
            this.handler = handler;
            this.concurrency = concurrency;
            window.demand(concurrency);
            drain();
            engine.postReceives();
            engine.transmitter().maybeUpdateCredits();
        });
    }

    /** A request arrived. */
    void arrived(ByteBuf message, int correlationId) {
        if (held.isEmpty() && handler != null && running.size() < concurrency) {
            run(message, correlationId); // nothing waits before it: no need to hold it
        } else {
            held.add(new HeldRequest(message, correlationId));
            drain();
        }
    }

    private void drain() {
        while (handler != null && running.size() < concurrency && !held.isEmpty()) {
            HeldRequest next = held.poll();
            run(next.message(), next.correlationId());
        }
    }

    private void run(ByteBuf message, int correlationId) {
        window.delivered();
        Publisher<ByteBuf> response;
        try {
            response = Objects.requireNonNull(handler.apply(message),
                    "the respond() handler returned null instead of a Publisher");
        } catch (Throwable t) {
            response = Mono.error(t);
        }
        HandlerRun run = new HandlerRun(correlationId, message);
        running.add(run);
        Mono.from(response).subscribe(run);
    }

    /**
     * One handler's run, from the request to its answer; cancelled if the session ends first. It is its own task for
     * the hop back to the event loop, and releases the request itself: one object per request on this path.
     */
    private final class HandlerRun extends BaseSubscriber<ByteBuf> implements Runnable {
        private final int id;
        private final ByteBuf request;
        private boolean answered;
        private MessageType type;
        private ByteBuf payload;

        HandlerRun(int id, ByteBuf request) {
            this.id = id;
            this.request = request;
        }

        /** What the handler's publisher discards or drops (e.g. when the session ends) is released. */
        @Override
        public reactor.util.context.Context currentContext() {
            return ReleaseAfterNext.releasingContext();
        }

        @Override
        protected void hookOnNext(ByteBuf value) {
            if (value == request) {
                if (value.refCnt() == 1) {
                    value.retain(); // the echo: one reference for the response, one for the request's release
                }
            } else if (value.unwrap() == request) {
                // A slice or duplicate of the request shares its receive buffer, which goes back (and may hold the
                // next message) once the request is released below: the answer takes a copy now, while it is valid.
                ByteBuf copy = value.copy();
                if (request.refCnt() > 1) {
                    // A retained slice brought its own reference. A plain one shares the request's single reference,
                    // which hookFinally releases: releasing it here too would return the slot early, and the release
                    // below would then hit the slot's next message (one view per slot, reused).
                    value.release();
                }
                value = copy;
            }
            settle(MessageType.RESPONSE, value);
        }

        @Override
        protected void hookOnComplete() {
            settle(MessageType.RESPONSE, Unpooled.EMPTY_BUFFER);
        }

        @Override
        protected void hookOnError(Throwable error) {
            settle(MessageType.ERROR, Unpooled.copiedBuffer(String.valueOf(error.getMessage()),
                    StandardCharsets.UTF_8));
        }

        @Override
        protected void hookFinally(SignalType signal) {
            ReleaseAfterNext.discard(request);
        }

        /** The first answer goes to the loop (never answered from inside the handler's call stack). */
        private void settle(MessageType type, ByteBuf payload) {
            if (answered) {
                payload.release();
                return;
            }
            answered = true;
            this.type = type;
            this.payload = payload;
            loop.execute(this);
        }

        @Override
        public void run() {
            if (running.remove(this)) {
                answer(type, id, payload);
            } else {
                payload.release(); // the session ended meanwhile
            }
        }
    }

    private void answer(MessageType type, int id, ByteBuf payload) {
        if (engine.ended()) {
            payload.release();
            return;
        }
        if (payload.readableBytes() > maxMessageSize) {
            payload.release();
            type = MessageType.ERROR;
            payload = Unpooled.copiedBuffer("the response exceeds the largest message of " + maxMessageSize
                    + " octets (maxMessageSize)", StandardCharsets.UTF_8);
        }
        // One more request may come in now.
        window.demand(1);
        drain();
        engine.postReceives();
        engine.transmitter().enqueue(engine.message(type, id, payload, Outgoing.NOTHING));
    }

    int waiting() {
        return held.size();
    }

    /** The session ended: waiting requests are released, running handlers cancelled (which releases theirs). */
    void end() {
        held.forEach(r -> r.message().release());
        held.clear();
        for (HandlerRun run : new ArrayList<>(running)) {
            run.dispose();
        }
        running.clear();
    }
}
