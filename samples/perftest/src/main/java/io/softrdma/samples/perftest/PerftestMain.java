package io.softrdma.samples.perftest;

import io.netty.util.concurrent.DefaultThreadFactory;
import io.softrdma.cm.ConnectionManager;
import io.softrdma.cm.RdmaTransport;
import io.softrdma.verbs.RdmaDevice;
import java.io.PrintStream;
import java.util.concurrent.TimeUnit;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * perftest's {@code ib_send_bw}, {@code ib_write_bw}, {@code ib_read_bw}, {@code ib_send_lat}, {@code ib_write_lat}
 * and {@code ib_read_lat} with {@code -R} on SoftRDMA, message for message as linux-rdma perftest 4.5-0.17 speaks
 * them over rdma_cm, so that either side can be a Linux perftest (siw, or any iWARP RNIC).
 *
 * <pre>
 *   java -jar perftest.jar ib_write_bw -R [-s SIZE | -a] [-n ITERS | -D SECONDS] [-q QPS] [--report_gbits]
 *   java -jar perftest.jar ib_write_bw -R ... SERVER
 * </pre>
 *
 * Exit status: 0 on success, 1 after a failure (one line on standard error starting with {@code "perftest: error: "}),
 * 2 for a bad command line (with the usage text).
 *
 * <p>Thread safety: {@link #run} may be called from several threads at once (each run has its own event loop and
 * buffers); it owns every buffer it registers and releases them before it returns.
 */
public final class PerftestMain {
    public static final int OK = 0;
    public static final int FAILED = 1;
    public static final int USAGE = 2;

    private PerftestMain() {
    }

    public static void main(String[] args) {
        // Netty's and SoftRDMA's warnings about a connection that ended would add lines to the one a failure gets.
        Logger.getLogger("").setLevel(Level.SEVERE);
        System.exit(run(args, System.out, System.err));
    }

    /** Runs one test with {@code args}; returns the exit status. */
    public static int run(String[] args, PrintStream out, PrintStream err) {
        if (PerftestOptions.wantsHelp(args)) {
            out.print(PerftestOptions.USAGE);
            out.flush();
            return OK;
        }
        PerftestOptions options;
        try {
            options = PerftestOptions.parse(args);
        } catch (IllegalArgumentException e) {
            err.println("perftest: " + e.getMessage());
            err.print(PerftestOptions.USAGE);
            err.flush();
            return USAGE;
        }
        RdmaTransport transport = RdmaTransport.best();
        // One event loop: every connection of a run shares it, and the test's thread does the rest.
        ConnectionManager cm = ConnectionManager.create(transport,
                transport.newEventLoopGroup(1, new DefaultThreadFactory("perftest", true)));
        try {
            new PerftestSession(options, cm, RdmaDevice.create("softrdma0"), out).run();
            return OK;
        } catch (PerftestException e) {
            err.println("perftest: error: " + e.getMessage());
            err.flush();
            return FAILED;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            err.println("perftest: error: interrupted");
            return FAILED;
        } catch (RuntimeException e) {
            err.println("perftest: error: unexpected failure: " + e);
            err.flush();
            return FAILED;
        } finally {
            cm.eventLoopGroup().shutdownGracefully(0, 2, TimeUnit.SECONDS).syncUninterruptibly();
        }
    }
}
