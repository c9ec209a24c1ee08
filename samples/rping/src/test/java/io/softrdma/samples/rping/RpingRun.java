package io.softrdma.samples.rping;

import io.softrdma.testing.MainRun;
import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * {@link RpingMain#run} on a thread of its own, as a process would run it, with its standard output and error
 * captured ({@link MainRun}): the way tests run a server and a client against each other in one JVM.
 */
final class RpingRun {
    private static final Pattern LISTENING = Pattern.compile("rping: listening on (\\S+):(\\d+)");

    private final MainRun run;

    private RpingRun(MainRun run) {
        this.run = run;
    }

    static RpingRun start(String... args) {
        return new RpingRun(MainRun.start("rping", RpingMain::run, args));
    }

    /** Starts a server on 127.0.0.1, any free port, and waits until it listens. */
    static RpingRun server(String... extra) throws Exception {
        String[] prefix = {"-s", "-a", "127.0.0.1", "-p", "0"};
        String[] args = new String[prefix.length + extra.length];
        System.arraycopy(prefix, 0, args, 0, prefix.length);
        System.arraycopy(extra, 0, args, prefix.length, extra.length);
        RpingRun r = start(args);
        r.run.awaitOutput(LISTENING, Duration.ofSeconds(10));
        return r;
    }

    /** The port from the server's "rping: listening on HOST:PORT" line. */
    int port() {
        Matcher m = LISTENING.matcher(run.out());
        if (!m.find()) {
            throw new IllegalStateException("not listening: " + run.out() + run.err());
        }
        return Integer.parseInt(m.group(2));
    }

    /** The exit status, waiting at most {@code timeout}. */
    int exitCode(Duration timeout) throws Exception {
        return run.exitCode(timeout);
    }

    boolean finished() {
        return run.finished();
    }

    void interrupt() {
        run.interrupt();
    }

    String out() {
        return run.out();
    }

    String err() {
        return run.err();
    }

    @Override
    public String toString() {
        return run.toString();
    }
}
