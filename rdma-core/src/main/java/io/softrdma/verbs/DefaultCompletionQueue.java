package io.softrdma.verbs;

import io.netty.util.concurrent.FastThreadLocalThread;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.locks.LockSupport;

/**
 * A bounded multi-producer, single-consumer ring of completions (each slot has a sequence number, as in
 * Vyukov's bounded queue). Completion fields live in parallel arrays, so adding and polling allocate
 * nothing. Producers (event loops) take no lock; the consumer side serializes on this object.
 */
final class DefaultCompletionQueue implements CompletionQueue {
    private static final io.netty.util.internal.logging.InternalLogger logger =
            io.netty.util.internal.logging.InternalLoggerFactory.getInstance(DefaultCompletionQueue.class);
    private static final WorkCompletionStatus[] STATUSES = WorkCompletionStatus.values();
    private static final WorkCompletionOpcode[] OPCODES = WorkCompletionOpcode.values();
    private static final int DISARMED = 0;
    private static final int ARMED_ANY = 1;
    private static final int ARMED_SOLICITED = 2;

    private final int capacity;
    private final int mask;
    private final AtomicLongArray sequence;
    private final long[] wrIds;
    private final long[] byteLengths;
    private final int[] queuePairNumbers;
    private final int[] invalidatedStags;
    /** Immediate Data (RECEIVE_IMMEDIATE) or an atomic's original value (RFC 7306). */
    private final long[] values;
    /** status | opcode << 8 | solicited << 16 | invalidated << 17 */
    private final int[] codes;
    private final AtomicLong tail = new AtomicLong();
    private final AtomicInteger reserved = new AtomicInteger();
    private final AtomicInteger armed = new AtomicInteger();
    private final WorkCompletion view = new WorkCompletion();
    private long head;
    private volatile Listener listener;
    private volatile Thread waiter;

    DefaultCompletionQueue(int capacity) {
        if (capacity < 1 || capacity > 1 << 24) {
            throw new IllegalArgumentException("completion queue capacity " + capacity + " is outside 1..16777216");
        }
        this.capacity = capacity;
        int size = Integer.highestOneBit(capacity - 1 == 0 ? 1 : capacity - 1) << 1;
        size = Math.max(size, 2);
        this.mask = size - 1;
        this.sequence = new AtomicLongArray(size);
        for (int i = 0; i < size; i++) {
            sequence.set(i, i);
        }
        this.wrIds = new long[size];
        this.byteLengths = new long[size];
        this.queuePairNumbers = new int[size];
        this.invalidatedStags = new int[size];
        this.values = new long[size];
        this.codes = new int[size];
    }

    @Override
    public int capacity() {
        return capacity;
    }

    /** Reserves entries for a queue pair's queue; fails fast when the capacity would be exceeded. */
    void reserve(int entries, String what) {
        while (true) {
            int r = reserved.get();
            if (r + entries > capacity) {
                throw new IllegalArgumentException("a completion queue of " + capacity + " entries cannot take "
                        + what + " of " + entries + ": " + r + " are reserved already (create a larger one)");
            }
            if (reserved.compareAndSet(r, r + entries)) {
                return;
            }
        }
    }

    void unreserve(int entries) {
        reserved.addAndGet(-entries);
    }

    /**
     * Adds a completion. Never fails for a queue pair that reserved its depths: at most that many of its
     * completions are outstanding at once.
     *
     * @return false when the ring is full, which reservations rule out
     */
    boolean add(long wrId, WorkCompletionStatus status, WorkCompletionOpcode opcode, long byteLength,
            int queuePairNumber, boolean solicited, boolean invalidated, int invalidatedStag) {
        return add(wrId, status, opcode, byteLength, queuePairNumber, solicited, invalidated, invalidatedStag, 0);
    }

    /** As {@link #add(long, WorkCompletionStatus, WorkCompletionOpcode, long, int, boolean, boolean, int)}, with a value. */
    boolean add(long wrId, WorkCompletionStatus status, WorkCompletionOpcode opcode, long byteLength,
            int queuePairNumber, boolean solicited, boolean invalidated, int invalidatedStag, long value) {
        if (!put(wrId, status, opcode, byteLength, queuePairNumber, solicited, invalidated, invalidatedStag, value)) {
            return false;
        }
        signal(solicited || status != WorkCompletionStatus.SUCCESS);
        return true;
    }

    /**
     * Adds a completion without the completion event: the caller raises it later, once for the completions of a
     * whole read cycle, with {@link #signal(boolean)}. False when the queue is full.
     */
    boolean put(long wrId, WorkCompletionStatus status, WorkCompletionOpcode opcode, long byteLength,
            int queuePairNumber, boolean solicited, boolean invalidated, int invalidatedStag, long value) {
        long pos = tail.get();
        int slot;
        while (true) {
            slot = (int) pos & mask;
            long diff = sequence.get(slot) - pos;
            if (diff == 0) {
                if (tail.compareAndSet(pos, pos + 1)) {
                    break;
                }
                pos = tail.get();
            } else if (diff < 0) {
                return false;
            } else {
                pos = tail.get();
            }
        }
        wrIds[slot] = wrId;
        byteLengths[slot] = byteLength;
        queuePairNumbers[slot] = queuePairNumber;
        invalidatedStags[slot] = invalidatedStag;
        values[slot] = value;
        codes[slot] = status.ordinal() | opcode.ordinal() << 8 | (solicited ? 1 << 16 : 0) | (invalidated ? 1 << 17 : 0);
        sequence.set(slot, pos + 1);
        return true;
    }

    /**
     * Raises the completion event for what was added: calls the listener if the queue is armed for any completion,
     * or for solicited ones and {@code solicitedOrError}, and wakes a waiting {@code take}.
     */
    void signal(boolean solicitedOrError) {
        int a = armed.get();
        if (a != DISARMED && (a == ARMED_ANY || solicitedOrError) && armed.compareAndSet(a, DISARMED)) {
            Listener l = listener;
            if (l != null) {
                try {
                    l.onCompletionEvent(this);
                } catch (Throwable t) {
                    // The engine that added the completion must not be unwound by a consumer's failure.
                    logger.warn("completion queue listener {} failed", l, t);
                }
            }
        }
        Thread w = waiter;
        if (w != null) {
            LockSupport.unpark(w);
        }
    }

    @Override
    public synchronized int size() {
        return (int) (tail.get() - head);
    }

    @Override
    public synchronized int poll(Handler handler, int max) {
        int n = 0;
        while (n < max && next(view)) {
            n++;
            handler.onCompletion(view);
        }
        return n;
    }

    @Override
    public synchronized WorkCompletion poll() {
        WorkCompletion c = new WorkCompletion();
        return next(c) ? c : null;
    }

    /** Moves the oldest completion into {@code into}; false when there is none. Consumer side only. */
    private boolean next(WorkCompletion into) {
        int slot = (int) head & mask;
        if (sequence.get(slot) != head + 1) {
            return false;
        }
        int code = codes[slot];
        into.wrId = wrIds[slot];
        into.byteLength = byteLengths[slot];
        into.queuePairNumber = queuePairNumbers[slot];
        into.invalidatedStag = invalidatedStags[slot];
        into.value = values[slot];
        into.status = STATUSES[code & 0xFF];
        into.opcode = OPCODES[(code >>> 8) & 0xFF];
        into.solicited = (code & 1 << 16) != 0;
        into.invalidated = (code & 1 << 17) != 0;
        sequence.set(slot, head + mask + 1);
        head++;
        return true;
    }

    @Override
    public synchronized WorkCompletion take(Duration timeout) throws InterruptedException {
        if (FastThreadLocalThread.currentThreadHasFastThreadLocal()) {
            throw new IllegalStateException("take() blocks; on an event loop use poll() with setListener()");
        }
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            WorkCompletion c = poll();
            if (c != null) {
                return c;
            }
            waiter = Thread.currentThread();
            try {
                c = poll();
                if (c != null) {
                    return c;
                }
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    return null;
                }
                LockSupport.parkNanos(this, left);
                if (Thread.interrupted()) {
                    throw new InterruptedException();
                }
            } finally {
                waiter = null;
            }
        }
    }

    @Override
    public void requestNotification(boolean solicitedOnly) {
        armed.set(solicitedOnly ? ARMED_SOLICITED : ARMED_ANY);
    }

    @Override
    public void setListener(Listener listener) {
        this.listener = listener;
    }

    @Override
    public String toString() {
        return "CompletionQueue{capacity=" + capacity + ", reserved=" + reserved.get() + "}";
    }
}
