package io.softrdma.samples.rping;

import java.io.PrintStream;

/**
 * Where rping's lines go: results and {@code -v}/{@code -d} output on {@code out}, errors on
 * {@code err}. Every line is flushed at once, since a harness reads them as they come (the server's
 * "listening on" line above all).
 *
 * <p>Thread safety: safe; a persistent server's connection threads share one.
 */
final class RpingConsole {
    private final PrintStream out;
    private final PrintStream err;
    private final boolean debug;

    RpingConsole(PrintStream out, PrintStream err, boolean debug) {
        this.out = out;
        this.err = err;
        this.debug = debug;
    }

    /** A line on standard output. */
    void line(String text) {
        synchronized (out) {
            out.println(text);
            out.flush();
        }
    }

    /** With {@code -d}: a line on standard output, marked as debug output. */
    void debug(String format, Object... args) {
        if (debug) {
            line("rping: debug: " + String.format(format, args));
        }
    }

    boolean debugging() {
        return debug;
    }

    /** The one line a failure gets on standard error. */
    void error(String message) {
        synchronized (err) {
            err.println("rping: error: " + message);
            err.flush();
        }
    }
}
