package io.softrdma.samples.rping;

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
 * {@link RpingMain#run} on a thread of its own, as a process would run it, with its standard output
 * and error captured: the way tests run a server and a client against each other in one JVM.
 */
final class RpingRun {
    private static final Pattern LISTENING = Pattern.compile("rping: listening on (\\S+):(\\d+)");

    private final Capture out = new Capture();
    private final Capture err = new Capture();
    private final CompletableFuture<Integer> exit = new CompletableFuture<>();
    private final Thread thread;

    private RpingRun(String name, String... args) {
        thread = new Thread(() -> {
            try (PrintStream o = new PrintStream(out, true, StandardCharsets.UTF_8);
                    PrintStream e = new PrintStream(err, true, StandardCharsets.UTF_8)) {
                exit.complete(RpingMain.run(args, o, e));
            } catch (Throwable t) {
                exit.completeExceptionally(t);
            }
        }, name);
        thread.setDaemon(true);
    }

    static RpingRun start(String... args) {
        RpingRun r = new RpingRun("rping " + String.join(" ", args), args);
        r.thread.start();
        return r;
    }

    /** Starts a server on 127.0.0.1, any free port, and waits until it listens; returns its port. */
    static RpingRun server(String... extra) throws Exception {
        String[] args = new String[extra.length + 5];
        System.arraycopy(new String[] {"-s", "-a", "127.0.0.1", "-p", "0"}, 0, args, 0, 5);
        System.arraycopy(extra, 0, args, 5, extra.length);
        RpingRun r = start(args);
        r.out.await(LISTENING, Duration.ofSeconds(10), r);
        return r;
    }

    /** The port from the server's "rping: listening on HOST:PORT" line. */
    int port() {
        Matcher m = LISTENING.matcher(out.text());
        if (!m.find()) {
            throw new IllegalStateException("not listening: " + out.text() + err.text());
        }
        return Integer.parseInt(m.group(2));
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

        synchronized void await(Pattern p, Duration timeout, RpingRun run) throws InterruptedException {
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
