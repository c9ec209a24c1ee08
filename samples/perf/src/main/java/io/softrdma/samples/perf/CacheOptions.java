package io.softrdma.samples.perf;

import io.softrdma.memory.RegionSpec;
import io.softrdma.samples.cli.CommandLines;
import io.softrdma.samples.cli.OptionValues;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * Command-line options of the cache benchmark ({@code perf.jar --test cache}, {@link CachePerf}).
 *
 * @param sizes value sizes in octets
 * @param outstanding the numbers of operations kept in flight, each measured in its own phase
 * @param duration how long each measured phase runs, unless {@code iterations} says how many operations
 * @param warmup how long each phase runs unmeasured first
 * @param iterations operations per measured phase, or 0 to run for {@code duration}
 * @param keys distinct keys the operations cycle through
 * @param json one JSON object per line instead of a table
 * @param redis whether to measure Redis too
 * @param redisServer the {@code redis-server} executable: a path, or a name looked up on {@code PATH}
 * @param crc MPA CRC32c on SoftRDMA's connections (RFC 5044 §4.4); Redis's TCP has none of its own
 * @param ops the operations measured, in the order run (both by default; one alone to profile it)
 * @param rounds how many turns each store's measured phase is cut into, the stores taking turns ({@link #turns()})
 * @param busyPoll how long the clients' event loops (RdmaCache's and its owner's, and Lettuce's) busy-poll after each
 *     burst of work before they sleep ({@code RdmaTransport.newEventLoopGroup(int, ThreadFactory, Duration)}); zero:
 *     they do not. redis-server has no such setting
 * @param ownerBusyPolls whether RdmaCache's owner's event loop busy-polls too (with {@code busyPoll}): off compares
 *     the stores with their servers alike, neither polling
 */
record CacheOptions(List<Integer> sizes, List<Integer> outstanding, Duration duration, Duration warmup,
        long iterations, int keys, boolean json, boolean redis, String redisServer, boolean crc, List<CacheOp> ops,
        int rounds, Duration busyPoll, boolean ownerBusyPolls) {

    /** How long the owner's event loop busy-polls: {@link #busyPoll}, unless {@link #ownerBusyPolls} is off. */
    Duration ownerBusyPoll() {
        return ownerBusyPolls ? busyPoll : Duration.ZERO;
    }

    /** The value sizes: 64 B, 1 KiB and 16 KiB. */
    static final List<Integer> DEFAULT_SIZES = List.of(64, 1024, 16 * 1024);
    /** One request at a time, and 64 outstanding. */
    static final List<Integer> DEFAULT_OUTSTANDING = List.of(1, 64);
    /** The most operations a phase keeps in flight: a cache client pipelines, it does not flood. */
    static final int MAX_OUTSTANDING = 4096;
    /**
     * Rounds per measured phase: turns of a quarter second at the default 2 s. One store's whole phase after the
     * other's let the machine's state drift between them: one request at a time, p50s of the same store moved between
     * 28 and 118 µs from run to run here as the scheduler kept the client's and server's threads together or apart.
     */
    static final int DEFAULT_ROUNDS = 8;

    /** The {@code --help} text. */
    static final String USAGE = CommandLines.usage(commandLine(new Cli()));

    /** Whether {@code args} ask for this benchmark: {@code --test cache} (or {@code --test=cache}). */
    static boolean isCacheRun(String[] args) {
        for (int i = 0; i < args.length; i++) {
            if (args[i].equals("--test=cache") || args[i].equals("--test") && i + 1 < args.length
                    && args[i + 1].equals("cache")) {
                return true;
            }
        }
        return false;
    }

    /**
     * Parses a command line.
     *
     * @throws IllegalArgumentException naming the mistake and its fix
     */
    static CacheOptions parse(String[] args) {
        Cli cli = new Cli();
        CommandLines.parse(commandLine(cli), args, "--");
        return cli.build();
    }

    private static CommandLine commandLine(Cli cli) {
        return CommandLines.create(cli).setUsageHelpLongOptionsMaxWidth(27);
    }

    @Command(name = "perf --test cache", customSynopsis = "java -jar perf.jar --test cache [options]",
            description = {
                "  Measures SoftRDMA's RdmaCache (GET: one-sided RDMA Reads of the table's bucket and entry, checked;",
                "  SET: a request to the owner) against Redis (Debian's redis-server, started here on 127.0.0.1,",
                "  through Lettuce's reactive API), in the same run: operations per second, p50 and p99 latency",
                "  and CPU, at each value size with 1 and with 64 operations outstanding. Rows cache-get,",
                "  cache-set, redis-get, redis-set; Redis is skipped, with the reason, where redis-server is",
                "  absent (apt-get install -y redis-server)."})
    private static final class Cli {
        @Option(names = "--test", paramLabel = "cache", description = "cache: this benchmark")
        String test;
        @Option(names = "--size", paramLabel = "N[,N...]", description = "value sizes in octets, K/M suffixes"
                + " allowed (default: 64,1K,16K)")
        String size;
        @Option(names = "--outstanding", paramLabel = "N[,N...]", description = "operations in flight, each a"
                + " phase of its own (default: 1,64)")
        String outstanding;
        @Option(names = "--duration", paramLabel = "S", description = "seconds per measured phase (default: 2)")
        String duration;
        @Option(names = "--warmup", paramLabel = "S", description = "seconds each phase runs unmeasured first"
                + " (default: 1; the first GET and SET of each store: 3 times as long, and 10 s at least)")
        String warmup;
        @Option(names = "--iterations", paramLabel = "N", description = "operations per measured phase instead"
                + " of --duration")
        String iterations;
        @Option(names = "--keys", paramLabel = "N", description = "distinct keys, each written before the GETs"
                + " (default: 1000)")
        String keys;
        @Option(names = "--redis-server", paramLabel = "PATH", description = "the redis-server to start"
                + " (default: redis-server on PATH)")
        String redisServer;
        @Option(names = "--crc", paramLabel = "on|off", description = "MPA CRC32c on RdmaCache's connections"
                + " (default: on)")
        String crc;
        @Option(names = "--ops", paramLabel = "get|set[,...]", description = "the operations measured"
                + " (default: get,set; the keys are written before the GETs either way)")
        String ops;
        @Option(names = "--rounds", paramLabel = "N", description = "each measured phase in N turns per store, the"
                + " stores alternating (A B B A ...) so that the machine's drift hits both alike (default: 8)")
        String rounds;
        @Option(names = "--busy-poll", paramLabel = "US", description = "microseconds the event loops of RdmaCache,"
                + " its owner and Lettuce poll their sockets after each burst of work before they sleep, as RDMA"
                + " applications poll their completion queues (default: 0, off; CPU for latency)")
        String busyPoll;
        @Option(names = "--busy-poll-owner", paramLabel = "on|off", description = "whether RdmaCache's owner polls"
                + " too with --busy-poll (default: on; off: the servers alike, as redis-server cannot poll)")
        String busyPollOwner;
        @Option(names = "--no-redis", description = "measure RdmaCache only")
        boolean noRedis;
        @Option(names = "--json", description = "one JSON object per line instead of a table")
        boolean json;
        @Option(names = "--help", usageHelp = true, description = "this text")
        boolean help;

        CacheOptions build() {
            if (!"cache".equals(test)) {
                throw new IllegalArgumentException("--test " + test + ": the cache benchmark runs with --test"
                        + " cache");
            }
            List<Integer> sizes = size == null ? DEFAULT_SIZES : PerfOptions.parseSizes(size);
            List<Integer> outstanding = this.outstanding == null ? DEFAULT_OUTSTANDING
                    : parseOutstanding(this.outstanding);
            Duration duration = this.duration == null ? Duration.ofSeconds(2) : seconds(this.duration, "--duration",
                    false);
            Duration warmup = this.warmup == null ? Duration.ofSeconds(1) : seconds(this.warmup, "--warmup", true);
            long iterations = this.iterations == null ? 0
                    : OptionValues.wholeNumber(this.iterations, "--iterations", 1, Long.MAX_VALUE);
            int keys = this.keys == null ? 1000 : (int) OptionValues.wholeNumber(this.keys, "--keys", 1, 1_000_000);
            String redisServer = this.redisServer == null ? "redis-server" : this.redisServer;
            if (noRedis && this.redisServer != null) {
                throw new IllegalArgumentException("--redis-server names the Redis to measure: drop it, or drop"
                        + " --no-redis");
            }
            long table = RdmaCacheTarget.tableSize(keys, Collections.max(sizes));
            if (table > RegionSpec.MAX_SIZE) {
                throw new IllegalArgumentException("--keys " + keys + " of values up to " + ResultPrinter.size(
                        Collections.max(sizes)) + " need a cache table of " + table + " octets, more than"
                        + " one region holds (" + RegionSpec.MAX_SIZE + "): give fewer --keys or smaller --size");
            }
            boolean crc = this.crc == null || OptionValues.onOff(this.crc, "--crc");
            List<CacheOp> ops = this.ops == null ? List.of(CacheOp.values()) : parseOps(this.ops);
            int rounds = this.rounds == null ? DEFAULT_ROUNDS
                    : (int) OptionValues.wholeNumber(this.rounds, "--rounds", 1, 1000);
            Duration busyPoll = this.busyPoll == null ? Duration.ZERO
                    : Duration.ofNanos(1000 * OptionValues.wholeNumber(this.busyPoll, "--busy-poll", 0, 1_000_000));
            if (busyPollOwner != null && busyPoll.isZero()) {
                throw new IllegalArgumentException("--busy-poll-owner says whether the owner polls with --busy-poll:"
                        + " give --busy-poll US too, or drop it");
            }
            boolean ownerBusyPolls = busyPollOwner == null || OptionValues.onOff(busyPollOwner, "--busy-poll-owner");
            return new CacheOptions(sizes, outstanding, duration, warmup, iterations, keys, json, !noRedis,
                    redisServer, crc, ops, rounds, busyPoll, ownerBusyPolls);
        }
    }

    private static List<Integer> parseOutstanding(String v) {
        List<Integer> out = new ArrayList<>();
        for (String s : v.split(",")) {
            int n = (int) OptionValues.wholeNumber(s.trim(), "--outstanding", 1, MAX_OUTSTANDING);
            if (!out.contains(n)) {
                out.add(n);
            }
        }
        return out;
    }

    private static List<CacheOp> parseOps(String v) {
        List<CacheOp> out = new ArrayList<>();
        for (String s : v.split(",")) {
            CacheOp op = CacheOp.parse(s.trim());
            if (!out.contains(op)) {
                out.add(op);
            }
        }
        return out;
    }

    private static Duration seconds(String v, String option, boolean zeroAllowed) {
        try {
            double s = Double.parseDouble(v);
            if ((s > 0 || zeroAllowed && s == 0) && s <= 3600) {
                return Duration.ofNanos((long) (s * 1e9));
            }
        } catch (NumberFormatException e) {
            // worded below
        }
        throw new IllegalArgumentException(option + " " + v + " must be a number of seconds, "
                + (zeroAllowed ? "0" : "above 0") + " to 3600");
    }

    /** A measured phase's turns, in order ({@link Budget#turns}): {@code --iterations} or {@code --duration}. */
    List<Budget> turns() {
        return Budget.turns(iterations, duration, rounds);
    }
}
