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
 * {@code --keys} keys; then, for each number outstanding, GET and SET phases run on each store in turn (RdmaCache
 * first, then Redis, so that drift in the machine's load hits both alike), each warmed up first. Every GET's value is
 * checked against what was written. Redis is started by the benchmark ({@link RedisServerProcess}) and skipped, with
 * the reason, when there is no {@code redis-server}.
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
                    targets.add(new RedisTarget(redis.get()));
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
                        for (CacheTarget t : targets) {
                            CacheResult r = measure(options, t, op, keys, value, outstanding,
                                    warmed.add(t.name() + "-" + op.wireName()));
                            results.add(r);
                            if (options.json()) {
                                r.printJson(out, options.crc());
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
            CacheResult.printTable(out, results, redisSkipped, options.crc());
        }
        return results;
    }

    private static CacheResult measure(CacheOptions options, CacheTarget target, CacheOp op, byte[][] keys,
            byte[] value, int outstanding, boolean first) {
        IntFunction<Mono<Boolean>> work = op(target, op, keys, value);
        if (!options.warmup().isZero()) {
            // Each store's path for each operation is compiled during its first warm-up, which lasts longer: for
            // RdmaCache's GET (Reactor chains over the RDMA client), 3 s left the first rows at a third of their
            // speed on a 2-core machine, 10 s did not.
            Duration warmup = !first ? options.warmup() : max(options.warmup().multipliedBy(
                    PerfMain.FIRST_WARMUP_FACTOR), FIRST_WARMUP);
            CacheLoad.run(work, outstanding, Budget.of(warmup));
        }
        ThreadUsage client = ThreadUsage.start(target.clientThreads());
        target.restartServerCpu();
        CacheLoad.Phase phase = CacheLoad.run(work, outstanding, options.budget());
        double serverCpu = target.serverCpu();
        return new CacheResult(target.name() + "-" + op.wireName(), value.length, outstanding, phase.operations(),
                phase.perSecond(), phase.percentileMicros(50), phase.percentileMicros(99), client.utilization(),
                serverCpu, phase.wrong());
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
