package io.softrdma.reactive.internal;

import io.netty.buffer.ByteBuf;
import io.netty.channel.EventLoop;
import io.netty.util.collection.IntObjectHashMap;
import io.softrdma.reactive.RdmaMetricsRecorder;
import io.softrdma.reactive.RdmaRemoteException;
import io.softrdma.reactive.internal.protocol.CreditWindow;
import io.softrdma.reactive.internal.protocol.MessageType;
import java.nio.charset.StandardCharsets;
import reactor.core.publisher.Mono;
import reactor.core.publisher.MonoSink;

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

    /** A request awaiting its answer. */
    private static final class Pending {
        final MonoSink<ByteBuf> sink;
        final long octets;
        final long sent = System.nanoTime();
        volatile boolean cancelled;

        Pending(MonoSink<ByteBuf> sink, long octets) {
            this.sink = sink;
            this.octets = octets;
            sink.onCancel(() -> cancelled = true);
        }
    }

    Requests(MessagingEngine engine, EventLoop loop, CreditWindow window, long maxMessageSize, int maxQueued) {
        this.engine = engine;
        this.loop = loop;
        this.window = window;
        this.maxMessageSize = maxMessageSize;
        this.maxQueued = maxQueued;
    }

    /** Sends {@code request} and completes with the peer's response; the subscriber owns it. Any thread. */
    Mono<ByteBuf> request(ByteBuf request) {
        return Mono.create(sink -> {
            if (request.refCnt() == 0) {
                sink.error(MessagingEngine.released("request"));
                return;
            }
            loop.execute(() -> send(request, sink));
        });
    }

    private void send(ByteBuf request, MonoSink<ByteBuf> sink) {
        if (engine.ended()) {
            request.release();
            sink.error(engine.endCause());
            return;
        }
        if (pending.size() >= maxQueued) {
            request.release();
            sink.error(new IllegalStateException(pending.size() + " requests await their response, the most a"
                    + " session holds (MessagingOptions.maxQueuedOperations): wait for some to be answered"));
            return;
        }
        if (request.readableBytes() > maxMessageSize) {
            request.release();
            sink.error(new IllegalArgumentException("a request of " + request.readableBytes()
                    + " octets exceeds the largest of " + maxMessageSize + " (maxMessageSize)"));
            return;
        }
        int id = nextCorrelationId++;
        if (nextCorrelationId == 0) {
            nextCorrelationId = 1;
        }
        pending.put(id, new Pending(sink, request.readableBytes()));
        // The response needs a posted buffer: one more unit of demand.
        window.demand(1);
        engine.postReceives();
        engine.transmitter().enqueue(engine.message(MessageType.REQUEST, id, request, Outgoing.NOTHING));
    }

    /** The answer to request {@code id} arrived: a RESPONSE, or an ERROR whose payload is the reason in UTF-8. */
    void answered(MessageType type, int id, ByteBuf message) {
        Pending p = pending.remove(id);
        window.delivered();
        if (p != null) {
            engine.recorder().operation(RdmaMetricsRecorder.Operation.REQUEST, p.octets, System.nanoTime() - p.sent,
                    type == MessageType.RESPONSE);
        }
        if (p == null || p.cancelled) {
            // Cancelled (or unknown): the answer's buffer goes back, nothing is lost.
            message.release();
        } else if (type == MessageType.RESPONSE) {
            p.sink.success(message);
        } else {
            String text = message.toString(StandardCharsets.UTF_8);
            message.release();
            p.sink.error(new RdmaRemoteException(text));
        }
    }

    /** The session ended: every request still waiting fails with {@code cause}. */
    void end(Throwable cause) {
        pending.forEach((id, p) -> {
            engine.recorder().operation(RdmaMetricsRecorder.Operation.REQUEST, 0, System.nanoTime() - p.sent, false);
            p.sink.error(cause);
        });
        pending.clear();
    }

    int waiting() {
        return pending.size();
    }
}
