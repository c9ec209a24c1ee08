package io.softrdma.samples.perf;

import java.io.PrintStream;
import java.util.concurrent.atomic.AtomicLong;

/** A progress line on a terminal, redrawn five times a second by a daemon thread. */
final class Progress implements AutoCloseable {
    private final PrintStream out;
    private final String label;
    private final long total;
    private final AtomicLong done;
    private final Thread thread;

    private Progress(PrintStream out, String label, long total, AtomicLong done) {
        this.out = out;
        this.label = label;
        this.total = total;
        this.done = done;
        this.thread = new Thread(this::run, "perf-progress");
        this.thread.setDaemon(true);
    }

    /** Shows progress when enabled and stdout is a terminal; otherwise does nothing. */
    static Progress start(boolean enabled, String label, long total, AtomicLong done) {
        Progress p = new Progress(System.out, label, total, done);
        if (enabled && System.console() != null) {
            p.thread.start();
        }
        return p;
    }

    private void run() {
        try {
            while (!Thread.currentThread().isInterrupted()) {
                long d = done.get();
                out.printf("\r%-28s %5.1f%%  (%d of %d)", label, 100.0 * d / total, d, total);
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
            out.print("\r" + " ".repeat(70) + "\r");
            out.flush();
        }
    }
}
