package io.softrdma.samples.perftest;

import io.softrdma.testing.MainRun;
import java.time.Duration;
import java.util.regex.Pattern;

/**
 * {@link PerftestMain#run} on a thread of its own, as a process would run it, with its standard output and error
 * captured ({@link MainRun}): the way tests run a server and a client against each other in one JVM.
 */
final class PerftestRun extends MainRun {
    private static final Pattern LISTENING = Pattern.compile(" Listening on port (\\d+)");

    private PerftestRun(String... args) {
        super("perftest", PerftestMain::run, args);
    }

    static PerftestRun start(String... args) {
        PerftestRun r = new PerftestRun(args);
        r.begin();
        return r;
    }

    /** Starts a server of {@code tool} on any free port ({@code -p 0}) and waits until it listens; {@code extra} follows {@code -R}. */
    static PerftestRun server(String tool, String... extra) throws Exception {
        String[] prefix = {tool, "-R", "-p", "0"};
        String[] args = new String[prefix.length + extra.length];
        System.arraycopy(prefix, 0, args, 0, prefix.length);
        System.arraycopy(extra, 0, args, prefix.length, extra.length);
        PerftestRun r = start(args);
        r.awaitOutput(LISTENING, Duration.ofSeconds(10));
        return r;
    }

    /** The port from the server's " Listening on port N" line. */
    int port() {
        return outputNumber(LISTENING, 1);
    }
}
