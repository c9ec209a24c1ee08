package io.softrdma.samples.perftest;

import static io.softrdma.samples.cli.OptionValues.wholeNumber;

import io.softrdma.mpa.MpaSettings;
import io.softrdma.mpa.PeerToPeerMode;
import io.softrdma.samples.cli.CommandLines;
import io.softrdma.samples.cli.OptionValues;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * A perftest command line: the program (ib_write_bw, ...), perftest's flags that mean something here, with their
 * meaning and defaults from perftest 4.5-0.17's {@code perftest_parameters.c}, and the server's name for a client.
 *
 * @param tool which of the six tests
 * @param server the server to connect to (client), or null (server)
 * @param port the TCP port of both the control and the data connections ({@code -p}, default 18515)
 * @param size octets per message ({@code -s}; with {@code -a} the largest of 2, 4, ... 8 MiB is 8 MiB)
 * @param iterations messages per QP and size ({@code -n}); ignored with {@code -D}
 * @param duration seconds to run ({@code -D}), or 0 to count iterations
 * @param qps data connections ({@code -q})
 * @param all every size 2^1 .. 2^23 ({@code -a})
 * @param gbits report Gb/s rather than MB/s ({@code --report_gbits})
 * @param txDepth send work requests outstanding per QP ({@code -t})
 * @param rxDepth receives posted per QP for Send tests ({@code -r})
 * @param outReads RDMA Reads outstanding per QP ({@code -o}); also the IRD/ORD offered for Read tests
 * @param timeout how long any one step (connect, a handshake, a completion) may take before the run fails
 * @param verify check what a Send carries and what a Read returns against this sample's fill pattern: only
 *     meaningful when the peer is this sample too (perftest fills its buffers with random octets)
 * @param crc ask for MPA CRCs (siw asks for them only with its {@code mpa_crc_required})
 * @param peerToPeer the RFC 6581 ready-to-receive message a client offers on its data connections: a Write by
 *     default for ib_write_lat, whose server sends first — which an MPA responder may only do once the initiator's
 *     first FPDU came (RFC 5044 §7.1.2) — and none for the other tests, whose clients send first
 *
 * <p>Thread safety: immutable.
 */
record PerftestOptions(Tool tool, String server, int port, int size, int iterations, int duration, int qps,
        boolean all, boolean gbits, int txDepth, int rxDepth, int outReads, Duration timeout, boolean verify,
        boolean crc, PeerToPeerMode peerToPeer) {

    static final int DEFAULT_PORT = 18515;
    /** perftest's MAX_SIZE: the buffer size with {@code -a}, 2^23. */
    static final int MAX_SIZE = 8388608;
    /** Out of perftest's range checks: at least 5 iterations (MIN_ITER). */
    static final int MIN_ITERATIONS = 5;
    /** Reads outstanding when {@code -o} is not given: siw's max_qp_rd_atom, which perftest would use there. */
    static final int DEFAULT_OUT_READS = 128;
    static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(60);

    static final String USAGE = CommandLines.usage(commandLine(new Cli()));

    boolean client() {
        return server != null;
    }

    /** The sizes to run: 2, 4, ... 8 MiB with -a, else -s. */
    List<Integer> sizes() {
        if (!all) {
            return List.of(size);
        }
        Integer[] s = new Integer[23];
        for (int i = 1; i < 24; i++) {
            s[i - 1] = 1 << i;
        }
        return List.of(s);
    }

    /** The largest message: what the buffers are sized by (perftest's size after force_dependecies). */
    int maxSize() {
        return all ? MAX_SIZE : size;
    }

    /** perftest's BUFF_SIZE(size, cycle_buffer): at least a page, since smaller messages cycle through one. */
    int bufferSize() {
        return Math.max(maxSize(), 4096);
    }

    /** The control connection's MPA settings: the client sends first there, so no peer-to-peer mode. */
    MpaSettings mpaSettings() {
        return mpaSettings(PeerToPeerMode.OFF);
    }

    /** The data connections' MPA settings. */
    MpaSettings dataMpaSettings() {
        return mpaSettings(client() ? peerToPeer : PeerToPeerMode.OFF);
    }

    private MpaSettings mpaSettings(PeerToPeerMode p2p) {
        return MpaSettings.defaults().withCrc(crc).withPeerToPeer(p2p).toBuilder().requestTimeout(timeout).replyTimeout(timeout)
                .acceptTimeout(timeout).build();
    }

    static boolean wantsHelp(String[] args) {
        return CommandLines.wantsHelp(args);
    }

    /**
     * @throws IllegalArgumentException naming the mistake
     */
    static PerftestOptions parse(String[] args) {
        Cli cli = new Cli();
        CommandLines.parse(commandLine(cli), args, "-");
        return cli.build();
    }

    private static CommandLine commandLine(Cli cli) {
        return CommandLines.create(cli).setPosixClusteredShortOptionsAllowed(true);
    }

    @Command(name = "perftest", customSynopsis = {
        "perftest TEST -R [-p PORT] [-s SIZE | -a] [-n ITERS | -D SECONDS] [-q QPS] [--report_gbits] [SERVER]",
        "  TEST: ib_send_bw ib_write_bw ib_read_bw ib_send_lat ib_write_lat ib_read_lat; no SERVER: be the server"})
    private static final class Cli {
        @Parameters(index = "0", paramLabel = "TEST", description = "which perftest program to be")
        String tool;
        @Parameters(index = "1", arity = "0..1", paramLabel = "SERVER", description = "the server to connect to;"
                + " without it, listen as the server")
        String server;
        @Option(names = {"-R", "--rdma_cm"}, description = "connect with rdma_cm, exchanging parameters over it too:"
                + " the only way this sample connects, so required (as perftest needs it against iWARP)")
        boolean rdmaCm;
        @Option(names = {"-p", "--port"}, paramLabel = "PORT", description = "TCP port (default 18515; a server may use 0 for"
                + " any free port, and then prints it)")
        String port;
        @Option(names = {"-s", "--size"}, paramLabel = "SIZE", description = "octets per message (default 65536 for"
                + " _bw, 2 for _lat)")
        String size;
        @Option(names = {"-n", "--iters"}, paramLabel = "ITERS", description = "messages per QP (default 5000 for"
                + " ib_write_bw, 1000 otherwise)")
        String iterations;
        @Option(names = {"-D", "--duration"}, paramLabel = "SECONDS", description = "run for SECONDS instead of"
                + " ITERS messages")
        String duration;
        @Option(names = {"-q", "--qp"}, paramLabel = "QPS", description = "data connections (default 1)")
        String qps;
        @Option(names = {"-a", "--all"}, description = "every size from 2 to 2^23 octets")
        boolean all;
        @Option(names = "--report_gbits", description = "report Gb/s instead of MB/s")
        boolean gbits;
        @Option(names = {"-t", "--tx-depth"}, paramLabel = "DEPTH", description = "sends outstanding (default 128"
                + " for _bw, 1 for _lat)")
        String txDepth;
        @Option(names = {"-r", "--rx-depth"}, paramLabel = "DEPTH", description = "receives posted for Send tests"
                + " (default 512)")
        String rxDepth;
        @Option(names = {"-o", "--outs"}, paramLabel = "READS", description = "RDMA Reads outstanding (default 128,"
                + " siw's maximum)")
        String outReads;
        @Option(names = {"-d", "--ib-dev"}, paramLabel = "DEV", description = "accepted for perftest's sake;"
                + " SoftRDMA has one device")
        String device;
        @Option(names = {"-F", "--CPU-freq"}, description = "accepted for perftest's sake (no CPU frequency check"
                + " here)")
        boolean cpuFreq;
        @Option(names = "--timeout", paramLabel = "SECONDS", description = "longest any step may take (default 60)")
        String timeout;
        @Option(names = "--verify", description = "check Send payloads and Read results against this sample's"
                + " pattern: for a peer that is this sample too")
        boolean verify;
        @Option(names = "--crc", paramLabel = "on|off", description = "ask for MPA CRCs (default off)")
        String crc;
        @Option(names = "--p2p", paramLabel = "off|write|read", description = "client: the RFC 6581 peer-to-peer"
                + " ready-to-receive message offered on the data connections (default write for ib_write_lat, whose"
                + " server sends first, off otherwise)")
        String peerToPeer;
        @Option(names = {"-h", "--help"}, usageHelp = true, description = "this text")
        boolean help;

        PerftestOptions build() {
            Tool t = Tool.parse(tool);
            if (!rdmaCm) {
                throw new IllegalArgumentException("give -R: this sample exchanges perftest's parameters over rdma_cm"
                        + " only (perftest's TCP socket exchange is not implemented)");
            }
            if (size != null && all) {
                throw new IllegalArgumentException("-s and -a exclude each other: -a runs every size");
            }
            if (iterations != null && duration != null) {
                throw new IllegalArgumentException("-n and -D exclude each other");
            }
            if (duration != null && all) {
                throw new IllegalArgumentException("-D and -a exclude each other (as in perftest)");
            }
            int port = this.port == null ? DEFAULT_PORT : (int) wholeNumber(this.port, "-p", 0, 65535);
            if (port == 0 && server != null) {
                throw new IllegalArgumentException("-p 0 is for a server (any free port): give the client the port"
                        + " the server listens on");
            }
            int size = this.size == null ? t.defaultSize() : (int) wholeNumber(this.size, "-s", 1, MAX_SIZE);
            int iters = iterations == null ? t.defaultIterations()
                    : (int) wholeNumber(iterations, "-n", MIN_ITERATIONS, 100_000_000);
            int duration = this.duration == null ? 0 : (int) wholeNumber(this.duration, "-D", 1, 86_400);
            int qps = this.qps == null ? 1 : (int) wholeNumber(this.qps, "-q", 1, 64);
            int tx = txDepth == null ? t.defaultTxDepth() : (int) wholeNumber(txDepth, "-t", 1, 16384);
            int rx = rxDepth == null ? t.defaultRxDepth() : (int) wholeNumber(rxDepth, "-r", 1, 16384);
            if (duration == 0) {
                // perftest's force_dependecies: no deeper than there are iterations
                tx = Math.min(tx, iters);
                rx = Math.min(rx, iters);
            }
            int outs = outReads == null ? DEFAULT_OUT_READS : (int) wholeNumber(outReads, "-o", 1, 128);
            Duration timeout = this.timeout == null ? DEFAULT_TIMEOUT : OptionValues.timeout(this.timeout, "--timeout");
            boolean crc = this.crc != null && OptionValues.onOff(this.crc, "--crc");
            if (server != null && server.isBlank()) {
                throw new IllegalArgumentException("SERVER must not be empty");
            }
            PeerToPeerMode p2p = peerToPeer == null ? (t == Tool.WRITE_LAT ? PeerToPeerMode.WRITE : PeerToPeerMode.OFF)
                    : switch (peerToPeer.toLowerCase(Locale.ROOT)) {
                        case "off" -> PeerToPeerMode.OFF;
                        case "write" -> PeerToPeerMode.WRITE;
                        case "read" -> PeerToPeerMode.READ;
                        default -> throw new IllegalArgumentException("--p2p " + peerToPeer + ": use off, write or read");
                    };
            if (server == null && peerToPeer != null) {
                throw new IllegalArgumentException("--p2p is a client option: a server accepts whatever is offered");
            }
            return new PerftestOptions(t, server, port, size, iters, duration, qps, all, gbits, tx, rx, outs, timeout,
                    verify, crc, p2p);
        }
    }
}
