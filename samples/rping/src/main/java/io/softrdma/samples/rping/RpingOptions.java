package io.softrdma.samples.rping;

import io.softrdma.mpa.MpaSettings;
import io.softrdma.mpa.PeerToPeerMode;
import java.time.Duration;
import java.util.Locale;

/**
 * The command line of the rping sample: rping's own options ({@code -s -c -a -p -C -S -v -V -d -P})
 * plus the MPA knobs a Linux peer sets with siw module parameters, and a bound on every wait.
 *
 * <p>Parsed as getopt would: single-letter flags may be grouped ({@code -vV}) and a value may follow
 * its letter directly ({@code -p7174}); long options take {@code --name value} or {@code --name=value}.
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
 *     may take
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

    static final String USAGE = """
            usage: rping -s [-a ADDR] [-p PORT] [-S SIZE] [-v] [-V] [-d] [-P] [MPA options]
                   rping -c -a ADDR [-p PORT] [-C COUNT] [-S SIZE] [-v] [-V] [-d] [MPA options]

              -s                 server: listen and serve pings
              -c                 client: connect and ping
              -a ADDR            address to bind (server, default 0.0.0.0) or connect to (client, required)
              -p PORT            TCP port (default 7174; a server may use 0 for any free port)
              -C COUNT           pings the client sends (default 0: until stopped); the server serves
                                 until the client disconnects
              -S SIZE            octets per ping, 26 to 65535 (default 64); a server reads whatever size
                                 the client advertises, so the two need not match
              -v                 print each ping's data
              -V                 check each ping's data
              -d                 print the connection's parameters and the messages exchanged
              -P                 server: keep serving connections until killed
              --mpa-rev 1|2      MPA revision: 2 (RFC 6581, exchanges IRD/ORD; default) or 1 (RFC 5044;
                                 a Linux siw peer then has IRD=ORD=0 and cannot RDMA Read)
              --crc on|off       request MPA CRCs (default off, like siw; on if the peer asks)
              --p2p off|write|read|any
                                 RFC 6581 peer-to-peer ready-to-receive message the client offers or
                                 the server accepts (default off: no P2P; a server then accepts any)
              --timeout SECONDS  the longest connect, accept or any step of a ping may take (default 30)
              --probe MS         client: if nothing answers its first message for MS milliseconds, send
                                 one zero-length RDMA Write, which revives a Linux 6.1 siw server that
                                 missed it (default 200; 0 turns it off)
              --help             this text
            """;

    /** The MPA settings these options ask for; every MPA timeout is the step timeout. */
    public MpaSettings mpaSettings() {
        return MpaSettings.defaults().withRevision(mpaRevision).withCrc(crc).withPeerToPeer(peerToPeer).toBuilder()
                .requestTimeout(timeout).replyTimeout(timeout).acceptTimeout(timeout).firstFpduProbe(firstFpduProbe)
                .build();
    }

    /** Whether the arguments ask for the usage text ({@code --help} anywhere). */
    static boolean wantsHelp(String[] args) {
        for (String a : args) {
            if (a.equals("--help") || a.equals("-h")) {
                return true;
            }
        }
        return false;
    }

    /**
     * Parses a command line.
     *
     * @throws IllegalArgumentException naming the mistake, for the usage message
     */
    public static RpingOptions parse(String[] args) {
        Builder b = new Builder();
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            if (a.startsWith("--")) {
                String name = a;
                String value = null;
                int eq = a.indexOf('=');
                if (eq > 0) {
                    name = a.substring(0, eq);
                    value = a.substring(eq + 1);
                }
                if (!b.takesValue(name)) {
                    throw new IllegalArgumentException("unknown option " + a);
                }
                if (value == null) {
                    if (++i >= args.length) {
                        throw new IllegalArgumentException(name + " needs a value");
                    }
                    value = args[i];
                }
                b.longOption(name, value);
            } else if (a.startsWith("-") && a.length() > 1) {
                // getopt: grouped flags, and a value either attached or in the next argument.
                for (int j = 1; j < a.length(); j++) {
                    char c = a.charAt(j);
                    if ("apCS".indexOf(c) >= 0) {
                        String value;
                        if (j + 1 < a.length()) {
                            value = a.substring(j + 1);
                        } else if (++i < args.length) {
                            value = args[i];
                        } else {
                            throw new IllegalArgumentException("-" + c + " needs a value");
                        }
                        b.shortOption(c, value);
                        break;
                    }
                    b.flag(c);
                }
            } else {
                throw new IllegalArgumentException("unexpected argument " + a + " (options start with -)");
            }
        }
        return b.build();
    }

    /** Collects options in any order; {@link #build()} checks them together. */
    private static final class Builder {
        Boolean server;
        String address;
        Integer port;
        Integer count;
        int size = DEFAULT_SIZE;
        boolean verbose;
        boolean validate;
        boolean debug;
        boolean persistent;
        int mpaRevision = MpaSettings.REVISION_2;
        boolean crc;
        PeerToPeerMode peerToPeer = PeerToPeerMode.OFF;
        Duration timeout = DEFAULT_TIMEOUT;
        Duration firstFpduProbe = MpaSettings.defaults().firstFpduProbe();

        boolean takesValue(String name) {
            return switch (name) {
                case "--mpa-rev", "--crc", "--p2p", "--timeout", "--probe" -> true;
                default -> false;
            };
        }

        void flag(char c) {
            switch (c) {
                case 's' -> role(true);
                case 'c' -> role(false);
                case 'v' -> verbose = true;
                case 'V' -> validate = true;
                case 'd' -> debug = true;
                case 'P' -> persistent = true;
                default -> throw new IllegalArgumentException("unknown option -" + c);
            }
        }

        private void role(boolean s) {
            if (server != null && server != s) {
                throw new IllegalArgumentException("-s and -c exclude each other: one process serves, the other"
                        + " pings");
            }
            server = s;
        }

        void shortOption(char c, String v) {
            switch (c) {
                case 'a' -> {
                    if (v.isBlank()) {
                        throw new IllegalArgumentException("-a needs an address");
                    }
                    address = v;
                }
                case 'p' -> port = integer(v, "-p", 0, 65535);
                case 'C' -> count = integer(v, "-C", 0, Integer.MAX_VALUE);
                case 'S' -> size = integer(v, "-S", MIN_SIZE, MAX_SIZE);
                default -> throw new IllegalArgumentException("unknown option -" + c);
            }
        }

        void longOption(String name, String v) {
            switch (name) {
                case "--mpa-rev" -> mpaRevision = switch (v) {
                    case "1" -> MpaSettings.REVISION_1;
                    case "2" -> MpaSettings.REVISION_2;
                    default -> throw new IllegalArgumentException("--mpa-rev " + v + ": use 1 or 2");
                };
                case "--crc" -> crc = switch (v) {
                    case "on" -> true;
                    case "off" -> false;
                    default -> throw new IllegalArgumentException("--crc " + v + ": use on or off");
                };
                case "--p2p" -> peerToPeer = switch (v.toLowerCase(Locale.ROOT)) {
                    case "off" -> PeerToPeerMode.OFF;
                    case "write" -> PeerToPeerMode.WRITE;
                    case "read" -> PeerToPeerMode.READ;
                    case "any" -> PeerToPeerMode.ANY;
                    default -> throw new IllegalArgumentException("--p2p " + v + ": use off, write, read or any");
                };
                case "--timeout" -> timeout = seconds(v);
                case "--probe" -> firstFpduProbe = Duration.ofMillis(integer(v, "--probe", 0, 60_000));
                default -> throw new IllegalArgumentException("unknown option " + name);
            }
        }

        RpingOptions build() {
            if (server == null) {
                throw new IllegalArgumentException("say -s (server) or -c (client)");
            }
            if (!server && address == null) {
                throw new IllegalArgumentException("the client needs -a ADDR, the server's address");
            }
            if (!server && port != null && port == 0) {
                throw new IllegalArgumentException("-p 0 is not a server's port: give the port the server listens on");
            }
            if (!server && persistent) {
                throw new IllegalArgumentException("-P (persistent) is a server option; the client ends after -C pings");
            }
            if (mpaRevision == MpaSettings.REVISION_1 && peerToPeer != PeerToPeerMode.OFF) {
                throw new IllegalArgumentException("--p2p " + peerToPeer.name().toLowerCase(Locale.ROOT)
                        + " needs --mpa-rev 2: peer-to-peer setup is part of RFC 6581's enhanced MPA");
            }
            return new RpingOptions(server, address != null ? address : "0.0.0.0", port != null ? port : DEFAULT_PORT,
                    count != null ? count : 0, size, verbose, validate, debug, persistent, mpaRevision, crc,
                    peerToPeer, timeout, firstFpduProbe);
        }

        private static int integer(String v, String option, int min, int max) {
            try {
                long n = Long.parseLong(v.trim());
                if (n >= min && n <= max) {
                    return (int) n;
                }
            } catch (NumberFormatException e) {
                // reported below
            }
            throw new IllegalArgumentException(option + " " + v + " must be a whole number from " + min + " to " + max
                    + (option.equals("-S") ? " (rping's RPING_MIN_BUFSIZE to RPING_BUFSIZE - 1)" : ""));
        }

        private static Duration seconds(String v) {
            try {
                double s = Double.parseDouble(v.trim());
                if (s > 0 && s <= 86_400) {
                    return Duration.ofNanos(Math.max(1_000_000L, (long) (s * 1e9)));
                }
            } catch (NumberFormatException e) {
                // reported below
            }
            throw new IllegalArgumentException("--timeout " + v + " must be a number of seconds above 0 (at most"
                    + " 86400)");
        }
    }
}
