package io.softrdma.reactive.internal;

import io.netty.buffer.ByteBuf;
import io.netty.channel.EventLoop;
import io.softrdma.reactive.RdmaMetricsRecorder;
import io.softrdma.reactive.internal.protocol.CreditWindow;
import io.softrdma.reactive.internal.protocol.MessageType;
import io.softrdma.verbs.MemoryRegion;
import io.softrdma.verbs.RemoteMemory;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.Set;
import java.util.function.IntConsumer;
import reactor.core.publisher.Flux;
import reactor.core.publisher.MonoSink;

/**
 * RFC 7306 Immediate Data both ways. Sending: an RDMA Write followed by Immediate Data queues behind messages for a
 * credit, since its Immediate Data consumes one of the peer's receive buffers like a Send. Receiving: each value is
 * emitted by {@code immediates()} after the octets of its Write are placed, on demand, with credits as for messages.
 *
 * <p>Thread safety: the event loop only, but for {@link #immediates()} and {@link #write}.
 */
final class ImmediateData {
    private final MessagingEngine engine;
    private final EventLoop loop;
    private final CreditWindow window;
    private final int maxQueued;
    /** Immediate Data received before the subscriber asked for it (at most the receive buffers posted). */
    private final LongRing held;
    private final DemandStream<Long> stream;
    /** Writes queued or posted: a session that ends fails them. */
    private final Set<ImmediateWrite> writes = new HashSet<>();

    ImmediateData(MessagingEngine engine, EventLoop loop, CreditWindow window, int receiveBuffers, int maxQueued) {
        this.engine = engine;
        this.loop = loop;
        this.window = window;
        this.held = new LongRing(receiveBuffers);
        this.maxQueued = maxQueued;
        this.stream = new DemandStream<>("immediates()", engine, loop, window, this::drain);
    }

    /**
     * An RDMA Write followed by Immediate Data. Its region and buffer are released, and its subscriber told, when
     * the Write and Immediate Data are complete or the session ends.
     */
    final class ImmediateWrite implements IntConsumer {
        final RemoteMemory remote;
        final MemoryRegion region;
        final ByteBuf memory;
        final long data;
        final MonoSink<Void> sink;
        final long subscribed = System.nanoTime();

        ImmediateWrite(RemoteMemory remote, MemoryRegion region, ByteBuf memory, long data, MonoSink<Void> sink) {
            this.remote = remote;
            this.region = region;
            this.memory = memory;
            this.data = data;
            this.sink = sink;
        }

        /** The Write and its Immediate Data are complete (RFC 5040 §5.5 rule 14). */
        @Override
        public void accept(int octets) {
            if (writes.remove(this)) {
                release();
                engine.recorder().operation(RdmaMetricsRecorder.Operation.WRITE, octets,
                        System.nanoTime() - subscribed, true);
                sink.success();
            }
        }

        void fail(Throwable cause) {
            if (writes.remove(this)) {
                release();
                engine.recorder().operation(RdmaMetricsRecorder.Operation.WRITE, 0, System.nanoTime() - subscribed,
                        false);
                sink.error(cause);
            }
        }

        private void release() {
            region.close();
            memory.release();
        }
    }

    /** Queues an RDMA Write with Immediate Data for a credit. Any thread. */
    void write(RemoteMemory remote, MemoryRegion region, ByteBuf memory, long data, MonoSink<Void> sink) {
        ImmediateWrite w = new ImmediateWrite(remote, region, memory, data, sink);
        loop.execute(() -> {
            writes.add(w);
            if (engine.ended()) {
                w.fail(engine.endCause());
                return;
            }
            if (writes.size() > maxQueued) {
                w.fail(new IllegalStateException(maxQueued + " Writes with Immediate Data already wait, the most a"
                        + " session holds (MessagingOptions.maxQueuedOperations): wait for some to complete"));
                return;
            }
            Outgoing o = engine.transmitter().outgoing(MessageType.DATA, 0, null, Outgoing.NOTHING);
            o.immediateWrite = w;
            engine.transmitter().enqueue(o);
        });
    }

    /** The peer's Immediate Data, one subscriber at a time; demand posts receive buffers. Any thread. */
    Flux<Long> immediates() {
        return stream.flux();
    }

    /**
     * Immediate Data arrived: its receive buffer is free already; the credit comes back, as for a data message,
     * when the value is handed on.
     */
    void arrived(long data) {
        window.received(MessageType.DATA, 1);
        held.addLast(data);
        drain();
    }

    private void drain() {
        while (!held.isEmpty() && stream.wants()) {
            stream.emit(held.pollFirst(), true);
        }
    }

    /** The session ended: held values go, the subscriber and every waiting Write hear why. */
    void end(Throwable cause) {
        held.clear();
        stream.end(cause);
        for (ImmediateWrite w : new ArrayList<>(writes)) {
            w.fail(cause);
        }
    }
}
