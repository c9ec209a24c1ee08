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

    /** How long to wait for a phase on this budget before calling it stuck: a minute beyond what it should take. */
    long timeoutSeconds() {
        return 60 + duration.toSeconds() + iterations / 1000;
    }
}
