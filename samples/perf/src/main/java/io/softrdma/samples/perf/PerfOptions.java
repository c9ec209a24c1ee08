package io.softrdma.samples.perf;

import io.softrdma.samples.cli.CommandLines;
import io.softrdma.samples.cli.OptionValues;
import io.softrdma.cm.RdmaTransport;
import io.softrdma.reactive.MessagingOptions;
import io.softrdma.rsocket.RSocketMessaging;
import io.softrdma.samples.perf.PerfProtocol.Test;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * Command-line options of the perf sample.
 *
 * <p>Why this class is long: it is the one place that turns the command line into a checked record — picocli's option
 * declarations with their help text, the parsing of sizes, rates and lists, and the rules that refuse combinations
 * that would measure nothing (each with a message that says what to add or drop). Splitting the rules from the
 * options they judge would scatter one contract over several files.
 *
 * @param tests which operations to measure (of the verbs API; {@code atomic} is Fetch-and-Add and
 *     Compare-and-Swap)
 * @param sizes message sizes in octets
 * @param iterations operations per bandwidth phase and round trips per latency phase, or 0 for the
 *     defaults (bandwidth for {@code duration}, 20000 round trips)
 * @param duration how long each bandwidth phase runs when no iteration count is given
 * @param warmup how long each test runs unmeasured first, so that the JIT has compiled the path
 * @param rate MiB/s at most (latency round trips spaced out accordingly), or 0 for as fast as possible
 * @param crc MPA CRC32c on or off
 * @param markers MPA Markers on or off
 * @param mpaRevision MPA revision: 2 (RFC 6581, IRD/ORD exchanged) or 1 (RFC 5044)
 * @param port the SoftRDMA server's port (0: any free port)
 * @param server run only the server
 * @param connect run only the client, against this {@code host:port}; null in loopback mode
 * @param json print one JSON object per line instead of a table
 * @param progress show a progress line on a terminal
 * @param baseline also measure raw TCP the same way
 * @param transport the Netty transport
 * @param api which API to measure: the verbs (default), the reactive API next to RSocket, both, or one RSocket
 *     application over SoftRDMA and over TCP
 * @param reactiveTests the reactive API's tests to run ({@code send}, {@code request}, {@code atomic}); empty
 *     with the verbs API
 * @param rsocketModels the RSocket interaction models to run with {@code --api rsocket}; empty otherwise
 * @param messaging SoftRDMA's messaging options for {@code --api reactive} and {@code rsocket}: the library's (or the
 *     RSocket transport's) defaults unless {@code --inline} or {@code --send-window} change them
 * @param connections with {@code --connections}: each number of client connections to run against one server
 *     ({@link ConnectionScale}); empty otherwise
 * @param receivePool with {@code --connections} and the reactive API: the receive pool's octets for the server and,
 *     another of the same size, the clients; 0 for none (every session registers all its receive buffers); -1 for
 *     the library's default (a server's pool of 64 MiB, clients none)
 * @param rounds with {@code --api rsocket}: the turns each transport's bandwidth and latency phases are cut into, the
 *     two transports alternating ({@link TransportTurns}; default {@link #DEFAULT_RSOCKET_ROUNDS}); 1 for each phase
 *     whole, one transport's after the other's; 1 with the other APIs
 */
record PerfOptions(List<Test> tests, List<Integer> sizes, long iterations, Duration duration, Duration warmup,
        double rate, boolean crc, boolean markers, int mpaRevision, int port, boolean server, String connect,
        boolean json, boolean progress,
        boolean baseline, RdmaTransport transport, Api api, List<ReactiveTest> reactiveTests,
        List<RsocketModel> rsocketModels, MessagingOptions messaging, List<Integer> connections, long receivePool,
        int rounds) {

    /** Which API a run measures. */
    enum Api {
        VERBS, REACTIVE, ALL, RSOCKET;

        boolean verbs() {
            return this == VERBS || this == ALL;
        }

        boolean reactive() {
            return this == REACTIVE || this == ALL;
        }
    }

    /**
     * The RSocket interaction models {@code --api rsocket} runs over SoftRDMA and over TCP: fire-and-forget,
     * request-response and request-stream.
     */
    enum RsocketModel {
        FF, RR, STREAM;

        /** As in the rows' names, {@code rsocket-<model>-<transport>}. */
        String wireName() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    /**
     * The reactive API's tests: {@code send} (RdmaSession send/receive against RSocket fire-and-forget
     * and request-stream), {@code request} (request/response against RSocket request-response) and
     * {@code atomic} (fetchAdd and compareAndSwap, against raw TCP: RSocket has no counterpart).
     */
    enum ReactiveTest {
        SEND, REQUEST, ATOMIC;

        String wireName() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    /**
     * Turns per phase of an {@code --api rsocket} row ({@link TransportTurns}): half a second each at the default
     * 2 s. Whole phases one after the other measured RSocket over TCP at 1 MiB in whichever of its two modes, about
     * twice apart, it was in at the time (docs/benchmarks.md, "Issue 17: the two transports in turns").
     */
    static final int DEFAULT_RSOCKET_ROUNDS = 4;

    /** Round trips per latency phase unless {@code --iterations} says otherwise. */
    static final long LATENCY_ROUND_TRIPS = 20_000;

    /** The {@code --help} text, made by picocli from the options below. */
    static final String USAGE = CommandLines.usage(commandLine(new Cli()));

    /**
     * Parses a command line.
     *
     * @throws IllegalArgumentException naming the mistake and its fix, for the usage message
     */
    static PerfOptions parse(String[] args) {
        Cli cli = new Cli();
        CommandLines.parse(commandLine(cli), args, "--");
        return cli.build();
    }

    private static CommandLine commandLine(Cli cli) {
        return CommandLines.create(cli).setUsageHelpLongOptionsMaxWidth(27);
    }

    /**
     * The command line as picocli reads it: the values as given, checked by {@link #build()}; the last of a
     * repeated option counts, and the usage text is laid out by {@link CommandLines#create}.
     */
    @Command(name = "perf", customSynopsis = "java -jar perf.jar [options]",
            description = {
                "  Measures RDMA Write, Read and Send over SoftRDMA (iWARP: RDMAP/DDP/MPA on TCP), and the RFC",
                "  7306 atomics Fetch-and-Add and Compare-and-Swap on one 64-bit word: bandwidth (atomics: the",
                "  rate) with many operations in flight, and latency one operation at a time. By default server",
                "  and client run in this process on 127.0.0.1, and each test is measured over raw TCP too, the",
                "  same way, in the same run."})
    private static final class Cli {
        @Option(names = "--api", paramLabel = "verbs|reactive|rsocket|all", description = "verbs (default): RDMA"
                + " Write, Read, Send and atomics next to raw TCP; reactive: the reactive API (send/receive, request)"
                + " next to RSocket 1.1.5 over TCP, and its atomics next to raw TCP, measured the same way; all: both;"
                + " rsocket: one RSocket application over SoftRDMA's RSocket transport next to the same over RSocket's"
                + " TCP transport (rows rsocket-ff|rr|stream-rdma|tcp; sizes default to 64,4K,1M)")
        String api = "verbs";
        @Option(names = "--test", paramLabel = "write|read|send|atomic|request|ff|rr|stream|all", description =
                "tests to run, comma separated (default: all); the verbs have write, read, send and atomic, the"
                + " reactive API send, request and atomic, the rsocket API ff (fire-and-forget), rr"
                + " (request-response) and stream (request-stream); cache alone: RdmaCache against Redis, its own"
                + " options (--test cache --help). atomic: rows fetch-add (adds 1) and"
                + " compare-swap (bandwidth: expects 0, swaps in 0; latency: a serial increment), ORD in flight,"
                + " on one 8-octet word, run once whatever --size says, the word checked after each phase; raw TCP:"
                + " 52-octet requests answered with 12 octets")
        String test = "all";
        @Option(names = "--size", paramLabel = "N[,N...]", description = "message sizes in octets, K/M suffixes"
                + " allowed (default: 64,4K,64K; with --api rsocket 64,4K,1M)")
        String size;
        @Option(names = "--duration", paramLabel = "S", description = "seconds per bandwidth phase (default: 2)")
        String duration;
        @Option(names = "--iterations", paramLabel = "N", description = "operations per bandwidth phase and round"
                + " trips per latency phase (default: --duration, and 20000 round trips)")
        String iterations;
        @Option(names = "--warmup", paramLabel = "S", description = "seconds each test runs unmeasured first,"
                + " and at least " + PerfMain.WARMUP_OPERATIONS + " operations for at most "
                + PerfMain.WARMUP_OVERTIME_SECONDS + " s more (with --connections, the time only; 0: no"
                + " warm-up; default: 1)")
        String warmup;
        @Option(names = "--rate", paramLabel = "MIBPS", description = "at most this many MiB/s, evenly spread (an"
                + " atomic counts its 8 octets); latency round trips are spaced out the same way (default: no"
                + " limit; a packet capture needs one to keep up)")
        String rate;
        @Option(names = "--crc", paramLabel = "on|off", description = "MPA CRC32c (default: on)")
        String crc;
        @Option(names = "--markers", paramLabel = "on|off", description = "MPA Markers every 512 octets (default:"
                + " off)")
        String markers;
        @Option(names = "--mpa-rev", paramLabel = "1|2", description = "MPA revision: 2 sends RFC 6581's IRD/ORD"
                + " (default: 2)")
        String mpaRevision;
        @Option(names = "--port", paramLabel = "P", description = "the SoftRDMA server's port (default: any free"
                + " port)")
        String port;
        @Option(names = "--server", description = "run only the server, on --port P (two processes)")
        boolean server;
        @Option(names = "--connect", paramLabel = "HOST:PORT", description = "run only the client, against a"
                + " --server (two processes)")
        String connect;
        @Option(names = "--no-baseline", description = "skip the raw TCP measurements")
        boolean noBaseline;
        @Option(names = "--transport", paramLabel = "epoll|nio", description = "Netty transport (default: epoll"
                + " when available)")
        String transport;
        @Option(names = "--inline", paramLabel = "N", description = "with --api reactive, rsocket or all:"
                + " SoftRDMA's inline size, the largest Send (header included; larger messages go by RDMA Read), 1K"
                + " to 256K in steps of 1K (default: the library's 4K; the RSocket transport's 16K)")
        String inline;
        @Option(names = "--send-window", paramLabel = "N", description = "with --api reactive, rsocket or all:"
                + " octets of messages SoftRDMA's send keeps requested and not yet sent, K/M suffixes allowed"
                + " (default: the library's 1M; the RSocket transport's 8M)")
        String sendWindow;
        @Option(names = "--connections", paramLabel = "N[,N..]", description = "N client connections at once against"
                + " one server (one event loop each side), for each N given, up to " + MAX_CONNECTIONS + ": bandwidth"
                + " only, the verbs send and read (and write) rows, the reactive send and request rows; reports the"
                + " aggregate and per-connection msgs/s and the memory per connection, idle and busy (default test:"
                + " send,read; size: 64)")
        String connections;
        @Option(names = "--receive-pool", paramLabel = "N|off", description = "with --connections and --api reactive:"
                + " the receive pool the server's sessions share, and another the clients share, in octets (K/M"
                + " suffixes), or off: each session registers receive-queue-depth x inline size (default: the"
                + " library's, 64M for the server, none for clients)")
        String receivePool;
        @Option(names = "--rounds", paramLabel = "N", description = "with --api rsocket: each bandwidth and latency"
                + " phase in N turns per transport, SoftRDMA's and TCP's alternating (A B, B A, ...) so that the"
                + " machine's drift hits both alike; a row adds its turns up (default: " + DEFAULT_RSOCKET_ROUNDS
                + "; 1: each phase whole, one transport's after the other's)")
        String rounds;
        @Option(names = "--json", description = "one JSON object per line instead of a table")
        boolean json;
        @Option(names = "--no-progress", description = "no progress line, even on a terminal")
        boolean noProgress;
        @Option(names = "--help", usageHelp = true, description = "this text")
        boolean help;

        PerfOptions build() {
            Api api = parseApi(this.api);
            List<Integer> connections = this.connections == null ? List.of() : parseConnections(this.connections);
            List<Integer> sizes = size != null ? parseSizes(size) : !connections.isEmpty() ? List.of(64)
                    : api == Api.RSOCKET ? List.of(64, 4096, 1024 * 1024) : List.of(64, 4096, 65536);
            long iterations = this.iterations == null ? 0 : parsePositive(this.iterations, "--iterations");
            Duration duration = this.duration == null ? Duration.ofSeconds(2)
                    : parseSeconds(this.duration, "--duration", false);
            Duration warmup = this.warmup == null ? Duration.ofSeconds(1) : parseSeconds(this.warmup, "--warmup", true);
            double rate = this.rate == null ? 0 : parseRate(this.rate);
            boolean crc = this.crc == null || OptionValues.onOff(this.crc, "--crc");
            boolean markers = this.markers != null && OptionValues.onOff(this.markers, "--markers");
            int mpaRevision = this.mpaRevision == null ? 2 : parseRevision(this.mpaRevision);
            Integer port = this.port == null ? null : parsePort(this.port);
            String connect = this.connect == null ? null : parseHostPort(this.connect);
            RdmaTransport transport = this.transport == null ? RdmaTransport.best() : parseTransport(this.transport);
            String test = !connections.isEmpty() && this.test.equals("all") ? "send,read" : this.test;
            List<Test> tests = api.verbs() ? parseTests(test, api) : List.of();
            List<ReactiveTest> reactiveTests = api.reactive()
                    ? parseReactiveTests(!connections.isEmpty() && this.test.equals("all") ? "send,request" : test, api)
                    : List.of();
            List<RsocketModel> rsocketModels = api == Api.RSOCKET ? parseRsocketModels(test) : List.of();
            if (tests.isEmpty() && reactiveTests.isEmpty() && rsocketModels.isEmpty()) {
                throw new IllegalArgumentException("--test " + test + " has nothing to run with --api "
                        + api.name().toLowerCase(Locale.ROOT) + " (verbs: write, read, send, atomic; reactive: send,"
                        + " request, atomic; rsocket: ff, rr, stream)");
            }
            if ((api.reactive() || api == Api.RSOCKET) && (server || connect != null)) {
                throw new IllegalArgumentException("--api " + api.name().toLowerCase(Locale.ROOT)
                        + " runs in one process only: drop --server/--connect, or use --api verbs");
            }
            if (server && connect != null) {
                throw new IllegalArgumentException("--server and --connect exclude each other: start one process"
                        + " with --server --port P and another with --connect HOST:P");
            }
            if (server && port == null) {
                throw new IllegalArgumentException("--server needs --port P, the port clients will --connect to");
            }
            if (connect != null && port != null) {
                throw new IllegalArgumentException("--port is the server's: with --connect, give the port as"
                        + " HOST:PORT");
            }
            MessagingOptions messaging = api == Api.RSOCKET ? RSocketMessaging.DEFAULTS : MessagingOptions.DEFAULTS;
            if (inline != null || sendWindow != null) {
                if (api == Api.VERBS) {
                    throw new IllegalArgumentException("--inline and --send-window size SoftRDMA's messaging (the"
                            + " reactive API and the RSocket transport), not the verbs: add --api reactive or"
                            + " --api rsocket");
                }
                if (inline != null) {
                    messaging = messaging.withInlineSize(parseInline(inline));
                }
                if (sendWindow != null) {
                    messaging = messaging.withSendWindow(messaging.sendWindow(), parseSendWindow(sendWindow));
                }
            }
            long receivePool = this.receivePool == null ? -1 : parseReceivePool(this.receivePool);
            int rounds = this.rounds != null ? (int) OptionValues.wholeNumber(this.rounds, "--rounds", 1, 1000)
                    : api == Api.RSOCKET ? DEFAULT_RSOCKET_ROUNDS : 1;
            if (this.rounds != null && api != Api.RSOCKET) {
                throw new IllegalArgumentException("--rounds alternates the transports of the RSocket rows: add --api"
                        + " rsocket (the cache benchmark, --test cache, has a --rounds of its own)");
            }
            if (!connections.isEmpty()) {
                checkConnections(api, tests, reactiveTests, connect, receivePool);
            } else if (this.receivePool != null) {
                throw new IllegalArgumentException("--receive-pool sizes the reactive sessions of --connections: add"
                        + " --connections N --api reactive");
            }
            // A separate server cannot run the raw TCP reference: there is nothing to compare in this process.
            // Nor does a connection-scaling run: its rows are about the server, next to its own single connection.
            boolean withBaseline = !noBaseline && connect == null && connections.isEmpty();
            return new PerfOptions(tests, sizes, iterations, duration, warmup, rate, crc, markers, mpaRevision,
                    port == null ? 0 : port, server, connect, json, !noProgress, withBaseline, transport,
                    api, reactiveTests, rsocketModels, messaging, connections, receivePool, rounds);
        }

        /** What a connection-scaling run can measure: bandwidth of Write, Read and Send, reactive send and request. */
        private void checkConnections(Api api, List<Test> tests, List<ReactiveTest> reactiveTests, String connect,
                long receivePool) {
            if (server) {
                throw new IllegalArgumentException("--connections is the client's: a --server serves any number");
            }
            if (api == Api.RSOCKET) {
                throw new IllegalArgumentException("--connections measures the verbs and the reactive API: use --api"
                        + " verbs, reactive or all");
            }
            if (tests.stream().anyMatch(Test::atomic) || reactiveTests.contains(ReactiveTest.ATOMIC)) {
                throw new IllegalArgumentException("--connections runs write, read and send (reactive: send,"
                        + " request); the atomics are measured on one connection: drop atomic from --test");
            }
            if (connect != null && !reactiveTests.isEmpty()) {
                throw new IllegalArgumentException("--connections with --connect runs the verbs only: add --api"
                        + " verbs");
            }
            if (receivePool >= 0 && reactiveTests.isEmpty()) {
                throw new IllegalArgumentException("--receive-pool sizes the reactive sessions: add --api reactive"
                        + " (or all)");
            }
            if (iterations != null) {
                throw new IllegalArgumentException("--connections runs for --duration (each connection as many"
                        + " operations as it can): drop --iterations");
            }
        }
    }

    /** The most connections {@code --connections} opens: each is a socket on both ends, in one process. */
    static final int MAX_CONNECTIONS = 4096;

    private static List<Integer> parseConnections(String v) {
        List<Integer> out = new ArrayList<>();
        for (String s : v.split(",")) {
            int n;
            try {
                n = Integer.parseInt(s.trim());
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("--connections " + s + " is not a number of connections"
                        + " (example: 1,64,1024)");
            }
            if (n < 1 || n > MAX_CONNECTIONS) {
                throw new IllegalArgumentException("--connections " + n + " must be 1 to " + MAX_CONNECTIONS);
            }
            add(out, n);
        }
        return out;
    }

    private static long parseReceivePool(String v) {
        if (v.equals("off")) {
            return 0;
        }
        long n = parseOctets(v, "--receive-pool");
        if (n < 1024) {
            throw new IllegalArgumentException("--receive-pool " + v + " must be at least 1K (one receive buffer), or"
                    + " off");
        }
        return n;
    }

    private static Api parseApi(String v) {
        return switch (v) {
            case "verbs" -> Api.VERBS;
            case "reactive" -> Api.REACTIVE;
            case "all" -> Api.ALL;
            case "rsocket" -> Api.RSOCKET;
            default -> throw new IllegalArgumentException("--api " + v + ": use verbs, reactive, rsocket or all");
        };
    }

    private static List<ReactiveTest> parseReactiveTests(String v, Api api) {
        if (v.equals("all")) {
            return List.of(ReactiveTest.values());
        }
        List<ReactiveTest> out = new ArrayList<>();
        for (String t : v.split(",")) {
            String name = t.trim();
            switch (name) {
                case "send" -> add(out, ReactiveTest.SEND);
                case "request" -> add(out, ReactiveTest.REQUEST);
                case "atomic" -> add(out, ReactiveTest.ATOMIC);
                case "write", "read" -> {
                    if (api == Api.REACTIVE) {
                        throw new IllegalArgumentException("--test " + name + " is a verbs test: the reactive API"
                                + " has send, request and atomic (or use --api all)");
                    }
                }
                case "ff", "rr", "stream" -> throw rsocketOnly(name);
                default -> throw new IllegalArgumentException("--test " + name
                        + ": choose from write, read, send, atomic, request or all");
            }
        }
        return out;
    }

    private static IllegalArgumentException rsocketOnly(String test) {
        return new IllegalArgumentException("--test " + test + " is an RSocket interaction model: use --api rsocket");
    }

    private static List<RsocketModel> parseRsocketModels(String v) {
        if (v.equals("all")) {
            return List.of(RsocketModel.values());
        }
        List<RsocketModel> out = new ArrayList<>();
        for (String t : v.split(",")) {
            String name = t.trim();
            switch (name) {
                case "ff" -> add(out, RsocketModel.FF);
                case "rr" -> add(out, RsocketModel.RR);
                case "stream" -> add(out, RsocketModel.STREAM);
                default -> throw new IllegalArgumentException("--test " + name + ": --api rsocket has ff"
                        + " (fire-and-forget), rr (request-response), stream (request-stream) or all");
            }
        }
        return out;
    }

    private static <T> void add(List<T> list, T t) {
        if (!list.contains(t)) {
            list.add(t);
        }
    }

    private static int parseRevision(String v) {
        return switch (v) {
            case "1" -> 1;
            case "2" -> 2;
            default -> throw new IllegalArgumentException("--mpa-rev takes 1 or 2, not " + v);
        };
    }

    /**
     * The verbs tests: {@code all} is every one, atomics included; {@code atomic} is Fetch-and-Add and
     * Compare-and-Swap.
     */
    private static List<Test> parseTests(String v, Api api) {
        if (v.equals("all")) {
            return List.of(Test.values());
        }
        List<Test> out = new ArrayList<>();
        for (String t : v.split(",")) {
            String name = t.trim();
            switch (name) {
                case "write" -> add(out, Test.WRITE);
                case "read" -> add(out, Test.READ);
                case "send" -> add(out, Test.SEND);
                case "atomic" -> {
                    add(out, Test.FETCH_ADD);
                    add(out, Test.COMPARE_SWAP);
                }
                case "request" -> {
                    if (api == Api.VERBS) {
                        throw new IllegalArgumentException("--test request is the reactive API's: add --api reactive"
                                + " (or --api all)");
                    }
                }
                case "ff", "rr", "stream" -> throw rsocketOnly(name);
                default -> throw new IllegalArgumentException("--test " + t
                        + ": choose from write, read, send, atomic, request or all");
            }
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
            if (n < 1 || n > 16L * 1024 * 1024) {
                throw new IllegalArgumentException("--size " + s + " is outside 1 octet..16M");
            }
            out.add((int) n);
        }
        return out;
    }

    private static int parseInline(String v) {
        long n = parseOctets(v, "--inline");
        if (n < 1024 || n > 256 * 1024 || n % 1024 != 0) {
            throw new IllegalArgumentException("--inline " + v + " must be 1K to 256K in steps of 1K (RFC 8797)");
        }
        return (int) n;
    }

    private static long parseSendWindow(String v) {
        long n = parseOctets(v, "--send-window");
        if (n < 1) {
            throw new IllegalArgumentException("--send-window " + v + " must be at least 1 octet");
        }
        return n;
    }

    /** Octets, with a K or M suffix allowed. */
    private static long parseOctets(String v, String option) {
        String t = v.trim().toUpperCase(Locale.ROOT);
        long mult = 1;
        if (t.endsWith("K")) {
            mult = 1024;
            t = t.substring(0, t.length() - 1);
        } else if (t.endsWith("M")) {
            mult = 1024 * 1024;
            t = t.substring(0, t.length() - 1);
        }
        try {
            return Math.multiplyExact(Long.parseLong(t), mult);
        } catch (NumberFormatException | ArithmeticException e) {
            throw new IllegalArgumentException(option + " " + v + " is not a number of octets (examples: 8K, 32M)");
        }
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

    private static Duration parseSeconds(String v, String option, boolean zeroAllowed) {
        try {
            double s = Double.parseDouble(v);
            if ((s > 0 || (zeroAllowed && s == 0)) && s <= 3600) {
                return Duration.ofNanos((long) (s * 1e9));
            }
        } catch (NumberFormatException e) {
            // fall through
        }
        throw new IllegalArgumentException(option + " " + v + " must be a number of seconds, "
                + (zeroAllowed ? "0" : "above 0") + " to 3600");
    }

    private static double parseRate(String v) {
        try {
            double r = Double.parseDouble(v);
            if (r > 0 && r < 1e7) {
                return r;
            }
        } catch (NumberFormatException e) {
            // fall through
        }
        throw new IllegalArgumentException("--rate " + v + " must be a positive number of MiB/s");
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

    private static String parseHostPort(String v) {
        int colon = v.lastIndexOf(':');
        if (colon <= 0 || colon == v.length() - 1) {
            throw new IllegalArgumentException("--connect " + v + ": use HOST:PORT, e.g. 127.0.0.1:7471");
        }
        int port = parsePort(v.substring(colon + 1));
        if (port == 0) {
            throw new IllegalArgumentException("--connect " + v + ": port 0 is not a server's port");
        }
        return v;
    }

    private static RdmaTransport parseTransport(String v) {
        return switch (v) {
            case "epoll" -> {
                if (RdmaTransport.best() != RdmaTransport.EPOLL) {
                    throw new IllegalArgumentException("--transport epoll: native epoll is not available here");
                }
                yield RdmaTransport.EPOLL;
            }
            case "nio" -> RdmaTransport.NIO;
            default -> throw new IllegalArgumentException("--transport " + v + ": use epoll or nio");
        };
    }

    /** Round trips in a latency phase. */
    /** {@code --connect}'s HOST:PORT as an address (checked when parsed). */
    InetSocketAddress connectAddress() {
        int colon = connect.lastIndexOf(':');
        return new InetSocketAddress(connect.substring(0, colon), Integer.parseInt(connect.substring(colon + 1)));
    }

    long latencyRoundTrips() {
        return iterations > 0 ? iterations : LATENCY_ROUND_TRIPS;
    }
}
