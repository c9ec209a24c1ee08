package io.softrdma.samples.perf;

import java.time.Duration;

/**
 * How long a bandwidth phase runs: a fixed number of operations, or for a time after which no new
 * operation starts (those in flight still finish and count).
 *
 * @param iterations the operations to run, or 0 when the phase is timed
 * @param duration how long a timed phase starts operations
 */
record Budget(long iterations, Duration duration) {
    /** A timed phase reads the clock once in this many operations ({@link #over}). */
    static final int CLOCK_EVERY = 64;

    static Budget of(long iterations) {
        return new Budget(iterations, Duration.ZERO);
    }

    static Budget of(Duration duration) {
        return new Budget(0, duration);
    }

    /** A timed budget of no time: nothing to run. */
    boolean isEmpty() {
        return timed() && duration.isZero();
    }

    boolean timed() {
        return iterations == 0;
    }

    /** The {@link System#nanoTime} after which a timed phase stops starting operations. */
    long deadline(long startNanos) {
        return startNanos + duration.toNanos();
    }

    /**
     * Whether a phase on this budget starts no more operations, {@code started} having started: for a timed phase,
     * the clock is read only at every {@value #CLOCK_EVERY}th operation, so that a stream of 64-octet messages at
     * millions a second does not spend a tenth of its loop reading the clock (it did, in the reactive send); the
     * phase then runs at most {@value #CLOCK_EVERY} operations, microseconds, past its deadline.
     *
     * @param deadline {@link #deadline(long)} of the phase's start
     */
    boolean over(long started, long deadline) {
        return timed() ? started % CLOCK_EVERY == 0 && System.nanoTime() - deadline >= 0 : started >= iterations;
    }

    /** How long to wait for a phase on this budget before calling it stuck: a minute beyond what it should take. */
    long timeoutSeconds() {
        return 60 + duration.toSeconds() + iterations / 1000;
    }
}
