package io.softrdma.samples.perf;

import java.io.PrintStream;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.List;
import java.util.Locale;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/**
 * One row of the cache benchmark: an operation of one store at one value size and number outstanding.
 *
 * @param test {@code cache-get}, {@code cache-set}, {@code redis-get} or {@code redis-set}
 * @param size the value's octets
 * @param outstanding operations kept in flight
 * @param operations operations measured
 * @param msgsPerSec operations completed per second
 * @param p50us median latency, microseconds
 * @param p99us 99th percentile latency, microseconds
 * @param clientCpu share of one core the client's threads used (NaN: not measured)
 * @param serverCpu share of one core the server used: Redis's process, or the cache owner's event loop
 * @param wrong operations whose answer was not what was written (must be 0)
 */
record CacheResult(String test, int size, int outstanding, long operations, double msgsPerSec, double p50us,
        double p99us, double clientCpu, double serverCpu, long wrong) {

    private static final JsonMapper JSON = JsonMapper.shared();

    /**
     * One JSON line: the fields above, figures rounded (1 decimal; CPU 2), NaN as null, and how long the clients'
     * event loops busy-polled ({@code busyPollUs}, 0: not; both stores' clients alike); RdmaCache's rows also say
     * whether MPA CRC was on ({@code crc}) and how long the owner's loop busy-polled ({@code ownerBusyPollUs}).
     */
    void printJson(PrintStream out, boolean crc, long busyPollUs, long ownerBusyPollUs) {
        ObjectNode line = JSON.createObjectNode()
                .put("test", test)
                .put("size", size)
                .put("outstanding", outstanding)
                .put("iterations", operations)
                .put("msgsPerSec", decimal(msgsPerSec, 1))
                .put("p50us", decimal(p50us, 1))
                .put("p99us", decimal(p99us, 1))
                .put("clientCpu", decimal(clientCpu, 2))
                .put("serverCpu", decimal(serverCpu, 2))
                .put("wrong", wrong)
                .put("busyPollUs", busyPollUs);
        if (test.startsWith("cache-")) {
            line.put("crc", crc).put("ownerBusyPollUs", ownerBusyPollUs);
        }
        out.println(JSON.writeValueAsString(line));
        out.flush();
    }

    /** A JSON line saying a store was not measured, and why. */
    static void printSkippedJson(PrintStream out, String store, String reason) {
        out.println(JSON.writeValueAsString(JSON.createObjectNode().put("test", store).put("skipped", reason)));
        out.flush();
    }

    /** The table, each RdmaCache row next to its Redis twin's figures as ratios. */
    static void printTable(PrintStream out, List<CacheResult> results, String redisSkipped, boolean crc,
            long busyPollUs, long ownerBusyPollUs) {
        out.printf(Locale.ROOT, "%nSoftRDMA cache benchmark (Java %s, MPA CRC %s%s): RdmaCache vs Redis through"
                + " Lettuce, on 127.0.0.1%n", System.getProperty("java.version"), crc ? "on" : "off",
                busyPollUs == 0 ? "" : ", both clients' loops busy-poll " + busyPollUs + " µs, "
                        + (ownerBusyPollUs == 0 ? "the owner's does not" : "the owner's too") + ", redis-server's"
                        + " cannot");
        String header = String.format(Locale.ROOT, "%-10s %8s %5s %10s %11s %8s %8s %11s %10s %10s", "test",
                "size", "out", "ops", "ops/s", "p50 us", "p99 us", "cpu cli/srv", "ops/Redis", "p50/Redis");
        out.println(header);
        out.println("-".repeat(header.length()));
        for (CacheResult r : results) {
            String ops = "";
            String p50 = "";
            if (r.test.startsWith("cache-")) {
                CacheResult redis = find(results, "redis-" + r.test.substring("cache-".length()), r.size,
                        r.outstanding);
                if (redis != null) {
                    ops = String.format(Locale.ROOT, "%.2fx", r.msgsPerSec / redis.msgsPerSec);
                    p50 = String.format(Locale.ROOT, "%.2fx", r.p50us / redis.p50us);
                }
            }
            out.printf(Locale.ROOT, "%-10s %8s %5d %10d %11.0f %8.1f %8.1f %11s %10s %10s%n", r.test,
                    ResultPrinter.size(r.size), r.outstanding, r.operations, r.msgsPerSec, r.p50us, r.p99us,
                    percent(r.clientCpu) + "/" + percent(r.serverCpu), ops, p50);
        }
        out.println();
        out.println("cache-*: RdmaCache, GET as one-sided RDMA Reads (bucket and entry, checked; at once for a key"
                + " whose place the client knows), SET a request to the owner;");
        out.println("  server CPU: the owner's event loop. redis-*: redis-server (no persistence) through one Lettuce"
                + " connection;");
        out.println("  server CPU: the redis-server process. p50/p99 at the load of the row (out: operations in"
                + " flight).");
        if (redisSkipped != null) {
            out.println("redis-*: skipped: " + redisSkipped);
        }
        long wrong = results.stream().mapToLong(CacheResult::wrong).sum();
        if (wrong > 0) {
            out.println("WRONG ANSWERS: " + wrong + " GETs returned something other than what was written");
        }
        out.flush();
    }

    private static CacheResult find(List<CacheResult> results, String test, int size, int outstanding) {
        for (CacheResult r : results) {
            if (r.test.equals(test) && r.size == size && r.outstanding == outstanding) {
                return r;
            }
        }
        return null;
    }

    private static String percent(double v) {
        return Double.isNaN(v) ? "-" : String.format(Locale.ROOT, "%.0f%%", 100 * v);
    }

    private static BigDecimal decimal(double v, int places) {
        return Double.isFinite(v) ? BigDecimal.valueOf(v).setScale(places, RoundingMode.HALF_UP) : null;
    }
}
