package io.softrdma.samples.perftest;

import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * {@link PerftestMain.run} on a thread of its own, as a process would run it, with its standard output
 * and error captured: the way tests run a server and a client against each other in one JVM.
 */
final class PerftestRun {
    private static final Pattern LISTENING = Pattern.compile(" Listening on port (\\d+)");

    private final Capture out = new Capture();
    private final Capture err = new Capture();
    private final CompletableFuture<Integer> exit = new CompletableFuture<>();
    private final Thread thread;

    private PerftestRun(String name, String... args) {
        thread = new Thread(() -> {
            try (PrintStream o = new PrintStream(out, true, StandardCharsets.UTF_8);
                    PrintStream e = new PrintStream(err, true, StandardCharsets.UTF_8)) {
                exit.complete(PerftestMain.run(args, o, e));
            } catch (Throwable t) {
                exit.completeExceptionally(t);
            }
        }, name);
        thread.setDaemon(true);
    }

    static PerftestRun start(String... args) {
        PerftestRun r = new PerftestRun("perftest " + String.join(" ", args), args);
        r.thread.start();
        return r;
    }

    /**
     * Starts a server of {@code tool} on any free port ({@code -p 0}) and waits until it listens; {@code extra}
     * follows {@code -R}.
     */
    static PerftestRun server(String tool, String... extra) throws Exception {
        String[] args = new String[extra.length + 4];
        System.arraycopy(new String[] {tool, "-R", "-p", "0"}, 0, args, 0, 4);
        System.arraycopy(extra, 0, args, 4, extra.length);
        PerftestRun r = start(args);
        r.out.await(LISTENING, Duration.ofSeconds(10), r);
        return r;
    }

    /** The port from the server's " Listening on port N" line. */
    int port() {
        Matcher m = LISTENING.matcher(out.text());
        if (!m.find()) {
            throw new IllegalStateException("not listening: " + out.text() + err.text());
        }
        return Integer.parseInt(m.group(1));
    }

    /** The exit status, waiting at most {@code timeout}. */
    int exitCode(Duration timeout) throws Exception {
        return exit.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
    }

    boolean finished() {
        return exit.isDone();
    }

    void interrupt() {
        thread.interrupt();
    }

    String out() {
        return out.text();
    }

    String err() {
        return err.text();
    }

    @Override
    public String toString() {
        return thread.getName() + "\n--- stdout:\n" + out.text() + "--- stderr:\n" + err.text();
    }

    /** Captured output that a test can wait on. */
    private static final class Capture extends OutputStream {
        private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();

        @Override
        public synchronized void write(int b) {
            bytes.write(b);
            notifyAll();
        }

        @Override
        public synchronized void write(byte[] b, int off, int len) {
            bytes.write(b, off, len);
            notifyAll();
        }

        synchronized String text() {
            return bytes.toString(StandardCharsets.UTF_8);
        }

        synchronized void await(Pattern p, Duration timeout, PerftestRun run) throws InterruptedException {
            long deadline = System.nanoTime() + timeout.toNanos();
            while (!p.matcher(text()).find()) {
                long left = deadline - System.nanoTime();
                if (left <= 0 || run.finished()) {
                    throw new IllegalStateException("no " + p + " from " + run);
                }
                TimeUnit.NANOSECONDS.timedWait(this, Math.min(left, TimeUnit.MILLISECONDS.toNanos(50)));
            }
        }
    }
}
