package io.softrdma.samples.perf;

import io.softrdma.transport.TransportKind;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Command-line options of the perf sample.
 *
 * @param tests which tests to run: {@code stream}, {@code pingpong}
 * @param sizes message sizes in octets
 * @param iterations messages per test, or 0 to choose per size
 * @param crc MPA CRC32c on or off
 * @param markers MPA Markers on or off
 * @param port the server's port (0: any free port)
 * @param json print one JSON object per line instead of a table
 * @param progress show a progress line on a terminal
 * @param transport the Netty transport
 */
record PerfOptions(List<String> tests, List<Integer> sizes, long iterations, boolean crc, boolean markers, int port,
        boolean json, boolean progress, TransportKind transport) {

    static final List<String> ALL_TESTS = List.of("stream", "pingpong");

    static final String USAGE = """
            usage: java -jar perf.jar [options]
              Runs an MPA (RFC 5044) server and client on loopback in one process and measures them
              next to raw TCP, measured the same way in the same run.

              --test stream|pingpong|all   tests to run, comma separated (default: all)
              --size N[,N...]              message sizes in octets, K/M suffixes allowed (default: 64,4K,64K)
              --iterations N               messages per test (default: chosen per size)
              --crc on|off                 MPA CRC32c (default: on)
              --markers on|off             MPA Markers every 512 octets (default: off)
              --port P                     server port on 127.0.0.1 (default: any free port)
              --transport epoll|nio        Netty transport (default: epoll when available)
              --json                       one JSON object per line instead of a table
              --no-progress                no progress line, even on a terminal
              --help                       this text
            """;

    static PerfOptions parse(String[] args) {
        List<String> tests = ALL_TESTS;
        List<Integer> sizes = List.of(64, 4096, 65536);
        long iterations = 0;
        boolean crc = true;
        boolean markers = false;
        int port = 0;
        boolean json = false;
        boolean progress = true;
        TransportKind transport = TransportKind.best();
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            switch (a) {
                case "--test" -> tests = parseTests(value(args, ++i, a));
                case "--size" -> sizes = parseSizes(value(args, ++i, a));
                case "--iterations" -> iterations = parsePositive(value(args, ++i, a), a);
                case "--crc" -> crc = onOff(value(args, ++i, a), a);
                case "--markers" -> markers = onOff(value(args, ++i, a), a);
                case "--port" -> port = parsePort(value(args, ++i, a));
                case "--transport" -> transport = parseTransport(value(args, ++i, a));
                case "--json" -> json = true;
                case "--no-progress" -> progress = false;
                default -> throw new IllegalArgumentException("unknown option " + a);
            }
        }
        return new PerfOptions(tests, sizes, iterations, crc, markers, port, json, progress, transport);
    }

    private static String value(String[] args, int i, String option) {
        if (i >= args.length) {
            throw new IllegalArgumentException(option + " needs a value");
        }
        return args[i];
    }

    private static List<String> parseTests(String v) {
        if (v.equals("all")) {
            return ALL_TESTS;
        }
        List<String> out = new ArrayList<>();
        for (String t : v.split(",")) {
            if (!ALL_TESTS.contains(t)) {
                throw new IllegalArgumentException("--test " + t + ": choose from " + String.join(", ", ALL_TESTS)
                        + " or all");
            }
            out.add(t);
        }
        return out;
    }

    static List<Integer> parseSizes(String v) {
        List<Integer> out = new ArrayList<>();
        for (String s : v.split(",")) {
            String t = s.trim().toUpperCase(Locale.ROOT);
            int mult = 1;
            if (t.endsWith("K")) {
                mult = 1024;
                t = t.substring(0, t.length() - 1);
            } else if (t.endsWith("M")) {
                mult = 1024 * 1024;
                t = t.substring(0, t.length() - 1);
            }
            long n;
            try {
                n = Long.parseLong(t) * mult;
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("--size " + s + " is not a size (examples: 64, 4K, 1M)");
            }
            if (n < 1 || n > 64L * 1024 * 1024) {
                throw new IllegalArgumentException("--size " + s + " is outside 1 octet..64M");
            }
            out.add((int) n);
        }
        return out;
    }

    private static long parsePositive(String v, String option) {
        try {
            long n = Long.parseLong(v);
            if (n > 0) {
                return n;
            }
        } catch (NumberFormatException e) {
            // fall through
        }
        throw new IllegalArgumentException(option + " " + v + " must be a positive number");
    }

    private static boolean onOff(String v, String option) {
        return switch (v) {
            case "on" -> true;
            case "off" -> false;
            default -> throw new IllegalArgumentException(option + " " + v + ": use on or off");
        };
    }

    private static int parsePort(String v) {
        try {
            int p = Integer.parseInt(v);
            if (p >= 0 && p <= 65535) {
                return p;
            }
        } catch (NumberFormatException e) {
            // fall through
        }
        throw new IllegalArgumentException("--port " + v + " must be 0..65535");
    }

    private static TransportKind parseTransport(String v) {
        return switch (v) {
            case "epoll" -> {
                if (TransportKind.best() != TransportKind.EPOLL) {
                    throw new IllegalArgumentException("--transport epoll: native epoll is not available here");
                }
                yield TransportKind.EPOLL;
            }
            case "nio" -> TransportKind.NIO;
            default -> throw new IllegalArgumentException("--transport " + v + ": use epoll or nio");
        };
    }

    /** Messages for a test when none were given: about 1 GiB for streams, 20000 round trips for ping-pong. */
    long iterationsFor(String test, int size) {
        if (iterations > 0) {
            return iterations;
        }
        if (test.equals("pingpong")) {
            return 20_000;
        }
        return Math.max(5_000, Math.min(2_000_000, (1L << 30) / size));
    }
}
