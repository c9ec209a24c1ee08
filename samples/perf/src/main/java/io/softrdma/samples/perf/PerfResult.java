package io.softrdma.samples.perf;

/**
 * One measured row: a test over SoftRDMA ({@code write}, {@code read}, {@code send}, {@code fetch-add},
 * {@code compare-swap}) or its raw TCP counterpart ({@code tcp-write}, ...), at one size (an atomic test's
 * is its 8-octet word).
 *
 * @param test the test as named in JSON output
 * @param size message size in octets
 * @param iterations operations in the bandwidth phase
 * @param mibPerSecond payload MiB/s in the bandwidth phase
 * @param messagesPerSecond operations per second in the bandwidth phase
 * @param p50Micros median latency of one operation alone, in µs
 * @param p99Micros 99th percentile of that latency, in µs
 * @param clientCpu the client event loop's CPU use in the bandwidth phase, in cores (1.0 = one busy core)
 * @param serverCpu the same for the server's event loop; NaN when the server runs in another process
 * @param allocatedPerOperation heap octets the event loops (both, in loopback mode) allocated per
 *     operation in the bandwidth phase, including Netty's own; NaN when not measurable
 * @param check what the row verified of its result ({@link WordCheck}: the atomic word after each phase),
 *     or null when it verifies nothing
 * @param scale with {@code --connections}: how many, and the memory per connection ({@code messagesPerSecond} is
 *     then the aggregate of all of them); null otherwise
 */
record PerfResult(String test, int size, long iterations, double mibPerSecond, double messagesPerSecond,
        double p50Micros, double p99Micros, double clientCpu, double serverCpu, double allocatedPerOperation,
        String check, ConnectionScale.Scale scale) {
    /** A row of one connection. */
    PerfResult(String test, int size, long iterations, double mibPerSecond, double messagesPerSecond,
            double p50Micros, double p99Micros, double clientCpu, double serverCpu, double allocatedPerOperation,
            String check) {
        this(test, size, iterations, mibPerSecond, messagesPerSecond, p50Micros, p99Micros, clientCpu, serverCpu,
                allocatedPerOperation, check, null);
    }

    /**
     * A row of one connection from its bandwidth phase and its round trips ({@code sortedRtts}, in nanoseconds,
     * sorted; {@code {0}} when it has none).
     */
    static PerfResult of(String test, int size, Measured bw, long[] sortedRtts, double clientCpu, double serverCpu,
            double allocatedPerOperation, String check) {
        double seconds = bw.nanos() / 1e9;
        return new PerfResult(test, size, bw.operations(), (double) size * bw.operations() / seconds / (1024 * 1024),
                bw.operations() / seconds, sortedRtts[sortedRtts.length / 2] / 1e3,
                sortedRtts[(int) Math.min(sortedRtts.length - 1, sortedRtts.length * 99L / 100)] / 1e3,
                clientCpu, serverCpu, allocatedPerOperation, check);
    }
}
