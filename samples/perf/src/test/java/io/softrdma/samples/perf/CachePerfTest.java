package io.softrdma.samples.perf;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The cache benchmark's options and harness: rows named and shaped as the issue says, every GET checked. The
 * harness runs against an in-memory store (so that what it checks is known), and against Redis where redis-server
 * is installed.
 */
class CachePerfTest {

    @Test
    void defaultsAreTheIssuesSizesAndOutstanding() {
        CacheOptions o = CacheOptions.parse(new String[] {"--test", "cache"});
        assertThat(o.sizes()).containsExactly(64, 1024, 16 * 1024);
        assertThat(o.outstanding()).containsExactly(1, 64);
        assertThat(o.redis()).isTrue();
        assertThat(o.redisServer()).isEqualTo("redis-server");
        assertThat(o.json()).isFalse();
        assertThat(o.crc()).as("MPA's default").isTrue();
        assertThat(CacheOptions.parse(new String[] {"--test", "cache", "--crc", "off"}).crc()).isFalse();
        assertThat(CacheOptions.isCacheRun(new String[] {"--json", "--test", "cache"})).isTrue();
        assertThat(CacheOptions.isCacheRun(new String[] {"--test=cache"})).isTrue();
        assertThat(CacheOptions.isCacheRun(new String[] {"--test", "read"})).isFalse();
        assertThat(o.ops()).containsExactly(CacheOp.GET, CacheOp.SET);
        assertThat(CacheOptions.USAGE).contains("--outstanding N[,N...]").contains("--no-redis").contains("--ops");
        assertThat(CacheOptions.parse(new String[] {"--test", "cache", "--ops", "get"}).ops())
                .containsExactly(CacheOp.GET);
        assertThat(o.busyPoll()).as("the loops sleep at once by default").isZero();
        assertThat(CacheOptions.parse(new String[] {"--test", "cache", "--busy-poll", "100"}).busyPoll())
                .isEqualTo(java.time.Duration.ofNanos(100_000));
        assertThat(CacheOptions.USAGE).contains("--busy-poll US").contains("--busy-poll-owner on|off");
        CacheOptions clientsOnly = CacheOptions.parse(new String[] {"--test", "cache", "--busy-poll", "100",
            "--busy-poll-owner", "off"});
        assertThat(clientsOnly.busyPoll()).isEqualTo(java.time.Duration.ofNanos(100_000));
        assertThat(clientsOnly.ownerBusyPoll()).as("the owner sleeps at once, as redis-server does").isZero();
        assertThat(CacheOptions.parse(new String[] {"--test", "cache", "--busy-poll", "100"}).ownerBusyPoll())
                .as("the owner polls with the clients unless told not to")
                .isEqualTo(java.time.Duration.ofNanos(100_000));
        assertThatThrownBy(() -> CacheOptions.parse(new String[] {"--test", "cache", "--busy-poll-owner", "off"}))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("give --busy-poll US too");
    }

    @Test
    void badOptionsSayWhatToFix() {
        assertThatThrownBy(() -> CacheOptions.parse(new String[] {"--test", "cache", "--outstanding", "0"}))
                .hasMessage("--outstanding 0 must be a whole number from 1 to 4096");
        assertThatThrownBy(() -> CacheOptions.parse(new String[] {"--test", "cache", "--size", "x"}))
                .hasMessageContaining("--size x is not a size");
        assertThatThrownBy(() -> CacheOptions.parse(new String[] {"--test", "cache", "--no-redis",
            "--redis-server", "/x"})).hasMessageContaining("drop --no-redis");
        assertThatThrownBy(() -> CacheOptions.parse(new String[] {"--test", "read", "--size", "64"}))
                .hasMessageContaining("runs with --test cache");
        assertThatThrownBy(() -> CacheOptions.parse(new String[] {"--test", "cache", "--ops", "put"}))
                .hasMessage("--ops put: choose get, set or get,set");
        assertThatThrownBy(() -> CacheOptions.parse(new String[] {"--test", "cache", "--keys", "1000000",
            "--size", "16K"})).hasMessageContaining("--keys 1000000 of values up to 16 KiB need a cache table of")
                .hasMessageContaining("give fewer --keys or smaller --size");
    }

    @Test
    void rowsAreNamedAndShapedForAScript() throws Exception {
        CacheOptions o = CacheOptions.parse(new String[] {"--test", "cache", "--no-redis", "--size", "64,1K",
            "--outstanding", "1,8", "--iterations", "200", "--warmup", "0", "--keys", "16", "--json"});
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        List<CacheResult> results = CachePerf.run(o, new PrintStream(bytes, true, StandardCharsets.UTF_8),
                options -> new MapTarget(false));
        List<JsonNode> lines = bytes.toString(StandardCharsets.UTF_8).lines().map(JsonMapper.shared()::readTree)
                .toList();
        assertThat(lines.get(0).get("test").asString()).isEqualTo("redis");
        assertThat(lines.get(0).get("skipped").asString()).isEqualTo("--no-redis");
        List<JsonNode> rows = lines.subList(1, lines.size());
        assertThat(rows).extracting(n -> n.get("test").asString() + "/" + n.get("size").asInt() + "/"
                + n.get("outstanding").asInt())
                .containsExactly("cache-get/64/1", "cache-set/64/1", "cache-get/64/8", "cache-set/64/8",
                        "cache-get/1024/1", "cache-set/1024/1", "cache-get/1024/8", "cache-set/1024/8");
        for (JsonNode row : rows) {
            assertThat(row.get("crc").asBoolean()).isTrue();
            assertThat(row.get("busyPollUs").asLong()).as("the loops sleep at once by default").isZero();
            if (row.get("test").asString().startsWith("cache-")) {
                assertThat(row.get("ownerBusyPollUs").asLong()).isZero();
            }
            assertThat(row.get("iterations").asLong()).isEqualTo(200);
            assertThat(row.get("msgsPerSec").asDouble()).isPositive();
            assertThat(row.get("p99us").asDouble()).isGreaterThanOrEqualTo(row.get("p50us").asDouble());
            assertThat(row.get("wrong").asLong()).isZero();
        }
        assertThat(results).hasSize(8);
    }

    @Test
    void aPhaseIsMeasuredInTurnsTheStoresAlternating() {
        CacheOptions o = CacheOptions.parse(new String[] {"--test", "cache", "--iterations", "10", "--rounds", "4",
            "--warmup", "0"});
        assertThat(o.turns()).extracting(Budget::iterations).as("10 operations in 4 turns").containsExactly(3L, 3L,
                2L, 2L);
        assertThat(CacheOptions.parse(new String[] {"--test", "cache", "--iterations", "2", "--rounds", "4"}).turns())
                .as("never a turn of no operations").extracting(Budget::iterations).containsExactly(1L, 1L);
        assertThat(CacheOptions.parse(new String[] {"--test", "cache", "--duration", "2"}).turns())
                .as("the default: 8 turns of a quarter second").hasSize(CacheOptions.DEFAULT_ROUNDS)
                .extracting(Budget::duration).containsOnly(Duration.ofMillis(250));
        assertThatThrownBy(() -> CacheOptions.parse(new String[] {"--test", "cache", "--rounds", "0"}))
                .hasMessage("--rounds 0 must be a whole number from 1 to 1000");

        List<String> turns = new ArrayList<>();
        CacheTarget a = new MapTarget("a", turns);
        CacheTarget b = new MapTarget("b", turns);
        byte[][] keys = CachePerf.keys(4);
        byte[] value = CachePerf.value(64);
        for (CacheTarget t : List.of(a, b)) {
            for (byte[] key : keys) {
                t.set(key, value).block(Duration.ofSeconds(5));
            }
        }
        List<CacheResult> rows = CachePerf.measure(o, List.of(a, b), CacheOp.GET, keys, value, 2, new HashSet<>());
        assertThat(turns).as("A B, B A, ...: neither store always goes first").containsExactly("a", "b", "b", "a",
                "a", "b", "b", "a");
        assertThat(rows).extracting(CacheResult::test).containsExactly("a-get", "b-get");
        assertThat(rows).allSatisfy(r -> {
            assertThat(r.operations()).as("every turn's operations in the row").isEqualTo(10);
            assertThat(r.wrong()).isZero();
        });
    }

    @Test
    void aGetThatAnswersWrongIsCounted() throws Exception {
        CacheOptions o = CacheOptions.parse(new String[] {"--test", "cache", "--no-redis", "--size", "64",
            "--outstanding", "4", "--iterations", "100", "--warmup", "0", "--keys", "8"});
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        List<CacheResult> results = CachePerf.run(o, new PrintStream(bytes, true, StandardCharsets.UTF_8),
                options -> new MapTarget(true));
        assertThat(results.stream().filter(r -> r.test().equals("cache-get")).findFirst().orElseThrow().wrong())
                .isEqualTo(100);
        assertThat(bytes.toString(StandardCharsets.UTF_8)).contains("WRONG ANSWERS: 100");
    }

    @Test
    void redisRowsNextToTheCacheRows() throws Exception {
        Assumptions.assumeTrue(RedisServerProcess.locate("redis-server").isPresent(),
                "redis-server is not installed (apt-get install -y redis-server): the Redis side is not run");
        CacheOptions o = CacheOptions.parse(new String[] {"--test", "cache", "--size", "64,16K",
            "--outstanding", "1,64", "--iterations", "500", "--warmup", "0", "--keys", "32"});
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        List<CacheResult> results = CachePerf.run(o, new PrintStream(bytes, true, StandardCharsets.UTF_8),
                options -> new MapTarget(false));
        List<CacheResult> redis = results.stream().filter(r -> r.test().startsWith("redis-")).toList();
        assertThat(redis).extracting(CacheResult::test).containsOnly("redis-get", "redis-set").hasSize(8);
        for (CacheResult r : redis) {
            assertThat(r.wrong()).as(r.toString()).isZero();
            assertThat(r.operations()).isEqualTo(500);
            assertThat(r.serverCpu()).as("the redis-server process's CPU, read (in 10 ms ticks)").isNotNaN()
                    .isGreaterThanOrEqualTo(0);
        }
        assertThat(bytes.toString(StandardCharsets.UTF_8)).contains("ops/Redis").doesNotContain("skipped");
    }

    @Test
    void rdmaCacheRowsAnswerWhatWasWritten() throws Exception {
        CacheOptions o = CacheOptions.parse(new String[] {"--test", "cache", "--no-redis", "--size", "64,16K",
            "--outstanding", "1,64", "--iterations", "300", "--warmup", "0", "--keys", "64", "--json", "--crc", "off"});
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        List<CacheResult> results = CachePerf.run(o, new PrintStream(bytes, true, StandardCharsets.UTF_8),
                RdmaCacheTarget::new);
        assertThat(results).extracting(r -> r.test() + "/" + r.size() + "/" + r.outstanding()).containsExactly(
                "cache-get/64/1", "cache-set/64/1", "cache-get/64/64", "cache-set/64/64",
                "cache-get/16384/1", "cache-set/16384/1", "cache-get/16384/64", "cache-set/16384/64");
        for (CacheResult r : results) {
            assertThat(r.wrong()).as(r.toString()).isZero();
            assertThat(r.operations()).isEqualTo(300);
            assertThat(r.serverCpu()).as("the owner's event loop").isNotNaN();
        }
    }

    /** A store in a map, answering on another thread; {@code corrupt}: every GET answers a wrong value. */
    private static final class MapTarget implements CacheTarget {
        private final Map<String, byte[]> map = new ConcurrentHashMap<>();
        private final boolean corrupt;
        private final String name;
        private final List<String> turns;

        MapTarget(boolean corrupt) {
            this("cache", new ArrayList<>(), corrupt);
        }

        /** A right-answering store named {@code name} that notes each measured turn's start in {@code turns}. */
        MapTarget(String name, List<String> turns) {
            this(name, turns, false);
        }

        private MapTarget(String name, List<String> turns, boolean corrupt) {
            this.corrupt = corrupt;
            this.name = name;
            this.turns = turns;
        }

        @Override
        public String name() {
            return name;
        }

        @Override
        public Mono<byte[]> get(byte[] key) {
            return Mono.fromSupplier(() -> {
                byte[] v = map.get(new String(key, StandardCharsets.US_ASCII));
                return corrupt && v != null ? new byte[v.length] : v;
            }).subscribeOn(Schedulers.parallel());
        }

        @Override
        public Mono<Void> set(byte[] key, byte[] value) {
            return Mono.fromRunnable(() -> map.put(new String(key, StandardCharsets.US_ASCII), value.clone()))
                    .subscribeOn(Schedulers.parallel()).then();
        }

        @Override
        public double serverCpu() {
            return Double.NaN;
        }

        @Override
        public void restartServerCpu() {
            turns.add(name);
        }

        @Override
        public String clientThreads() {
            return "parallel-";
        }

        @Override
        public void close() {
        }
    }
}
