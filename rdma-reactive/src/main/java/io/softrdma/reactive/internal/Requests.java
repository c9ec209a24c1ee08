package io.softrdma.reactive.internal;

import io.netty.buffer.ByteBuf;
import io.netty.channel.EventLoop;
import io.netty.util.collection.IntObjectHashMap;
import io.softrdma.reactive.RdmaMetricsRecorder;
import io.softrdma.reactive.RdmaRemoteException;
import io.softrdma.reactive.internal.protocol.CreditWindow;
import io.softrdma.reactive.internal.protocol.MessageType;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicIntegerFieldUpdater;
import org.reactivestreams.Subscription;
import reactor.core.CoreSubscriber;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Operators;

/**
 * Request/response correlation, the requester's side (docs/protocol.md): each request gets a correlation id, a
 * receive buffer is posted for its answer (one more unit of demand), and the RESPONSE or ERROR carrying the same id
 * completes it. A cancelled request still takes its answer, and drops it.
 *
 * <p>Thread safety: the event loop only, but for {@link #request}.
 */
final class Requests {
    private final MessagingEngine engine;
    private final EventLoop loop;
    private final CreditWindow window;
    private final long maxMessageSize;
    private final int maxQueued;
    private final IntObjectHashMap<Pending> pending = new IntObjectHashMap<>();
    private int nextCorrelationId = 1;

    /**
     * One request, from subscription to answer: the Mono {@link #request} returns, its subscription, the task that
     * sends it on the event loop, and the owner of its answer, which it releases once the subscriber's {@code onNext}
     * returns (the library's rule, {@link ReleaseAfterNext}) or, if the subscriber cancels first, at once. One object
     * per request where {@code Mono.create} and a releasing subscriber made eight. The request's buffer is handed
     * over once, so the Mono sends it once: a second subscription fails as a released buffer does, even while the first
     * has not sent it yet (it used to send the same buffer twice then).
     *
     * <p>Thread safety: {@link #request} and {@link #cancel} from any thread; the answer from the event loop. The
     * state word orders them: the answer is emitted once both it and a request for it are there, and never after a
     * cancel.
     */
    private static final class Pending extends Mono<ByteBuf> implements Subscription, Runnable {
        private static final int REQUESTED = 1;
        private static final int HAS_VALUE = 2;
        private static final int CANCELLED = 4;
        private static final int DONE = 8;
        private static final int SUBSCRIBED = 16;
        private static final AtomicIntegerFieldUpdater<Pending> STATE =
                AtomicIntegerFieldUpdater.newUpdater(Pending.class, "state");

        private final Requests owner;
        private CoreSubscriber<? super ByteBuf> actual;
        private ByteBuf request;
        private ByteBuf answer;
        private volatile int state;
        long octets;
        long sent;

        Pending(Requests owner, ByteBuf request) {
            this.owner = owner;
            this.request = request;
        }

        @Override
        public void subscribe(CoreSubscriber<? super ByteBuf> actual) {
            if ((STATE.getAndUpdate(this, s -> s | SUBSCRIBED) & SUBSCRIBED) != 0) {
                // its buffer went with the first subscription: the error a released buffer gets
                Operators.error(actual, MessagingEngine.released("request"));
                return;
            }
            this.actual = actual;
            actual.onSubscribe(this);
            if (request.refCnt() == 0) {
                request = null;
                fail(MessagingEngine.released("request"));
            } else if (owner.loop.inEventLoop()) {
                run();
            } else {
                owner.loop.execute(this);
            }
        }

        /** On the event loop: sends the request (a cancelled request still goes, and its answer is dropped). */
        @Override
        public void run() {
            ByteBuf r = request;
            request = null;
            owner.send(r, this);
        }

        boolean isCancelled() {
            return (state & CANCELLED) != 0;
        }

        /** The response: emitted now if it was requested, else when it is; released if cancelled meanwhile. */
        void complete(ByteBuf response) {
            for (;;) {
                int s = state;
                if ((s & (CANCELLED | DONE)) != 0) {
                    response.release();
                    return;
                }
                if ((s & REQUESTED) != 0) {
                    if (STATE.compareAndSet(this, s, s | DONE)) {
                        emit(response);
                        return;
                    }
                } else {
                    answer = response;
                    if (STATE.compareAndSet(this, s, s | HAS_VALUE)) {
                        return;
                    }
                    answer = null;
                }
            }
        }

        void fail(Throwable e) {
            for (;;) {
                int s = state;
                if ((s & (CANCELLED | DONE)) != 0) {
                    return;
                }
                if (STATE.compareAndSet(this, s, s | DONE)) {
                    actual.onError(e);
                    return;
                }
            }
        }

        @Override
        public void request(long n) {
            if (n <= 0) {
                fail(Operators.onOperatorError(new IllegalArgumentException(
                        "§3.9 violated: positive request amount required but it was " + n), actual.currentContext()));
                return;
            }
            for (;;) {
                int s = state;
                if ((s & (REQUESTED | CANCELLED | DONE)) != 0) {
                    return;
                }
                if ((s & HAS_VALUE) != 0) {
                    if (STATE.compareAndSet(this, s, s | REQUESTED | DONE)) {
                        ByteBuf r = answer;
                        answer = null;
                        emit(r);
                        return;
                    }
                } else if (STATE.compareAndSet(this, s, s | REQUESTED)) {
                    return;
                }
            }
        }

        @Override
        public void cancel() {
            for (;;) {
                int s = state;
                if ((s & (CANCELLED | DONE)) != 0) {
                    return;
                }
                if (STATE.compareAndSet(this, s, s | CANCELLED)) {
                    if ((s & HAS_VALUE) != 0) {
                        ByteBuf r = answer;
                        answer = null;
                        r.release();
                    }
                    return;
                }
            }
        }

        private void emit(ByteBuf response) {
            try {
                actual.onNext(response);
            } finally {
                ReleaseAfterNext.discard(response);
            }
            actual.onComplete();
        }
    }

    Requests(MessagingEngine engine, EventLoop loop, CreditWindow window, long maxMessageSize, int maxQueued) {
        this.engine = engine;
        this.loop = loop;
        this.window = window;
        this.maxMessageSize = maxMessageSize;
        this.maxQueued = maxQueued;
    }

    /**
     * Sends {@code request} and completes with the peer's response, which is the library's: valid while {@code
     * onNext} runs, released when it returns (as {@link ReleaseAfterNext} does). Any thread.
     */
    Mono<ByteBuf> request(ByteBuf request) {
        return new Pending(this, request);
    }

    private void send(ByteBuf request, Pending p) {
        if (engine.ended()) {
            request.release();
            p.fail(engine.endCause());
            return;
        }
        if (pending.size() >= maxQueued) {
            request.release();
            p.fail(new IllegalStateException(pending.size() + " requests await their response, the most a"
                    + " session holds (MessagingOptions.maxQueuedOperations): wait for some to be answered"));
            return;
        }
        if (request.readableBytes() > maxMessageSize) {
            request.release();
            p.fail(new IllegalArgumentException("a request of " + request.readableBytes()
                    + " octets exceeds the largest of " + maxMessageSize + " (maxMessageSize)"));
            return;
        }
        int id = nextCorrelationId++;
        if (nextCorrelationId == 0) {
            nextCorrelationId = 1;
        }
        p.octets = request.readableBytes();
        p.sent = timed() ? System.nanoTime() : 0; // the clock costs a call per request: only for a recorder
        pending.put(id, p);
        // The response needs a posted buffer: one more unit of demand.
        window.demand(1);
        engine.postReceives();
        engine.transmitter().enqueue(engine.message(MessageType.REQUEST, id, request, Outgoing.NOTHING));
    }

    /** The answer to request {@code id} arrived: a RESPONSE, or an ERROR whose payload is the reason in UTF-8. */
    void answered(MessageType type, int id, ByteBuf message) {
        Pending p = pending.remove(id);
        window.delivered();
        if (p != null && timed()) {
            engine.recorder().operation(RdmaMetricsRecorder.Operation.REQUEST, p.octets, System.nanoTime() - p.sent,
                    type == MessageType.RESPONSE);
        }
        if (p == null || p.isCancelled()) {
            // Cancelled (or unknown): the answer's buffer goes back, nothing is lost.
            message.release();
        } else if (type == MessageType.RESPONSE) {
            p.complete(message); // released once emitted, or if the subscriber cancels first
        } else {
            String text = message.toString(StandardCharsets.UTF_8);
            message.release();
            p.fail(new RdmaRemoteException(text));
        }
    }

    /** The session ended: every request still waiting fails with {@code cause}. */
    void end(Throwable cause) {
        pending.forEach((id, p) -> {
            if (timed()) {
                engine.recorder().operation(RdmaMetricsRecorder.Operation.REQUEST, 0, System.nanoTime() - p.sent,
                        false);
            }
            p.fail(cause);
        });
        pending.clear();
    }

    private boolean timed() {
        return engine.recorder() != RdmaMetricsRecorder.NONE;
    }

    int waiting() {
        return pending.size();
    }
}
