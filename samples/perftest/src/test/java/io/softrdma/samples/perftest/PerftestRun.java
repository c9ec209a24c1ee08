package io.softrdma.samples.perftest;

import io.softrdma.testing.MainRun;
import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * {@link PerftestMain#run} on a thread of its own, as a process would run it, with its standard output and error
 * captured ({@link MainRun}): the way tests run a server and a client against each other in one JVM.
 */
final class PerftestRun {
    private static final Pattern LISTENING = Pattern.compile(" Listening on port (\\d+)");

    private final MainRun run;

    private PerftestRun(MainRun run) {
        this.run = run;
    }

    static PerftestRun start(String... args) {
        return new PerftestRun(MainRun.start("perftest", PerftestMain::run, args));
    }

    /** Starts a server of {@code tool} on any free port ({@code -p 0}) and waits until it listens; {@code extra} follows {@code -R}. */
    static PerftestRun server(String tool, String... extra) throws Exception {
        String[] prefix = {tool, "-R", "-p", "0"};
        String[] args = new String[prefix.length + extra.length];
        System.arraycopy(prefix, 0, args, 0, prefix.length);
        System.arraycopy(extra, 0, args, prefix.length, extra.length);
        PerftestRun r = start(args);
        r.run.awaitOutput(LISTENING, Duration.ofSeconds(10));
        return r;
    }

    /** The port from the server's " Listening on port N" line. */
    int port() {
        Matcher m = LISTENING.matcher(run.out());
        if (!m.find()) {
            throw new IllegalStateException("not listening: " + run.out() + run.err());
        }
        return Integer.parseInt(m.group(1));
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
