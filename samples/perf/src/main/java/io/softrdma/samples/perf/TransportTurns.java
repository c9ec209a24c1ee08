package io.softrdma.samples.perf;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The rows of one RSocket model at one size measured in turns ({@code --api rsocket --rounds N}). Each transport
 * warms up as for a whole phase, right before its first turn; then its bandwidth phase is cut into N turns, and so
 * is its latency phase, the transports taking turns A B, B A, A B ... as the cache benchmark's stores do.
 *
 * <p>Why: one transport's whole phase after the other's lets the machine drift between them. At 1 MiB, RSocket over
 * TCP on this loopback runs in one of two modes about twice apart, and changes mode from one phase to the next
 * (docs/benchmarks.md, issue 17), so the ratio of two whole phases says mostly which mode TCP happened to be in.
 * In turns, both transports share whatever the machine does during the row.
 *
 * <p>A row adds its turns up: operations and time summed, CPU shares weighted by each turn's time, heap octets over
 * all its operations, round trips pooled.
 *
 * <p>Thread safety: the benchmark's one thread; the phases run on the transports' event loops.
 */
final class TransportTurns {
    /**
     * Unrecorded round trips at the start of each latency turn after a transport's first: its path runs again
     * before it is timed, after the other transport's turn.
     */
    static final int TURN_WARMUP = 16;

    /** One transport's row: its JSON name, its event loops' thread names, and its two phases. */
    record Row(String test, String clientThreads, String serverThreads, PerfMain.ReactiveBandwidth bandwidth,
            PerfMain.ReactiveLatency latency) {
    }

    private TransportTurns() {
    }

    /**
     * Measures {@code rows} at {@code size} in {@link PerfOptions#rounds()} turns each.
     *
     * @param first whether this is the model's first size (its warm-up is longer, as in a whole phase)
     * @param roundTrips round trips of the whole latency phase, shared out among the turns
     * @return the rows' results, in the order of {@code rows}
     */
    static List<PerfResult> measure(PerfOptions options, List<Row> rows, int size, boolean first, long roundTrips)
            throws Exception {
        List<Tally> tallies = new ArrayList<>();
        rows.forEach(r -> tallies.add(new Tally()));
        List<Budget> turns = Budget.turns(options.iterations(), options.duration(), options.rounds());
        for (int round = 0; round < turns.size(); round++) {
            for (int i : order(round, rows.size())) {
                Row row = rows.get(i);
                Budget warmup = round == 0 ? PerfMain.warmupBudget(options, first) : Budget.of(Duration.ZERO);
                String label = row.test() + " " + ResultPrinter.size(size) + " bandwidth, turn " + (round + 1) + "/"
                        + turns.size();
                PerfMain.Phase phase = PerfMain.bandwidthPhase(options, label, size, row.clientThreads(),
                        row.serverThreads(), row.bandwidth(), warmup, turns.get(round));
                tallies.get(i).bandwidth(phase.measured(), phase.client(), phase.server());
            }
        }
        List<Budget> latencyTurns = Budget.turns(roundTrips, Duration.ZERO, options.rounds());
        for (int round = 0; round < latencyTurns.size(); round++) {
            for (int i : order(round, rows.size())) {
                long[] rtts = new long[(int) latencyTurns.get(round).iterations()];
                int warmup = round == 0 ? (int) Math.min(PerfMain.LATENCY_WARMUP, roundTrips) : TURN_WARMUP;
                rows.get(i).latency().run(size, warmup, rtts);
                tallies.get(i).latency(rtts);
            }
        }
        List<PerfResult> results = new ArrayList<>();
        for (int i = 0; i < rows.size(); i++) {
            results.add(tallies.get(i).result(rows.get(i).test(), size));
        }
        return results;
    }

    /** The rows' order in {@code round}: as given in even rounds, reversed in odd ones (A B, B A, ...). */
    static int[] order(int round, int rows) {
        int[] order = new int[rows];
        for (int k = 0; k < rows; k++) {
            order[k] = round % 2 == 0 ? k : rows - 1 - k;
        }
        return order;
    }

    /** One row's turns added up. */
    static final class Tally {
        private long operations;
        private long nanos;
        private double clientCpuNanos;
        private double serverCpuNanos;
        /** Heap octets both sides' event loops allocated, or -1 once a turn could not tell. */
        private long allocated;
        private final List<long[]> roundTrips = new ArrayList<>();

        void bandwidth(Measured m, ThreadUsage client, ThreadUsage server) {
            bandwidth(m, client.utilization(), server.utilization(), client.allocated(), server.allocated());
        }

        void bandwidth(Measured m, double clientCpu, double serverCpu, long clientAllocated, long serverAllocated) {
            operations += m.operations();
            nanos += m.nanos();
            clientCpuNanos += clientCpu * m.nanos();
            serverCpuNanos += serverCpu * m.nanos();
            allocated = allocated < 0 || clientAllocated < 0 || serverAllocated < 0 ? -1
                    : allocated + clientAllocated + serverAllocated;
        }

        void latency(long[] rtts) {
            roundTrips.add(rtts);
        }

        PerfResult result(String test, int size) {
            long[] all = roundTrips.stream().flatMapToLong(Arrays::stream).sorted().toArray();
            return PerfResult.of(test, size, new Measured(operations, nanos), all.length == 0 ? new long[] {0} : all,
                    clientCpuNanos / nanos, serverCpuNanos / nanos,
                    allocated < 0 ? Double.NaN : (double) allocated / operations, null);
        }
    }
}
