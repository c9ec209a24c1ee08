package io.softrdma.samples.rping;

import io.softrdma.testing.MainRun;
import java.time.Duration;
import java.util.regex.Pattern;

/**
 * {@link RpingMain#run} on a thread of its own, as a process would run it, with its standard output and error
 * captured ({@link MainRun}): the way tests run a server and a client against each other in one JVM.
 */
final class RpingRun extends MainRun {
    private static final Pattern LISTENING = Pattern.compile("rping: listening on (\\S+):(\\d+)");

    private RpingRun(String... args) {
        super("rping", RpingMain::run, args);
    }

    static RpingRun start(String... args) {
        RpingRun r = new RpingRun(args);
        r.begin();
        return r;
    }

    /** Starts a server on 127.0.0.1, any free port, and waits until it listens. */
    static RpingRun server(String... extra) throws Exception {
        String[] prefix = {"-s", "-a", "127.0.0.1", "-p", "0"};
        String[] args = new String[prefix.length + extra.length];
        System.arraycopy(prefix, 0, args, 0, prefix.length);
        System.arraycopy(extra, 0, args, prefix.length, extra.length);
        RpingRun r = start(args);
        r.awaitOutput(LISTENING, Duration.ofSeconds(10));
        return r;
    }

    /** The port from the server's "rping: listening on HOST:PORT" line. */
    int port() {
        return outputNumber(LISTENING, 2);
    }
}
