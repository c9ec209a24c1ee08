package io.softrdma.samples.rping;

import static io.softrdma.samples.cli.OptionValues.wholeNumber;

import io.softrdma.mpa.MpaSettings;
import io.softrdma.mpa.PeerToPeerMode;
import io.softrdma.samples.cli.CommandLines;
import io.softrdma.samples.cli.OptionValues;
import java.time.Duration;
import java.util.Locale;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * The command line of the rping sample: rping's own options ({@code -s -c -a -p -C -S -v -V -d -P})
 * plus the MPA knobs a Linux peer sets with siw module parameters, and a bound on every wait.
 *
 * <p>Parsed by picocli as getopt would: single-letter flags may be grouped ({@code -vV}) and a value may
 * follow its letter directly ({@code -p7174}); long options take {@code --name value} or {@code --name=value}.
 *
 * <p>Thread safety: immutable.
 *
 * @param server {@code -s}: listen and serve pings; otherwise {@code -c}, connect and ping
 * @param address {@code -a}: the address to bind (server) or connect to (client)
 * @param port {@code -p}: the TCP port (server: 0 binds any free port)
 * @param count {@code -C}: pings the client sends, 0 for no limit (the server serves until the client
 *     disconnects, as rping's does)
 * @param size {@code -S}: octets per ping, 26 to 65535 as rping allows
 * @param verbose {@code -v}: print each ping's data
 * @param validate {@code -V}: check each ping's data
 * @param debug {@code -d}: print the connection's parameters and every message exchanged
 * @param persistent {@code -P}: the server keeps serving connections until it is killed
 * @param mpaRevision {@code --mpa-rev}: 2 (RFC 6581, IRD/ORD exchanged) or 1 (RFC 5044)
 * @param crc {@code --crc}: this side's MPA CRC preference (the C bit); CRCs are on when either side asks
 * @param peerToPeer {@code --p2p}: the RFC 6581 ready-to-receive messages the client offers, or the
 *     server accepts ({@code off}: the server accepts whatever the client offers)
 * @param timeout {@code --timeout}: the longest any single step (connect, accept, one step of a ping)
 *     may take; the server's MPA startup steps take at most {@link #STARTUP_STEP_CAP} of it
 * @param firstFpduProbe {@code --probe}: how long the client waits for any answer to its first FPDU
 *     before it sends one zero-length RDMA Write (see {@link MpaSettings#firstFpduProbe()}); zero: never
 */
public record RpingOptions(boolean server, String address, int port, int count, int size, boolean verbose,
        boolean validate, boolean debug, boolean persistent, int mpaRevision, boolean crc,
        PeerToPeerMode peerToPeer, Duration timeout, Duration firstFpduProbe) {

    /** rping's default port. */
    public static final int DEFAULT_PORT = 7174;
    /** rping's default ping size. */
    public static final int DEFAULT_SIZE = 64;
    /**
     * rping's RPING_MIN_BUFSIZE, {@code sizeof(stringify(INT_MAX)) + sizeof(RPING_MSG_FMT)}: room for
     * "rdma-ping-2147483647: " and its NUL.
     */
    public static final int MIN_SIZE = 26;
    /** rping's RPING_BUFSIZE - 1. */
    public static final int MAX_SIZE = 64 * 1024 - 1;
    /** The default bound on each step. */
    public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(30);

    /** The {@code --help} text, made by picocli from the options below. */
    static final String USAGE = CommandLines.usage(commandLine(new Cli()));

    /**
     * The longest a server-side MPA startup may wait for each of its two steps: the client's Request, however slowly
     * its octets arrive, and the server's decision to accept it (which rping makes at once). It is the library's
     * Request timeout, Linux siw's 5 s; a shorter {@code --timeout} shortens it. So a startup holds one of the
     * listener's startup slots ({@code StartupLimiter}) for at most twice this, whatever {@code --timeout} says.
     */
    public static final Duration STARTUP_STEP_CAP = MpaSettings.defaults().requestTimeout();

    /**
     * The MPA settings these options ask for. The client waits for the Reply as long as any step
     * ({@code --timeout}); the server waits for a Request, and for its own decision, at most
     * {@link #STARTUP_STEP_CAP}: a slow step timeout is for the pings, not for a peer that drips its Request.
     */
    public MpaSettings mpaSettings() {
        Duration startupStep = timeout.compareTo(STARTUP_STEP_CAP) < 0 ? timeout : STARTUP_STEP_CAP;
        return MpaSettings.defaults().withRevision(mpaRevision).withCrc(crc).withPeerToPeer(peerToPeer).toBuilder()
                .requestTimeout(startupStep).replyTimeout(timeout).acceptTimeout(startupStep)
                .firstFpduProbe(firstFpduProbe).build();
    }

    /** Whether the arguments ask for the usage text ({@code --help} anywhere). */
    static boolean wantsHelp(String[] args) {
        return CommandLines.wantsHelp(args);
    }

    /**
     * Parses a command line.
     *
     * @throws IllegalArgumentException naming the mistake, for the usage message
     */
    public static RpingOptions parse(String[] args) {
        Cli cli = new Cli();
        CommandLines.parse(commandLine(cli), args, "-");
        return cli.build();
    }

    private static CommandLine commandLine(Cli cli) {
        // getopt's ways: -vV, -p7174; and as rping, the last of a repeated option counts (CommandLines.create).
        return CommandLines.create(cli).setPosixClusteredShortOptionsAllowed(true);
    }

    /**
     * The command line as picocli reads it: the values as given, checked together by {@link #build()}; the usage
     * text is laid out by {@link CommandLines#create}.
     */
    @Command(name = "rping", customSynopsis = {
        "rping -s [-a ADDR] [-p PORT] [-S SIZE] [-v] [-V] [-d] [-P] [MPA options]",
        "       rping -c -a ADDR [-p PORT] [-C COUNT] [-S SIZE] [-v] [-V] [-d] [MPA options]"})
    private static final class Cli {
        @Option(names = "-s", description = "server: listen and serve pings")
        boolean server;
        @Option(names = "-c", description = "client: connect and ping")
        boolean client;
        @Option(names = "-a", paramLabel = "ADDR", description = "address to bind (server, default 0.0.0.0) or"
                + " connect to (client, required)")
        String address;
        @Option(names = "-p", paramLabel = "PORT", description = "TCP port (default 7174; a server may use 0 for"
                + " any free port)")
        String port;
        @Option(names = "-C", paramLabel = "COUNT", description = "pings the client sends (default 0: until"
                + " stopped); the server serves until the client disconnects")
        String count;
        @Option(names = "-S", paramLabel = "SIZE", description = "octets per ping, 26 to 65535 (default 64); a"
                + " server reads whatever size the client advertises, so the two need not match")
        String size;
        @Option(names = "-v", description = "print each ping's data")
        boolean verbose;
        @Option(names = "-V", description = "check each ping's data")
        boolean validate;
        @Option(names = "-d", description = "print the connection's parameters and the messages exchanged")
        boolean debug;
        @Option(names = "-P", description = "server: keep serving connections until killed")
        boolean persistent;
        @Option(names = "--mpa-rev", paramLabel = "1|2", description = "MPA revision: 2 (RFC 6581, exchanges"
                + " IRD/ORD; default) or 1 (RFC 5044; a Linux siw peer then has IRD=ORD=0 and cannot RDMA Read)")
        String mpaRevision;
        @Option(names = "--crc", paramLabel = "on|off", description = "request MPA CRCs (default off, like siw; on"
                + " if the peer asks)")
        String crc;
        @Option(names = "--p2p", paramLabel = "off|write|read|any", description = "RFC 6581 peer-to-peer"
                + " ready-to-receive message the client offers or the server accepts (default off: no P2P; a"
                + " server then accepts any)")
        String peerToPeer;
        @Option(names = "--timeout", paramLabel = "SECONDS", description = "the longest connect, accept or any"
                + " step of a ping may take (default 30); a server waits at most 5 s for a client's MPA Request")
        String timeout;
        @Option(names = "--probe", paramLabel = "MS", description = "client: if nothing answers its first message"
                + " for MS milliseconds, send one zero-length RDMA Write, which revives a Linux 6.1 siw server"
                + " that missed it (default 200; 0 turns it off)")
        String probe;
        @Option(names = {"-h", "--help"}, usageHelp = true, description = "this text")
        boolean help;

        RpingOptions build() {
            if (server && client) {
                throw new IllegalArgumentException("-s and -c exclude each other: one process serves, the other"
                        + " pings");
            }
            if (!server && !client) {
                throw new IllegalArgumentException("say -s (server) or -c (client)");
            }
            if (address != null && address.isBlank()) {
                throw new IllegalArgumentException("-a needs an address");
            }
            Integer port = this.port == null ? null : (int) wholeNumber(this.port, "-p", 0, 65535);
            int count = this.count == null ? 0 : (int) wholeNumber(this.count, "-C", 0, Integer.MAX_VALUE);
            int size = this.size == null ? DEFAULT_SIZE : (int) wholeNumber(this.size, "-S", MIN_SIZE, MAX_SIZE,
                    " (rping's RPING_MIN_BUFSIZE to RPING_BUFSIZE - 1)");
            int mpaRevision = this.mpaRevision == null ? MpaSettings.REVISION_2 : switch (this.mpaRevision) {
                case "1" -> MpaSettings.REVISION_1;
                case "2" -> MpaSettings.REVISION_2;
                default -> throw new IllegalArgumentException("--mpa-rev " + this.mpaRevision + ": use 1 or 2");
            };
            boolean crc = this.crc != null && OptionValues.onOff(this.crc, "--crc");
            PeerToPeerMode peerToPeer = this.peerToPeer == null ? PeerToPeerMode.OFF
                    : switch (this.peerToPeer.toLowerCase(Locale.ROOT)) {
                        case "off" -> PeerToPeerMode.OFF;
                        case "write" -> PeerToPeerMode.WRITE;
                        case "read" -> PeerToPeerMode.READ;
                        case "any" -> PeerToPeerMode.ANY;
                        default -> throw new IllegalArgumentException("--p2p " + this.peerToPeer
                                + ": use off, write, read or any");
                    };
            Duration timeout = this.timeout == null ? DEFAULT_TIMEOUT : OptionValues.timeout(this.timeout, "--timeout");
            Duration firstFpduProbe = probe == null ? MpaSettings.defaults().firstFpduProbe()
                    : Duration.ofMillis(wholeNumber(probe, "--probe", 0, 60_000));
            if (client && address == null) {
                throw new IllegalArgumentException("the client needs -a ADDR, the server's address");
            }
            if (client && port != null && port == 0) {
                throw new IllegalArgumentException("-p 0 is not a server's port: give the port the server listens on");
            }
            if (client && persistent) {
                throw new IllegalArgumentException("-P (persistent) is a server option; the client ends after -C pings");
            }
            if (mpaRevision == MpaSettings.REVISION_1 && peerToPeer != PeerToPeerMode.OFF) {
                throw new IllegalArgumentException("--p2p " + peerToPeer.name().toLowerCase(Locale.ROOT)
                        + " needs --mpa-rev 2: peer-to-peer setup is part of RFC 6581's enhanced MPA");
            }
            return new RpingOptions(server, address != null ? address : "0.0.0.0", port != null ? port : DEFAULT_PORT,
                    count, size, verbose, validate, debug, persistent, mpaRevision, crc, peerToPeer, timeout,
                    firstFpduProbe);
        }
    }
}
