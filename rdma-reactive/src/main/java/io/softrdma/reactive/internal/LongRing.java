package io.softrdma.reactive.internal;

/**
 * A bounded FIFO of {@code long}s that never boxes: held Immediate Data, at most one per receive buffer.
 *
 * <p>Note: not thread safe; a session's event loop only.
 */
final class LongRing {
    private final long[] values;
    private int head;
    private int size;

    LongRing(int capacity) {
        values = new long[Math.max(1, capacity)];
    }

    boolean isEmpty() {
        return size == 0;
    }

    int size() {
        return size;
    }

    /**
     * @throws IllegalStateException when full: more held than receive buffers, which the credits rule out
     */
    void addLast(long value) {
        if (size == values.length) {
            throw new IllegalStateException("more than " + values.length + " values held: the peer sent beyond"
                    + " its credits");
        }
        values[(head + size++) % values.length] = value;
    }

    long pollFirst() {
        if (size == 0) {
            throw new java.util.NoSuchElementException();
        }
        long v = values[head];
        head = (head + 1) % values.length;
        size--;
        return v;
    }

    void clear() {
        head = 0;
        size = 0;
    }
}
