package io.softrdma.testing;

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
 * A sample's {@code run(args, out, err)} on a thread of its own, as a process would run it, with its standard output
 * and error captured: the way the samples' tests run a server and a client against each other in one JVM.
 *
 * A sample's own runner extends it with how to start its server and read its port.
 *
 * <p>Thread safety: any thread; the captured output may be read while the run goes on.
 */
public class MainRun {
    /** A sample's entry point: its exit status for {@code args}, printing to {@code out} and {@code err}. */
    @FunctionalInterface
    public interface Main {
        int run(String[] args, PrintStream out, PrintStream err) throws Exception;
    }

    private final Capture out = new Capture();
    private final Capture err = new Capture();
    private final CompletableFuture<Integer> exit = new CompletableFuture<>();
    private final Thread thread;

    /** A run not started yet: {@link #begin} starts it. */
    protected MainRun(String name, Main main, String... args) {
        thread = new Thread(() -> {
            try (PrintStream o = new PrintStream(out, true, StandardCharsets.UTF_8);
                    PrintStream e = new PrintStream(err, true, StandardCharsets.UTF_8)) {
                exit.complete(main.run(args, o, e));
            } catch (Throwable t) {
                exit.completeExceptionally(t);
            }
        }, name + " " + String.join(" ", args));
        thread.setDaemon(true);
    }

    /** Starts {@code main} with {@code args} on a daemon thread named {@code name} and the arguments. */
    public static MainRun start(String name, Main main, String... args) {
        MainRun r = new MainRun(name, main, args);
        r.begin();
        return r;
    }

    /** Starts the run's thread. */
    protected final void begin() {
        thread.start();
    }

    /** The whole number in group {@code group} of the first match of {@code p} in standard output. */
    protected final int outputNumber(Pattern p, int group) {
        Matcher m = p.matcher(out());
        if (!m.find()) {
            throw new IllegalStateException("no " + p + " in the output of " + this);
        }
        return Integer.parseInt(m.group(group));
    }

    /** Waits until standard output matches {@code p}; fails if the run ends first or {@code timeout} passes. */
    public Matcher awaitOutput(Pattern p, Duration timeout) throws InterruptedException {
        return out.await(p, timeout, this);
    }

    /** The exit status, waiting at most {@code timeout}. */
    public int exitCode(Duration timeout) throws Exception {
        return exit.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
    }

    public boolean finished() {
        return exit.isDone();
    }

    public void interrupt() {
        thread.interrupt();
    }

    public String out() {
        return out.text();
    }

    public String err() {
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

        synchronized Matcher await(Pattern p, Duration timeout, MainRun run) throws InterruptedException {
            long deadline = System.nanoTime() + timeout.toNanos();
            Matcher m;
            while (!(m = p.matcher(text())).find()) {
                long left = deadline - System.nanoTime();
                if (left <= 0 || run.finished()) {
                    throw new IllegalStateException("no " + p + " from " + run);
                }
                TimeUnit.NANOSECONDS.timedWait(this, Math.min(left, TimeUnit.MILLISECONDS.toNanos(50)));
            }
            return m;
        }
    }
}
