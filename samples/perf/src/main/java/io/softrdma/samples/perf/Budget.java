package io.softrdma.samples.perf;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * How long a bandwidth phase runs: a fixed number of operations, or for a time after which no new
 * operation starts (those in flight still finish and count). A warm-up is timed and also runs at least
 * {@code minimum} operations, for no more than {@code overtime} beyond its time.
 *
 * @param iterations the operations to run, or 0 when the phase is timed
 * @param duration how long a timed phase starts operations
 * @param minimum the operations a timed phase starts at least, however long its time
 * @param overtime how long past its time a timed phase may run to reach {@code minimum}
 */
record Budget(long iterations, Duration duration, long minimum, Duration overtime) {
    /** A timed phase reads the clock once in this many operations ({@link #over}). */
    static final int CLOCK_EVERY = 64;

    static Budget of(long iterations) {
        return new Budget(iterations, Duration.ZERO, 0, Duration.ZERO);
    }

    static Budget of(Duration duration) {
        return new Budget(0, duration, 0, Duration.ZERO);
    }

    /**
     * A warm-up of {@code duration} that goes on until {@code minimum} operations have started, but for no more than
     * {@code overtime} beyond {@code duration}; no time means no warm-up.
     */
    static Budget warmup(Duration duration, long minimum, Duration overtime) {
        return duration.isZero() ? of(duration) : new Budget(0, duration, minimum, overtime);
    }

    /**
     * A measured phase cut into {@code rounds} turns, in order: {@code iterations} shared out (the first turns take the
     * remainder, and there are no more turns than operations), or, with no iterations, {@code duration} cut into equal
     * parts. Together they are the phase's budget, so a row counts {@code iterations} operations whatever the rounds.
     */
    static List<Budget> turns(long iterations, Duration duration, int rounds) {
        List<Budget> turns = new ArrayList<>();
        if (iterations > 0) {
            long n = Math.min(rounds, iterations);
            for (long i = 0; i < n; i++) {
                turns.add(of(iterations / n + (i < iterations % n ? 1 : 0)));
            }
        } else {
            for (int i = 0; i < rounds; i++) {
                turns.add(of(duration.dividedBy(rounds)));
            }
        }
        return turns;
    }

    /** A timed budget of no time: nothing to run. */
    boolean isEmpty() {
        return timed() && duration.isZero();
    }

    boolean timed() {
        return iterations == 0;
    }

    /** The {@link System#nanoTime} after which a timed phase stops starting operations, its minimum reached. */
    long deadline(long startNanos) {
        return startNanos + duration.toNanos();
    }

    /**
     * Whether a phase on this budget starts no more operations, {@code started} having started: for a timed phase,
     * the clock is read only at every {@value #CLOCK_EVERY}th operation, so that a stream of 64-octet messages at
     * millions a second does not spend a tenth of its loop reading the clock (it did, in the reactive send); the
     * phase then runs at most {@value #CLOCK_EVERY} operations, microseconds, past its deadline (or its minimum).
     *
     * @param deadline {@link #deadline(long)} of the phase's start
     */
    boolean over(long started, long deadline) {
        if (!timed()) {
            return started >= iterations;
        }
        if (started % CLOCK_EVERY != 0) {
            return false;
        }
        long past = System.nanoTime() - deadline;
        return past >= 0 && (started >= minimum || past >= overtime.toNanos());
    }

    /** How long to wait for a phase on this budget before calling it stuck: a minute beyond what it should take. */
    long timeoutSeconds() {
        return 60 + duration.toSeconds() + overtime.toSeconds() + iterations / 1000;
    }
}
