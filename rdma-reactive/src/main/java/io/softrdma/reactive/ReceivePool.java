package io.softrdma.reactive;

import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A byte budget for receive buffers that many messaging sessions share, in the role of a verbs shared receive
 * queue (SRQ): so that a server's receive memory grows with its traffic, not with its connections
 * (docs/robustness.md, Memory).
 *
 * <p>Each session keeps {@link #DEDICATED_BUFFERS} receive buffers of its own, registered when it starts: the two
 * reserved for control messages and one for a data message (the smallest receive queue the credit protocol allows,
 * docs/protocol.md). Every buffer beyond those is drawn from the pool when the session's downstream demand asks for
 * it — just before it is posted and its credit granted — and goes back once its message was consumed and the
 * session has no demand to repost it for. A credit is therefore granted only for a buffer that exists and is
 * posted (RFC 5040 §5.3: a Send with no posted receive is a Terminate); when the pool is spent, sessions post fewer
 * buffers, so their peers get fewer credits and wait for them: senders are throttled, nothing fails. A session
 * that found the pool empty is told when a buffer comes back.
 *
 * <p>A pool is given to a server ({@link RdmaServer#receivePool}; every server has one of
 * {@link #DEFAULT_CAPACITY} unless told otherwise) or to clients ({@link RdmaClient#receivePool}); every session
 * of every server and client it is given to draws from it.
 *
 * <p>Thread safety: thread-safe; sessions on different event loops share it. It holds no memory itself: it counts
 * the octets of the buffers its sessions registered.
 */
public final class ReceivePool {
    /** Receive buffers every session keeps of its own, outside the pool: the control reserve and one for data. */
    public static final int DEDICATED_BUFFERS = 3;

    /** The octets a server's pool holds unless told otherwise: 64 MiB, 16384 buffers of the default 4 KiB. */
    public static final long DEFAULT_CAPACITY = 64L * 1024 * 1024;

    private final long capacity;
    private final AtomicLong used = new AtomicLong();
    private final AtomicLong peak = new AtomicLong();
    private final AtomicLong refusals = new AtomicLong();
    private final AtomicInteger sessions = new AtomicInteger();
    private final Queue<Runnable> waiting = new ConcurrentLinkedQueue<>();

    private ReceivePool(long capacity) {
        this.capacity = capacity;
    }

    /**
     * A pool of {@code capacity} octets of receive buffers.
     *
     * @param capacity octets, at least 1 KiB (one buffer of the smallest inline size); sessions whose inline size is
     *     above it run on their dedicated buffers alone
     * @return the pool
     * @throws IllegalArgumentException if {@code capacity} is below 1024
     */
    public static ReceivePool of(long capacity) {
        if (capacity < 1024) {
            throw new IllegalArgumentException("a receive pool of " + capacity + " octets holds no buffer: give it"
                    + " at least 1024 (one 1 KiB receive buffer), or leave sessions without a pool");
        }
        return new ReceivePool(capacity);
    }

    /** The octets of buffers the pool may lend at once. */
    public long capacity() {
        return capacity;
    }

    /** The octets of buffers lent now: posted, or holding a message not yet consumed. */
    public long used() {
        return used.get();
    }

    /** The most octets lent at once since the pool was made. */
    public long peakUsed() {
        return peak.get();
    }

    /** How often a session asked for a buffer and found the pool spent (its peer waited for credit). */
    public long refusals() {
        return refusals.get();
    }

    /** Sessions drawing on the pool now. */
    public int sessions() {
        return sessions.get();
    }

    /** A session starts drawing on the pool. */
    public void attach() {
        sessions.incrementAndGet();
    }

    /** A session ended: it draws no more. */
    public void detach() {
        sessions.decrementAndGet();
    }

    /**
     * A session's share of the pool in buffers of {@code octets}: the pool divided among the sessions drawing on it,
     * at least one. While sessions wait for buffers, one holding its share gives the buffers that come free back
     * instead of posting them again, so that a few busy sessions cannot keep the others at their dedicated buffers.
     *
     * @param octets the session's buffer size
     * @return buffers
     */
    public long share(int octets) {
        return Math.max(1, capacity / octets / Math.max(1, sessions.get()));
    }

    /** Sessions waiting for a buffer to come back. */
    public int waiting() {
        return waiting.size();
    }

    /**
     * Takes {@code octets} for one buffer if the pool has them; otherwise counts a refusal.
     *
     * @param octets the buffer's size, positive
     * @return whether they were taken: the caller registers the buffer and must {@link #release} them later
     */
    public boolean tryAcquire(int octets) {
        long now;
        do {
            now = used.get();
            if (now + octets > capacity) {
                refusals.incrementAndGet();
                return false;
            }
        } while (!used.compareAndSet(now, now + octets));
        peak.accumulateAndGet(now + octets, Math::max);
        return true;
    }

    /**
     * Gives back {@code octets} of a buffer {@link #tryAcquire taken} before, and wakes one waiting session.
     *
     * @param octets what was taken
     */
    public void release(long octets) {
        if (octets <= 0) {
            return;
        }
        used.addAndGet(-octets);
        wakeNext();
    }

    /**
     * Wakes the next waiting session, if any: called by a session that was woken but no longer needs a buffer (it
     * ended, or its demand was met), so that the wake-up is not lost.
     */
    public void wakeNext() {
        Runnable next = waiting.poll();
        if (next != null) {
            next.run();
        }
    }

    /** Whether sessions are waiting for buffers: one holding its {@link #share} gives the buffers it frees back. */
    public boolean contended() {
        return !waiting.isEmpty();
    }

    /**
     * Calls {@code wake} once, when a buffer comes back (or at once if {@code octets} were given back since the
     * caller was refused, so that no wake-up is lost). {@code wake} must be cheap and hand over to the session's
     * event loop; a session registers once until woken.
     *
     * @param wake what to run
     * @param octets the buffer size the caller was refused
     */
    public void await(Runnable wake, int octets) {
        waiting.add(wake);
        // A release between the caller's refusal and the line above found no one to wake: look again.
        if (used.get() + octets <= capacity && waiting.remove(wake)) {
            wake.run();
        }
    }

    @Override
    public String toString() {
        return "ReceivePool[capacity=" + capacity + ", used=" + used.get() + ", peak=" + peak.get() + ", waiting="
                + waiting.size() + ", refusals=" + refusals.get() + "]";
    }
}
