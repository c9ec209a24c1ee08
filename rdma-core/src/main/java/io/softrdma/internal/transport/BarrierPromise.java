package io.softrdma.internal.transport;

import io.netty.channel.Channel;
import io.netty.channel.ChannelPromise;
import io.netty.util.concurrent.BlockingOperationException;
import io.netty.util.concurrent.Future;
import io.netty.util.concurrent.GenericFutureListener;
import io.netty.util.internal.logging.InternalLogger;
import io.netty.util.internal.logging.InternalLoggerFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The promise of a sender's {@link WriteBarrier}, armed again for each barrier: a queue pair has at most one
 * barrier on its way, and a new {@code DefaultChannelPromise} for each was the one object a 64 KiB Write stream
 * still allocated (a barrier every twenty Writes or so, when TCP's buffer is full; docs/benchmarks.md, issue 18).
 *
 * <p>It completes like any promise ({@link #trySuccess}, {@link #tryFailure}; listeners others add are notified
 * once and dropped), then tells its owner through {@link Outcome}; the owner may arm it again from there.
 * Arming a promise whose barrier is still on its way is a bug and fails.
 *
 * <p>Thread safety: armed and completed on the channel's event loop; its state may be read from any thread, and
 * waiting on it is allowed off the event loop only.
 */
public final class BarrierPromise implements ChannelPromise {
    /** What the owner learns when the barrier has left the channel, or could not. */
    @FunctionalInterface
    public interface Outcome {
        void barrierDone(boolean success);
    }

    private static final InternalLogger LOGGER = InternalLoggerFactory.getInstance(BarrierPromise.class);
    private static final Object SUCCESS = new Object();

    private final Channel channel;
    private final Outcome outcome;
    /** {@code null} while the barrier is on its way, else {@link #SUCCESS} or the failure's cause. */
    private volatile Object result = SUCCESS;
    /** Threads waiting in {@link #await0}: the event loop takes the monitor to wake them only when there are any. */
    private volatile int waiters;
    private List<GenericFutureListener<? extends Future<? super Void>>> listeners;

    public BarrierPromise(Channel channel, Outcome outcome) {
        this.channel = channel;
        this.outcome = outcome;
    }

    /** Makes the promise pending again, for the next barrier. */
    public BarrierPromise arm() {
        if (result == null) {
            throw new IllegalStateException("a write barrier is still on its way: one at a time per sender");
        }
        result = null;
        return this;
    }

    @Override
    public boolean trySuccess(Void ignored) {
        return complete(SUCCESS);
    }

    @Override
    public boolean trySuccess() {
        return complete(SUCCESS);
    }

    @Override
    public boolean tryFailure(Throwable cause) {
        return complete(cause == null ? new IllegalArgumentException("a failure without a cause") : cause);
    }

    private boolean complete(Object value) {
        if (result != null) {
            return false;
        }
        result = value;
        if (waiters > 0) {
            synchronized (this) {
                notifyAll();
            }
        }
        List<GenericFutureListener<? extends Future<? super Void>>> others = listeners;
        listeners = null;
        if (others != null) {
            for (GenericFutureListener<? extends Future<? super Void>> l : others) {
                notify(l);
            }
        }
        outcome.barrierDone(value == SUCCESS);
        return true;
    }

    @SuppressWarnings({"unchecked", "rawtypes"})
    private void notify(GenericFutureListener l) {
        try {
            l.operationComplete(this);
        } catch (Throwable t) {
            // As Netty's own promises: a listener's failure is not the barrier's.
            LOGGER.warn("a listener of a write barrier's promise threw", t);
        }
    }

    @Override
    public ChannelPromise setSuccess(Void ignored) {
        return setSuccess();
    }

    @Override
    public ChannelPromise setSuccess() {
        if (!complete(SUCCESS)) {
            throw new IllegalStateException("complete already: " + this);
        }
        return this;
    }

    @Override
    public ChannelPromise setFailure(Throwable cause) {
        if (!tryFailure(cause)) {
            throw new IllegalStateException("complete already: " + this, cause);
        }
        return this;
    }

    @Override
    public ChannelPromise addListener(GenericFutureListener<? extends Future<? super Void>> listener) {
        if (result != null) {
            notify(listener);
            return this;
        }
        if (listeners == null) {
            listeners = new ArrayList<>(2);
        }
        listeners.add(listener);
        return this;
    }

    @Override
    @SafeVarargs
    @SuppressWarnings("varargs")
    public final ChannelPromise addListeners(GenericFutureListener<? extends Future<? super Void>>... added) {
        for (GenericFutureListener<? extends Future<? super Void>> l : added) {
            addListener(l);
        }
        return this;
    }

    @Override
    public ChannelPromise removeListener(GenericFutureListener<? extends Future<? super Void>> listener) {
        if (listeners != null) {
            listeners.remove(listener);
        }
        return this;
    }

    @Override
    @SafeVarargs
    @SuppressWarnings("varargs")
    public final ChannelPromise removeListeners(GenericFutureListener<? extends Future<? super Void>>... removed) {
        for (GenericFutureListener<? extends Future<? super Void>> l : removed) {
            removeListener(l);
        }
        return this;
    }

    @Override
    public Channel channel() {
        return channel;
    }

    @Override
    public boolean isVoid() {
        return false;
    }

    @Override
    public ChannelPromise unvoid() {
        return this;
    }

    @Override
    public boolean setUncancellable() {
        return true;
    }

    @Override
    public boolean isCancellable() {
        return false;
    }

    @Override
    public boolean cancel(boolean mayInterruptIfRunning) {
        return false;
    }

    @Override
    public boolean isCancelled() {
        return false;
    }

    @Override
    public boolean isDone() {
        return result != null;
    }

    @Override
    public boolean isSuccess() {
        return result == SUCCESS;
    }

    @Override
    public Throwable cause() {
        return result instanceof Throwable t ? t : null;
    }

    @Override
    public Void getNow() {
        return null;
    }

    // ---- waiting: never on the event loop, which is the one thread that completes it ----

    @Override
    public ChannelPromise await() throws InterruptedException {
        await0(Long.MAX_VALUE, true);
        return this;
    }

    @Override
    public ChannelPromise awaitUninterruptibly() {
        awaitUninterruptibly0(Long.MAX_VALUE);
        return this;
    }

    @Override
    public boolean await(long timeout, TimeUnit unit) throws InterruptedException {
        return await0(unit.toNanos(timeout), true);
    }

    @Override
    public boolean await(long timeoutMillis) throws InterruptedException {
        return await(timeoutMillis, TimeUnit.MILLISECONDS);
    }

    @Override
    public boolean awaitUninterruptibly(long timeout, TimeUnit unit) {
        return awaitUninterruptibly0(unit.toNanos(timeout));
    }

    @Override
    public boolean awaitUninterruptibly(long timeoutMillis) {
        return awaitUninterruptibly(timeoutMillis, TimeUnit.MILLISECONDS);
    }

    @Override
    public ChannelPromise sync() throws InterruptedException {
        await();
        rethrowFailure();
        return this;
    }

    @Override
    public ChannelPromise syncUninterruptibly() {
        awaitUninterruptibly();
        rethrowFailure();
        return this;
    }

    @Override
    public Void get() throws InterruptedException, ExecutionException {
        await();
        if (cause() != null) {
            throw new ExecutionException(cause());
        }
        return null;
    }

    @Override
    public Void get(long timeout, TimeUnit unit) throws InterruptedException, ExecutionException, TimeoutException {
        if (!await(timeout, unit)) {
            throw new TimeoutException("the write barrier has not left the channel yet");
        }
        if (cause() != null) {
            throw new ExecutionException(cause());
        }
        return null;
    }

    private void rethrowFailure() {
        Throwable cause = cause();
        if (cause instanceof RuntimeException e) {
            throw e;
        }
        if (cause instanceof Error e) {
            throw e;
        }
        if (cause != null) {
            throw new IllegalStateException(cause);
        }
    }

    private boolean awaitUninterruptibly0(long nanos) {
        boolean interrupted = false;
        try {
            while (true) {
                try {
                    return await0(nanos, false);
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private boolean await0(long nanos, boolean interruptible) throws InterruptedException {
        if (isDone()) {
            return true;
        }
        if (channel.eventLoop().inEventLoop()) {
            throw new BlockingOperationException("waiting for a write barrier on the event loop that writes it");
        }
        if (interruptible && Thread.interrupted()) {
            throw new InterruptedException();
        }
        long deadline = System.nanoTime() + nanos;
        synchronized (this) {
            // Counted before isDone is read again: a completion that saw no waiter was seen here (both volatile).
            waiters++;
            try {
                while (!isDone()) {
                    long left = nanos == Long.MAX_VALUE ? Long.MAX_VALUE : deadline - System.nanoTime();
                    if (left <= 0) {
                        return false;
                    }
                    wait(left == Long.MAX_VALUE ? 0 : Math.max(1, TimeUnit.NANOSECONDS.toMillis(left)));
                }
            } finally {
                waiters--;
            }
        }
        return true;
    }

    @Override
    public String toString() {
        Object r = result;
        return "BarrierPromise(" + (r == null ? "pending" : r == SUCCESS ? "written" : "failed: " + r) + ")";
    }
}
