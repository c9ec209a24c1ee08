package io.softrdma.samples.perf;

import java.io.PrintStream;
import java.util.concurrent.atomic.AtomicLong;

/** A progress line on a terminal, redrawn five times a second by a daemon thread. */
final class Progress implements AutoCloseable {
    private final PrintStream out;
    private final String label;
    private final Budget budget;
    private final AtomicLong done;
    private final Thread thread;
    /** When the measured part began; 0 while warming up. */
    private volatile long start;

    private Progress(PrintStream out, String label, Budget budget, AtomicLong done) {
        this.out = out;
        this.label = label;
        this.budget = budget;
        this.done = done;
        this.thread = new Thread(this::run, "perf-progress");
        this.thread.setDaemon(true);
    }

    /**
     * Shows progress when enabled and stdout is a terminal; otherwise does nothing. It shows a warm-up
     * until {@link #measuring} unless {@code measuredFromStart}.
     */
    static Progress start(boolean enabled, String label, Budget budget, AtomicLong done, boolean measuredFromStart) {
        Progress p = new Progress(System.out, label, budget, done);
        if (measuredFromStart) {
            p.measuring();
        }
        if (enabled && System.console() != null) {
            p.thread.start();
        }
        return p;
    }

    /** The warm-up is over: progress counts from now. */
    void measuring() {
        start = System.nanoTime();
    }

    private void run() {
        try {
            while (!Thread.currentThread().isInterrupted()) {
                if (start == 0) {
                    out.printf("\r%-32s warming up%20s", label, "");
                    out.flush();
                    Thread.sleep(200);
                    continue;
                }
                long d = done.get();
                double fraction = budget.timed()
                        ? (System.nanoTime() - start) / (double) Math.max(1, budget.duration().toNanos())
                        : d / (double) budget.iterations();
                out.printf("\r%-32s %5.1f%%  (%d done)", label, 100 * Math.min(1, fraction), d);
                out.flush();
                Thread.sleep(200);
            }
        } catch (InterruptedException e) {
            // closing
        }
    }

    @Override
    public void close() {
        if (thread.isAlive()) {
            thread.interrupt();
            try {
                thread.join(1000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            out.print("\r" + " ".repeat(72) + "\r");
            out.flush();
        }
    }
}
