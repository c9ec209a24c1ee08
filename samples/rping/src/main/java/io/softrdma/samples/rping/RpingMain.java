package io.softrdma.samples.rping;

import io.netty.util.concurrent.DefaultThreadFactory;
import io.softrdma.cm.ConnectionManager;
import io.softrdma.cm.RdmaTransport;
import io.softrdma.verbs.RdmaDevice;
import java.io.PrintStream;
import java.util.concurrent.TimeUnit;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * {@code rping} on SoftRDMA: the ping-pong of librdmacm's {@code examples/rping.c}, message for message
 * and octet for octet, so that either side can face a Linux rping (siw, or any iWARP RNIC).
 *
 * <pre>
 *   java -jar rping.jar -s [-a ADDR] [-p PORT] [-v] [-V] [-P] ...
 *   java -jar rping.jar -c -a ADDR [-p PORT] [-C COUNT] [-S SIZE] [-v] [-V] ...
 * </pre>
 *
 * Exit status: 0 on success, 1 after a failure (one line on standard error starting with
 * {@code "rping: error: "}), 2 for a bad command line (with the usage text).
 *
 * @see RpingOptions for every option
 */
public final class RpingMain {
    /** Success. */
    public static final int OK = 0;
    /** The run failed. */
    public static final int FAILED = 1;
    /** The command line was wrong. */
    public static final int USAGE = 2;

    private RpingMain() {
    }

    public static void main(String[] args) {
        if (!RpingOptions.wantsHelp(args) && !debugRequested(args)) {
            // Netty and SoftRDMA log through java.util.logging here: their warnings about a connection
            // that ended would add lines to the one a failure gets. -d shows them.
            Logger.getLogger("").setLevel(Level.SEVERE);
        }
        System.exit(run(args, System.out, System.err));
    }

    private static boolean debugRequested(String[] args) {
        try {
            return RpingOptions.parse(args).debug();
        } catch (IllegalArgumentException e) {
            return false; // run() reports it
        }
    }

    /**
     * Runs rping with {@code args}, printing to {@code out} and {@code err}; returns the exit status.
     * A server with {@code -P} runs until its thread is interrupted.
     */
    public static int run(String[] args, PrintStream out, PrintStream err) {
        if (RpingOptions.wantsHelp(args)) {
            out.print(RpingOptions.USAGE);
            out.flush();
            return OK;
        }
        RpingOptions options;
        try {
            options = RpingOptions.parse(args);
        } catch (IllegalArgumentException e) {
            err.println("rping: " + e.getMessage());
            err.print(RpingOptions.USAGE);
            err.flush();
            return USAGE;
        }
        RpingConsole console = new RpingConsole(out, err, options.debug());
        RdmaTransport transport = RdmaTransport.best();
        // One event loop: rping has one connection (a few with -P) and one message in flight on each.
        ConnectionManager cm = ConnectionManager.create(transport,
                transport.newEventLoopGroup(1, new DefaultThreadFactory("rping", true)));
        try {
            RdmaDevice device = RdmaDevice.create("softrdma0");
            if (options.server()) {
                try (RpingServer server = new RpingServer(options, cm, device, console)) {
                    console.line("rping: listening on " + RpingServer.format(server.localAddress()));
                    server.run();
                }
            } else {
                int pings = new RpingClient(options, cm, device, console).run();
                console.line("rping: " + pings + " pings completed" + (options.validate() ? ", data verified" : ""));
            }
            return OK;
        } catch (RpingException e) {
            console.error(e.getMessage());
            return FAILED;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            if (options.server() && options.persistent()) {
                return OK; // how a persistent server is stopped in-process
            }
            console.error("interrupted");
            return FAILED;
        } catch (RuntimeException e) {
            // A bug rather than a protocol event: still one line, with what it was.
            console.error("unexpected failure: " + e);
            return FAILED;
        } finally {
            cm.eventLoopGroup().shutdownGracefully(0, 2, TimeUnit.SECONDS).syncUninterruptibly();
        }
    }
}
