package io.softrdma.reactive.internal;

import io.softrdma.reactive.spi.PendingOperation;
import io.netty.buffer.ByteBuf;
import io.netty.channel.EventLoop;
import io.netty.util.ReferenceCountUtil;
import io.softrdma.reactive.RdmaMetricsRecorder;
import io.softrdma.reactive.RdmaOperationException;
import io.softrdma.verbs.MemoryRegion;
import io.softrdma.verbs.QueuePair;
import io.softrdma.verbs.SendWorkRequest;
import io.softrdma.verbs.WorkCompletion;
import io.softrdma.verbs.WorkCompletionOpcode;
import io.softrdma.verbs.WorkCompletionStatus;
import java.util.ArrayDeque;
import java.util.concurrent.CompletionException;
import java.util.function.BooleanSupplier;
import java.util.function.Function;
import reactor.core.publisher.MonoSink;

/**
 * The application's one-sided operations — RDMA Write and Read (RFC 5040 §4.3, §4.4) and RFC 7306 atomics — from
 * subscription to completion. Each is posted on the event loop within the application's share of the send queue
 * ({@link SendQueueShares#applicationOperations}); beyond it they wait here, in order, up to
 * {@code maxQueuedOperations}. A Mono completes when RFC 5040 §5.5 says the operation is complete; cancelling it does
 * not recall a posted operation, whose memory is released only when it completes on the wire.
 *
 * <p>Thread safety: the event loop only, but for {@link #post}.
 */
public final class OneSidedOperations {
    private final QueuePair qp;
    private final EventLoop loop;
    private final Operations operations;
    private final int applicationLimit;
    private final int maxQueued;
    private final BooleanSupplier ended;
    private final RdmaMetricsRecorder recorder;
    /** Writes and Reads the application subscribed to while its share of the send queue was full, in order. */
    private final ArrayDeque<OperationSink<?>> waiting = new ArrayDeque<>();
    private int applicationOperations;

    /**
     * @param applicationLimit the send queue entries the application's operations may hold
     * @param maxQueued the most that wait for room beyond that
     * @param ended whether the session has ended (operations posted after it fail at once)
     */
    public OneSidedOperations(QueuePair qp, EventLoop loop, Operations operations, int applicationLimit,
            int maxQueued, BooleanSupplier ended, RdmaMetricsRecorder recorder) {
        this.qp = qp;
        this.loop = loop;
        this.operations = operations;
        this.applicationLimit = applicationLimit;
        this.maxQueued = maxQueued;
        this.ended = ended;
        this.recorder = recorder;
    }

    /** Whether operations are timed: only for a recorder that records. */
    private boolean timed() {
        return recorder != RdmaMetricsRecorder.NONE;
    }

    /**
     * Posts the work request {@code build} makes, once, on the event loop, and completes {@code sink}
     * with its completion: {@code region} is closed and {@code owned} released afterwards — never
     * before, even if the subscriber cancelled (the operation still runs on the wire).
     */
    public <T> void post(RdmaMetricsRecorder.Operation kind, long octets, MonoSink<T> sink,
            Function<Long, SendWorkRequest> build, MemoryRegion region, ByteBuf owned) {
        OperationSink<T> op = new OperationSink<>(kind, octets, sink, region, owned);
        sink.onCancel(op::cancel);
        if (loop.inEventLoop()) {
            op.post(build);
        } else {
            loop.execute(() -> op.post(build));
        }
    }

    /** Posts the operations that waited for room in the send queue, in order, while there is room. */
    public void postWaiting() {
        OperationSink<?> op;
        while (applicationOperations < applicationLimit && (op = waiting.poll()) != null) {
            Function<Long, SendWorkRequest> build = op.build;
            op.build = null;
            op.postNow(build);
        }
    }

    /** The session ended: every operation still waiting for room fails with {@code failure}. */
    public void end(Throwable failure) {
        OperationSink<?> op;
        while ((op = waiting.poll()) != null) {
            op.fail(failure);
        }
    }

    private static Throwable unwrap(Throwable t) {
        return t instanceof CompletionException && t.getCause() != null ? t.getCause() : t;
    }

    /** One operation's subscriber and resources. Event loop only, but for {@link #cancel()}. */
    private final class OperationSink<T> implements PendingOperation {
        private final MonoSink<T> sink;
        private final MemoryRegion region;
        private final ByteBuf owned;
        private volatile boolean cancelled;
        /** Whether it holds an entry of the send queue (posted, not yet completed or failed). */
        private boolean posted;
        /** While waiting for room in the send queue: the work request to post. */
        private Function<Long, SendWorkRequest> build;

        private final RdmaMetricsRecorder.Operation kind;
        private final long octets;
        /** When it began, for the recorder's timing; not read (the clock costs a call per operation) without one. */
        private final long subscribed = timed() ? System.nanoTime() : 0;

        OperationSink(RdmaMetricsRecorder.Operation kind, long octets, MonoSink<T> sink, MemoryRegion region,
                ByteBuf owned) {
            this.kind = kind;
            this.octets = octets;
            this.sink = sink;
            this.region = region;
            this.owned = owned;
        }

        void cancel() {
            cancelled = true;
        }

        void post(Function<Long, SendWorkRequest> build) {
            if (ended.getAsBoolean()) {
                fail(new IllegalStateException("the RDMA session has ended"));
                return;
            }
            if (applicationOperations >= applicationLimit || !waiting.isEmpty()) {
                if (waiting.size() >= maxQueued) {
                    fail(new IllegalStateException(waiting.size() + " Writes and Reads already wait for room in the"
                            + " send queue, the most a session holds (MessagingOptions.maxQueuedOperations): wait for"
                            + " some to complete, or bound what is in flight (e.g. flatMap's concurrency)"));
                    return;
                }
                // The send queue is full: wait, in order, for a completion to make room.
                this.build = build;
                waiting.add(this);
                return;
            }
            postNow(build);
        }

        void postNow(Function<Long, SendWorkRequest> build) {
            if (cancelled) {
                release(); // cancelled before it reached the queue pair: nothing on the wire to wait for
                return;
            }
            long wrId = operations.add(this);
            applicationOperations++;
            posted = true;
            try {
                qp.postSend(build.apply(wrId));
            } catch (RuntimeException e) {
                operations.remove(wrId);
                fail(e);
            }
        }

        @Override
        @SuppressWarnings("unchecked")
        public void complete(WorkCompletion c) {
            applicationOperations--;
            posted = false;
            if (c.status() == WorkCompletionStatus.SUCCESS) {
                T result = null;
                if (c.opcode() == WorkCompletionOpcode.RDMA_READ) {
                    ByteBuf sinkBuffer = region.buffer();
                    result = (T) sinkBuffer.retainedSlice(0, (int) c.byteLength());
                } else if (c.opcode() == WorkCompletionOpcode.ATOMIC_FETCH_ADD
                        || c.opcode() == WorkCompletionOpcode.ATOMIC_COMPARE_AND_SWAP) {
                    result = (T) Long.valueOf(c.atomicOriginalValue());
                }
                release();
                if (timed()) {
                    recorder.operation(kind, octets, System.nanoTime() - subscribed, true);
                }
                if (cancelled) {
                    ReferenceCountUtil.release(result);
                } else if (result != null) {
                    sink.success(result);
                } else {
                    sink.success();
                }
                return;
            }
            // A failed or flushed operation: the queue pair is on its way to ERROR; its close cause (a
            // Terminate, a lost connection) explains it.
            WorkCompletionOpcode opcode = c.opcode();
            WorkCompletionStatus status = c.status();
            qp.closeFuture().whenComplete((v, t) -> loop.execute(() -> fail(
                    new RdmaOperationException(opcode, status, unwrap(t)))));
        }

        @Override
        public void fail(Throwable cause) {
            if (posted) {
                applicationOperations--;
                posted = false;
            }
            release();
            if (timed()) {
                recorder.operation(kind, 0, System.nanoTime() - subscribed, false);
            }
            if (!cancelled) {
                sink.error(cause);
            }
        }

        private void release() {
            if (region != null) {
                region.close();
            }
            if (owned != null) {
                owned.release();
            }
        }
    }
}
