package io.softrdma.samples.perf;

/**
 * One measured row.
 *
 * @param test the test as named in JSON output, e.g. {@code mpa-stream} or {@code tcp-pingpong}
 * @param size message size in octets
 * @param iterations messages measured
 * @param mibPerSecond payload MiB/s (one direction)
 * @param messagesPerSecond messages (or round trips) per second
 * @param p50Micros median round-trip latency in µs, or NaN where not measured
 * @param p99Micros 99th percentile round-trip latency in µs, or NaN where not measured
 */
record PerfResult(String test, int size, long iterations, double mibPerSecond, double messagesPerSecond,
        double p50Micros, double p99Micros) {
}
