package io.softrdma.samples.perf;

import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.IntFunction;
import reactor.core.publisher.Mono;

/**
 * The cache benchmark ({@code java -jar perf.jar --test cache}): SoftRDMA's RdmaCache against Redis, the cache a
 * team would otherwise pick, in the same run on the same machine. For each value size, both stores are filled with
 * {@code --keys} keys; then, for each number outstanding, a GET and a SET phase run on both stores: each store is
 * warmed up, then the phase is measured in {@code --rounds} turns per store, the stores alternating (A B, B A, ...),
 * so that drift in the machine's state hits both alike. Every GET's value is checked against what was written.
 * Redis is started by the benchmark ({@link RedisServerProcess}) and skipped, with the reason, when there is no
 * {@code redis-server}.
 *
 * <p>Thread safety: runs on the calling thread.
 */
final class CachePerf {
    /** Makes the RdmaCache side: its owner and its client, sized for the run. */
    @FunctionalInterface
    interface CacheFactory {
        CacheTarget open(CacheOptions options) throws Exception;
    }

    /** The shortest first warm-up of each store's GET and SET (unless --warmup 0). */
    static final Duration FIRST_WARMUP = Duration.ofSeconds(10);

    private CachePerf() {
    }

    private static Duration max(Duration a, Duration b) {
        return a.compareTo(b) >= 0 ? a : b;
    }

    /** Runs the benchmark with {@code args} ({@code --test cache} among them), then exits: 0, or 2 on bad options. */
    static void main(String[] args) throws Exception {
        if (List.of(args).contains("--help")) {
            System.out.print(CacheOptions.USAGE);
            return;
        }
        CacheOptions options;
        try {
            options = CacheOptions.parse(args);
        } catch (IllegalArgumentException e) {
            System.err.println("perf: " + e.getMessage());
            System.err.print(CacheOptions.USAGE);
            System.exit(2);
            return;
        }
        List<CacheResult> results = run(options, System.out, RdmaCacheTarget::new);
        System.exit(results.stream().anyMatch(r -> r.wrong() > 0) ? 1 : 0);
    }

    /**
     * Runs what {@code options} ask for, printing JSON lines as rows come (with {@code --json}) or a table at the
     * end.
     *
     * @return the rows
     */
    static List<CacheResult> run(CacheOptions options, PrintStream out, CacheFactory cacheFactory) throws Exception {
        List<CacheTarget> targets = new ArrayList<>();
        String redisSkipped = null;
        List<CacheResult> results = new ArrayList<>();
        try {
            targets.add(cacheFactory.open(options));
            if (options.redis()) {
                Optional<Path> redis = RedisServerProcess.locate(options.redisServer());
                if (redis.isEmpty()) {
                    redisSkipped = options.redisServer() + " not found" + (options.redisServer().contains("/") ? ""
                            : " on PATH") + " (Debian: apt-get install -y redis-server)";
                } else {
                    targets.add(new RedisTarget(redis.get(), options.busyPoll()));
                }
            } else {
                redisSkipped = "--no-redis";
            }
            if (redisSkipped != null) {
                System.err.println("perf: redis-* rows skipped: " + redisSkipped);
                if (options.json()) {
                    CacheResult.printSkippedJson(out, "redis", redisSkipped);
                }
            }
            byte[][] keys = keys(options.keys());
            Set<String> warmed = new HashSet<>();
            for (int size : options.sizes()) {
                byte[] value = value(size);
                for (CacheTarget t : targets) {
                    CacheLoad.Phase fill = CacheLoad.run(op(t, CacheOp.SET, keys, value), 64,
                            Budget.of(keys.length));
                    if (fill.operations() != keys.length) {
                        throw new IllegalStateException(t.name() + ": filling " + keys.length + " keys completed "
                                + fill.operations());
                    }
                }
                for (int outstanding : options.outstanding()) {
                    for (CacheOp op : options.ops()) {
                        for (CacheResult r : measure(options, targets, op, keys, value, outstanding, warmed)) {
                            results.add(r);
                            if (options.json()) {
                                r.printJson(out, options.crc(), options.busyPoll().toNanos() / 1000,
                                        options.ownerBusyPoll().toNanos() / 1000);
                            }
                        }
                    }
                }
            }
        } finally {
            for (CacheTarget t : targets) {
                t.close();
            }
        }
        if (!options.json()) {
            CacheResult.printTable(out, results, redisSkipped, options.crc(), options.busyPoll().toNanos() / 1000,
                    options.ownerBusyPoll().toNanos() / 1000);
        }
        return results;
    }

    /**
     * One operation at one size and number outstanding on every store: each warmed up, then measured in turns
     * ({@link CacheOptions#turns()}), the stores alternating A B, B A, A B ... so that neither always goes first.
     *
     * @param warmed the stores and operations warmed up before (their first warm-up is longer); this adds to it
     * @return a row per store, in the order of {@code targets}
     */
    static List<CacheResult> measure(CacheOptions options, List<CacheTarget> targets, CacheOp op,
            byte[][] keys, byte[] value, int outstanding, Set<String> warmed) {
        List<IntFunction<Mono<Boolean>>> work = new ArrayList<>();
        for (CacheTarget t : targets) {
            work.add(op(t, op, keys, value));
            if (!options.warmup().isZero()) {
                // Each store's path for each operation is compiled during its first warm-up, which lasts longer: for
                // RdmaCache's GET (Reactor chains over the RDMA client), 3 s left the first rows at a third of their
                // speed on a 2-core machine, 10 s did not.
                Duration warmup = !warmed.add(t.name() + "-" + op.wireName()) ? options.warmup() : max(
                        options.warmup().multipliedBy(PerfMain.FIRST_WARMUP_FACTOR), FIRST_WARMUP);
                CacheLoad.run(work.get(work.size() - 1), outstanding, Budget.of(warmup));
            }
        }
        List<Tally> tallies = new ArrayList<>();
        targets.forEach(t -> tallies.add(new Tally()));
        List<Budget> turns = options.turns();
        for (int round = 0; round < turns.size(); round++) {
            for (int k = 0; k < targets.size(); k++) {
                int i = round % 2 == 0 ? k : targets.size() - 1 - k;
                CacheTarget target = targets.get(i);
                ThreadUsage client = ThreadUsage.start(target.clientThreads());
                target.restartServerCpu();
                CacheLoad.Phase turn = CacheLoad.run(work.get(i), outstanding, turns.get(round));
                tallies.get(i).add(turn, client.utilization(), target.serverCpu());
            }
        }
        List<CacheResult> rows = new ArrayList<>();
        for (int i = 0; i < targets.size(); i++) {
            rows.add(tallies.get(i).result(targets.get(i).name() + "-" + op.wireName(), value.length, outstanding));
        }
        return rows;
    }

    /**
     * One store's turns of a phase added up: operations and time summed, latencies pooled, CPU shares weighted by
     * each turn's time.
     */
    private static final class Tally {
        private final List<CacheLoad.Phase> turns = new ArrayList<>();
        private double clientCpuNanos;
        private double serverCpuNanos;

        void add(CacheLoad.Phase turn, double clientCpu, double serverCpu) {
            turns.add(turn);
            clientCpuNanos += clientCpu * turn.nanos();
            serverCpuNanos += serverCpu * turn.nanos();
        }

        CacheResult result(String test, int size, int outstanding) {
            CacheLoad.Phase all = CacheLoad.Phase.of(turns);
            return new CacheResult(test, size, outstanding, all.operations(), all.perSecond(),
                    all.percentileMicros(50), all.percentileMicros(99), clientCpuNanos / all.nanos(),
                    serverCpuNanos / all.nanos(), all.wrong());
        }
    }

    /** The operation on key {@code i % keys}: true when its answer is right (a GET's value is the one written). */
    private static IntFunction<Mono<Boolean>> op(CacheTarget target, CacheOp op, byte[][] keys, byte[] value) {
        return switch (op) {
            case GET -> i -> target.get(keys[i % keys.length]).map(v -> sameValue(v, value));
            case SET -> i -> target.set(keys[i % keys.length], value).thenReturn(true);
        };
    }

    /** Length and the ends: enough to catch another key's size or a torn copy, cheap enough not to be measured. */
    private static boolean sameValue(byte[] got, byte[] expected) {
        int n = expected.length;
        return got.length == n && got[0] == expected[0] && got[n - 1] == expected[n - 1] && got[n / 2] == expected[n
                / 2];
    }

    static byte[][] keys(int n) {
        byte[][] keys = new byte[n][];
        for (int i = 0; i < n; i++) {
            keys[i] = ("perf:" + i).getBytes(StandardCharsets.US_ASCII);
        }
        return keys;
    }

    /** A value of {@code size} octets whose first, middle and last octets differ from those of other sizes. */
    static byte[] value(int size) {
        byte[] v = new byte[size];
        for (int i = 0; i < size; i++) {
            v[i] = (byte) (i * 31 + size);
        }
        return v;
    }
}
