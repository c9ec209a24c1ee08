package io.softrdma.samples.perftest;

import io.softrdma.ConnectionClosedException;
import io.softrdma.rdmap.TerminateException;
import io.softrdma.verbs.CompletionQueue;
import io.softrdma.verbs.QueuePair;
import io.softrdma.verbs.QueuePairConfig;
import io.softrdma.verbs.RdmaDevice;
import io.softrdma.verbs.ProtectionDomain;
import io.softrdma.verbs.WorkCompletion;
import java.time.Duration;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * A queue pair with a completion queue of its own, whose completions the event loop hands to the test's thread
 * through a queue (copies: the event loop's view is reused). A hook may act on each completion on the event loop
 * first; the Send tests repost their receives there, so that the peer never finds the receive queue empty for
 * want of a thread switch (iWARP has no receiver-not-ready retry: a Send without a posted receive ends the stream
 * with a Terminate, RFC 5041 §7.1).
 *
 * <p>Thread safety: {@link #take} and {@link #post} from the test's thread; the hook runs on the event loop.
 */
final class Endpoint implements AutoCloseable {
    /** What the event loop hands over: a completion, or the end of the stream. */
    record Event(WorkCompletion completion, boolean ended, Throwable cause) {
    }

    final QueuePair qp;
    private final CompletionQueue cq;
    private final BlockingQueue<Event> events;
    private final Consumer<WorkCompletion> hook;
    private final CompletionQueue.Handler handler = this::onCompletion;
    private final Duration timeout;
    private final String name;
    /** Set when this endpoint's connect failed and another replaces it: its end is no news then. */
    private volatile boolean retired;

    /**
     * @param ordIrd RDMA Reads outstanding each way (the IRD/ORD this side offers in MPA)
     * @param hook runs on the event loop for each completion before it is handed over (may post)
     */
    Endpoint(String name, RdmaDevice device, ProtectionDomain pd, int sendDepth, int receiveDepth, int ordIrd,
            Duration timeout, Consumer<WorkCompletion> hook) {
        this(name, device, pd, sendDepth, receiveDepth, ordIrd, timeout, hook, new LinkedBlockingQueue<>());
    }

    /**
     * @param events where completions go: one queue may serve several endpoints (the data connections of a test
     *     with {@code -q}), which then tell theirs apart by work request id
     */
    Endpoint(String name, RdmaDevice device, ProtectionDomain pd, int sendDepth, int receiveDepth, int ordIrd,
            Duration timeout, Consumer<WorkCompletion> hook, BlockingQueue<Event> events) {
        this.events = events;
        this.name = name;
        this.timeout = timeout;
        this.hook = hook;
        this.cq = device.createCompletionQueue(sendDepth + receiveDepth + 16);
        this.qp = pd.createQueuePair(QueuePairConfig.of(cq).withSendQueueDepth(sendDepth)
                .withReceiveQueueDepth(receiveDepth).withReadDepths(ordIrd, ordIrd));
        qp.closeFuture().whenComplete((v, e) -> {
            if (!retired) {
                events.add(new Event(null, true, e));
            }
        });
        cq.setListener(q -> drain());
        cq.requestNotification(false);
    }

    private void drain() {
        do {
            while (cq.poll(handler, 64) > 0) {
                // keep polling
            }
            cq.requestNotification(false);
        } while (cq.poll(handler, 64) > 0);
    }

    private void onCompletion(WorkCompletion view) {
        WorkCompletion c = view.copy();
        if (hook != null && c.isSuccess()) {
            hook.accept(c);
        }
        events.add(new Event(c, false, null));
    }

    /**
     * The next completion, which must be a success.
     *
     * @param step what the test is waiting for, for the failure report
     * @throws PerftestException when nothing comes within the timeout, a work request fails or the stream ends
     */
    WorkCompletion take(String step) throws PerftestException, InterruptedException {
        return take(step, null);
    }

    /**
     * The next completion, which must be a success; while {@code progress} (when not null) keeps changing, the
     * wait goes on past the timeout: the other side of a test may run for longer than any timeout (perftest's own
     * waits have none), and what counts is that it still moves data.
     */
    WorkCompletion take(String step, LongSupplier progress) throws PerftestException, InterruptedException {
        return take(step, progress, null);
    }

    /**
     * As {@link #take(String)}, but null once {@code end} ({@link System#nanoTime()}) has passed with nothing
     * completed: a -D run's deadline. The peer's deadline is its own, so the last message of a ping-pong may never
     * come (the peer stopped first), and perftest stops waiting at its deadline too.
     */
    WorkCompletion takeBefore(String step, long end) throws PerftestException, InterruptedException {
        long left = end - System.nanoTime();
        if (left <= 0) {
            return null;
        }
        Event e = events.poll(Math.min(left, timeout.toNanos()), TimeUnit.NANOSECONDS);
        if (e == null) {
            if (end - System.nanoTime() <= 0) {
                return null;
            }
            throw new PerftestException(name + ": " + step + ": nothing completed within " + timeout.toSeconds()
                    + " s (--timeout)");
        }
        return checked(e, step);
    }

    /**
     * As {@link #take(String, LongSupplier)}, and fails at once (within a second) when {@code failed} says so: the
     * data connections ended while the control connection waited.
     */
    WorkCompletion take(String step, LongSupplier progress, Supplier<String> failed)
            throws PerftestException, InterruptedException {
        long slice = failed == null ? timeout.toNanos() : Math.min(timeout.toNanos(), 1_000_000_000L);
        long last = progress == null ? 0 : progress.getAsLong();
        long idleSince = System.nanoTime();
        Event e;
        while (true) {
            e = events.poll(slice, TimeUnit.NANOSECONDS);
            if (e != null) {
                break;
            }
            String why = failed == null ? null : failed.get();
            if (why != null) {
                throw new PerftestException(name + ": " + step + ": " + why);
            }
            long now = progress == null ? last : progress.getAsLong();
            if (now != last) {
                last = now;
                idleSince = System.nanoTime();
            } else if (System.nanoTime() - idleSince >= timeout.toNanos()) {
                break;
            }
        }
        if (e == null) {
            throw new PerftestException(name + ": " + step + ": nothing completed within " + timeout.toSeconds()
                    + " s (--timeout)" + (progress != null ? ", and no data moved on the data connections meanwhile"
                    : ""));
        }
        return checked(e, step);
    }

    /** The completion {@code e} brought, which must be a success. */
    private WorkCompletion checked(Event e, String step) throws PerftestException, InterruptedException {
        if (e.ended()) {
            events.add(e); // later takes see the end too
            throw new PerftestException(name + ": " + step + ": " + describeEnd(e.cause()), e.cause());
        }
        WorkCompletion c = e.completion();
        if (!c.isSuccess()) {
            Throwable cause = endCause();
            throw new PerftestException(name + ": " + step + ": the " + c.opcode() + " (work request " + c.wrId()
                    + ") completed with " + c.status() + (cause != null ? "; " + describeEnd(cause) : ""), cause);
        }
        return c;
    }

    /** What ended the stream, when it ends within a second (to name a Terminate in a failure report). */
    private Throwable endCause() throws InterruptedException {
        try {
            qp.closeFuture().get(1, TimeUnit.SECONDS);
            return null;
        } catch (ExecutionException x) {
            return x.getCause();
        } catch (TimeoutException x) {
            return null;
        }
    }

    /** Closes an endpoint whose connect failed, without telling the shared queue that it ended. */
    void retire() {
        retired = true;
        close();
    }

    /** Whether the stream has ended (the peer closed, or a Terminate). */
    boolean ended() {
        return qp.closeFuture().isDone();
    }

    static String describeEnd(Throwable cause) {
        if (cause instanceof TerminateException t) {
            return (t.remote() ? "the peer sent a Terminate: " : "this side sent a Terminate: ") + t.code()
                    + (t.getMessage() != null ? " (" + t.getMessage() + ")" : "");
        }
        if (cause instanceof ConnectionClosedException) {
            return "the connection closed (the peer closed or reset it)";
        }
        return cause == null ? "the connection was closed" : "the connection failed: " + cause;
    }

    /** Runs a post; a refusal (the queue pair closed under it) becomes the step's failure. */
    void post(Runnable post, String step) throws PerftestException {
        try {
            post.run();
        } catch (IllegalStateException | IllegalArgumentException e) {
            throw new PerftestException(name + ": " + step + ": " + e.getMessage(), e);
        }
    }

    /** Closes gracefully: posted work is carried out, then the stream closes; waits a little for that. */
    @Override
    public void close() {
        qp.close();
        try {
            qp.closeFuture().get(2, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException | TimeoutException e) {
            // ended one way or another; nothing to report at close
        }
    }
}
