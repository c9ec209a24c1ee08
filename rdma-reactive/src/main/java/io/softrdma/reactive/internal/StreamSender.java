package io.softrdma.reactive.internal;

import io.netty.buffer.ByteBuf;
import io.netty.channel.EventLoop;
import io.softrdma.reactive.internal.protocol.MessageType;
import java.util.Queue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntConsumer;
import org.reactivestreams.Subscription;
import reactor.core.Exceptions;
import reactor.core.publisher.BaseSubscriber;
import reactor.core.publisher.MonoSink;
import reactor.util.concurrent.Queues;
import reactor.util.context.Context;

/**
 * The Reactive Streams side of {@code send(Publisher)}: requests messages only as fast as they leave. It keeps
 * {@code min(sendWindow, sendWindowBytes / average message size)} messages requested and not yet sent, asking again
 * when a quarter of that is free (as Reactor's {@code limitRate} does), and starts with one message, to learn their
 * size. Messages reach the event loop through a bounded single-producer queue (Reactive Streams serialises onNext)
 * drained by one task at a time, so a message costs no task of its own, and order holds whichever thread emits.
 *
 * <p>Buffers: each message is the library's once emitted, released once copied into a send slot (or registered
 * and read, for a LARGE one); whatever an operator above discards is released too.
 *
 * <p>Thread safety: Reactive Streams signals from any thread; the rest on the event loop.
 */
final class StreamSender extends BaseSubscriber<ByteBuf> {
    /** Buffers an operator above discards (e.g. on cancel) were handed to this send: they are released. */
    private static final Context DISCARD_RELEASES = ReleaseAfterNext.releasingContext();

    private final MessagingEngine engine;
    private final EventLoop loop;
    private final MonoSink<Void> sink;
    private final int sendWindow;
    private final long sendWindowBytes;
    private final long maxMessageSize;
    private final IntConsumer onSent = this::sent;
    /** Bounded by the requests made; linked in small arrays, so that a send of one message stays cheap. */
    private final Queue<ByteBuf> arrived = Queues.<ByteBuf>unbounded(64).get();
    private final AtomicInteger wip = new AtomicInteger();
    private final Runnable drain = this::drain;
    /** Requested from the publisher and not yet arrived; the first request is made before subscribing. */
    private long outstanding = 1;
    /** Arrived and not yet sent (or, for a LARGE message, not yet released by the peer). */
    private int inFlight;
    /** A running average of the messages' lengths, 1 at least; 0 until the first arrives. */
    private int averageLength;
    private boolean complete;
    private boolean failed;

    StreamSender(MessagingEngine engine, EventLoop loop, MonoSink<Void> sink, int sendWindow, long sendWindowBytes,
            long maxMessageSize) {
        this.engine = engine;
        this.loop = loop;
        this.sink = sink;
        this.sendWindow = sendWindow;
        this.sendWindowBytes = sendWindowBytes;
        this.maxMessageSize = maxMessageSize;
    }

    @Override
    public Context currentContext() {
        return DISCARD_RELEASES;
    }

    @Override
    protected void hookOnSubscribe(Subscription subscription) {
        loop.execute(() -> {
            if (engine.ended()) {
                fail(engine.endCause());
            } else if (!failed) {
                engine.senders().add(this);
            }
        });
        subscription.request(1);
    }

    @Override
    protected void hookOnNext(ByteBuf message) {
        if (!arrived.offer(message)) {
            // More than requested: a publisher that broke Reactive Streams rule 1.1.
            message.release();
            onError(Exceptions.failWithOverflow("send(): more messages than requested"));
            return;
        }
        if (wip.getAndIncrement() == 0) {
            // Always through the loop's task queue, even on the loop: a completion callback that asks
            // for more must not re-enter the send path it was called from.
            loop.execute(drain);
        }
    }

    /** On the loop: takes in whatever arrived, then stops until a message arrives again. */
    private void drain() {
        int missed = 1;
        do {
            ByteBuf m;
            while ((m = arrived.poll()) != null) {
                next(m);
            }
            // Everything that arrived is queued before any of it goes, so it packs into as few Sends as fit.
            engine.transmitter().pump();
            missed = wip.addAndGet(-missed);
        } while (missed != 0);
        replenish();
    }

    private void next(ByteBuf message) {
        outstanding--;
        if (failed) {
            message.release();
            return;
        }
        if (message.refCnt() == 0) {
            fail(MessagingEngine.released("message"));
            return;
        }
        int n = message.readableBytes();
        if (engine.ended() || n > maxMessageSize) {
            fail(engine.ended() ? engine.endCause() : new IllegalArgumentException("a message of " + n
                    + " octets exceeds the largest of " + maxMessageSize + " (maxMessageSize)"));
            message.release();
            return;
        }
        inFlight++;
        averageLength = averageLength == 0 ? Math.max(1, n) : Math.max(1, (int) ((7L * averageLength + n) / 8));
        engine.transmitter().queue(engine.message(MessageType.DATA, 0, message, onSent));
    }

    private void sent(int octets) {
        inFlight--;
        if (complete && inFlight == 0 && !failed) {
            engine.senders().remove(this);
            sink.success();
        } else {
            replenish();
        }
    }

    private void replenish() {
        if (complete || failed || averageLength == 0) {
            return;
        }
        long window = Math.min(sendWindow, Math.max(1, sendWindowBytes / averageLength));
        long room = window - outstanding - inFlight;
        if (room > 0 && room >= window / 4) {
            outstanding += room;
            request(room);
        }
    }

    @Override
    protected void hookOnComplete() {
        loop.execute(() -> {
            ByteBuf m;
            while ((m = arrived.poll()) != null) {
                next(m); // whatever onNext queued came first; the scheduled drain finds the queue empty
            }
            engine.transmitter().pump();
            complete = true;
            if (inFlight == 0 && !failed) {
                engine.senders().remove(this);
                sink.success();
            }
        });
    }

    @Override
    protected void hookOnError(Throwable t) {
        loop.execute(() -> fail(t));
    }

    /** Ends this send with {@code t}: the publisher is cancelled and what it handed over and is queued is released. */
    void fail(Throwable t) {
        if (!failed) {
            failed = true;
            engine.senders().remove(this);
            cancel();
            sink.error(t);
            ByteBuf m;
            while ((m = arrived.poll()) != null) {
                m.release(); // queued before the failure; whatever comes later, next() releases
            }
        }
    }
}
