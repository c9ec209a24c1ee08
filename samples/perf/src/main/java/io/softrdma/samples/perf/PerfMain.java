package io.softrdma.samples.perf;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.util.ResourceLeakDetector;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.softrdma.cm.ConnectionManager;
import io.softrdma.mpa.MpaSettings;
import io.softrdma.samples.perf.PerfOptions.ReactiveTest;
import io.softrdma.samples.perf.PerfOptions.RsocketModel;
import io.softrdma.samples.perf.PerfProtocol.Test;
import io.softrdma.verbs.RdmaDevice;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The perf sample: RDMA Write, Read and Send over SoftRDMA, bandwidth and latency, and RFC 7306's
 * Fetch-and-Add and Compare-and-Swap on one word, rate and latency, each next to raw TCP measured the same
 * way in the same run. Runs server and client in one process on 127.0.0.1, or one side per process
 * ({@code --server --port P}, {@code --connect HOST:PORT}).
 *
 * <p>Why this class is long: it is the benchmark's driver — for every test and size, the SoftRDMA phase and the raw-TCP
 * phase after it with the same warm-ups, budgets and checks, and the verbs, reactive and RSocket suites' dispatch —
 * kept in one place so that both stacks of a row are measured alike; what each phase does lives in {@code
 * RdmaPerfClient}, {@code TcpBaseline}, {@code ReactivePerf}, {@code RsocketPerf} and {@code CachePerf}.
 */
public final class PerfMain {
    static final String SERVER_THREADS = "rdma-server";
    static final String CLIENT_THREADS = "rdma-client";
    /** Most of the path is compiled during the first test's warm-up, so that one lasts longer. */
    static final int FIRST_WARMUP_FACTOR = 3;
    /**
     * Round trips before latencies are recorded: past HotSpot's C2 thresholds (Tier4CompileThreshold 15,000), since a
     * round trip one at a time runs code the bandwidth phase did not make hot. With 2,000, C2 compiled it during the
     * measured round trips, and pinned to one CPU ({@code taskset -c 0}) the compiler's thread took that CPU from the
     * event loops: the 64 B Read's p99 came out 2-2.3 times raw TCP's; with 20,000, 0.83-1.36 times in six runs of
     * seven (docs/benchmarks.md).
     */
    static final int LATENCY_WARMUP = 20_000;
    /**
     * Operations a bandwidth warm-up runs at least, however short its time: past C2's thresholds, as {@link
     * #LATENCY_WARMUP}. A warm-up of seconds is tens of thousands of 64 KiB operations but a few thousand of 1 MiB,
     * and the path of a large message (its registration, the peer's Read, the READ_DONE) runs once per message: with
     * 3 s of warm-up (some 7,500 fire-and-forgets of 1 MiB) the first measured row of RSocket's fire-and-forget
     * over SoftRDMA ran at 2,000-2,900 MiB/s, and the same row measured again in that process at 3,400-4,300
     * (docs/benchmarks.md, "Issue 17: warm-ups past the JIT"). Each stack of a row gets the same warm-up; the
     * {@code --connections} rows, where each connection runs the budget, keep the time alone.
     */
    static final long WARMUP_OPERATIONS = LATENCY_WARMUP;
    /** How many seconds a bandwidth warm-up may run past its time to reach {@link #WARMUP_OPERATIONS}. */
    static final int WARMUP_OVERTIME_SECONDS = 20;
    static final Duration WARMUP_OVERTIME = Duration.ofSeconds(WARMUP_OVERTIME_SECONDS);
    /** The size of the request that stands for a Read Request in the TCP reference (RFC 5040 §4.4: 28). */
    private static final int READ_REQUEST = 28;

    private PerfMain() {
    }

    public static void main(String[] args) throws Exception {
        if (System.getProperty("io.netty.recycler.chunkSize") == null) {
            // Netty keeps 32 recycled objects per thread at hand and allocates a queue chunk for each
            // 32 beyond; a writev that completes hundreds of writes at once goes far beyond. Both
            // SoftRDMA and the raw TCP reference run with the larger batch (docs/benchmarks.md).
            System.setProperty("io.netty.recycler.chunkSize", "256");
        }
        if (System.getProperty("io.netty.leakDetection.level") == null) {
            // Sampled leak records capture stack traces: not what a measurement should include.
            ResourceLeakDetector.setLevel(ResourceLeakDetector.Level.DISABLED);
        }
        if (CacheOptions.isCacheRun(args)) {
            CachePerf.main(args); // its own options: RdmaCache against Redis
            return;
        }
        if (List.of(args).contains("--help")) {
            System.out.print(PerfOptions.USAGE);
            return;
        }
        PerfOptions options;
        try {
            options = PerfOptions.parse(args);
        } catch (IllegalArgumentException e) {
            System.err.println("perf: " + e.getMessage());
            System.err.print(PerfOptions.USAGE);
            System.exit(2);
            return;
        }
        run(options, System.out);
        System.exit(0);
    }

    /**
     * Runs what the options ask for, printing to {@code out} (JSON lines as results come, or a table at
     * the end); returns the results. In server mode, serves until the process ends.
     */
    static List<PerfResult> run(PerfOptions options, PrintStream out) throws Exception {
        MpaSettings mpa = MpaSettings.defaults().withRevision(options.mpaRevision()).withCrc(options.crc())
                .withMarkers(options.markers());
        if (options.server()) {
            serve(options, mpa, out);
            return List.of();
        }
        List<PerfResult> results = new ArrayList<>();
        int largest = Collections.max(options.sizes());
        ByteBuf payload = PooledByteBufAllocator.DEFAULT.directBuffer(Math.max(largest, 16));
        payload.writeZero(payload.capacity());
        try {
            if (!options.connections().isEmpty()) {
                ConnectionScale.run(options, mpa, payload, out, results);
            } else if (!options.tests().isEmpty()) {
                runVerbs(options, mpa, payload, out, results);
            }
            if (!options.reactiveTests().isEmpty() && options.connections().isEmpty()) {
                runReactive(options, payload, out, results);
            }
            if (!options.rsocketModels().isEmpty()) {
                runRsocket(options, payload, out, results);
            }
        } finally {
            payload.release();
        }
        if (!options.json()) {
            ResultPrinter.printTable(out, results, options);
        } else if (!options.reactiveTests().isEmpty() && options.connections().isEmpty()) {
            ResultPrinter.printReactiveRatiosJson(out, results);
        } else if (!options.rsocketModels().isEmpty()) {
            ResultPrinter.printRsocketRatiosJson(out, results);
        }
        return results;
    }

    private static void runVerbs(PerfOptions options, MpaSettings mpa, ByteBuf payload, PrintStream out,
            List<PerfResult> results) throws Exception {
        RdmaDevice device = RdmaDevice.create();
        try (ConnectionManager serverCm = options.connect() == null ? ConnectionManager.create(options.transport(),
                options.transport().newEventLoopGroup(1, new DefaultThreadFactory(SERVER_THREADS, true))) : null;
                ConnectionManager clientCm = ConnectionManager.create(options.transport(),
                        options.transport().newEventLoopGroup(1, new DefaultThreadFactory(CLIENT_THREADS, true)));
                Loopback tcp = options.baseline() ? new Loopback(options.transport()) : null) {
            InetSocketAddress target;
            RdmaPerfServer server = null;
            if (options.connect() == null) {
                server = new RdmaPerfServer(serverCm, device, "127.0.0.1", options.port(), mpa);
                target = new InetSocketAddress("127.0.0.1", server.port());
            } else {
                target = options.connectAddress();
            }
            RdmaPerfClient client = new RdmaPerfClient(clientCm, device, target, mpa, options.rate());
            try {
                boolean first = true;
                for (Test test : options.tests()) {
                    // An atomic has one size, its word: it runs once, whatever --size lists.
                    for (int size : test.atomic() ? List.of(PerfProtocol.ATOMIC_SIZE) : options.sizes()) {
                        results.add(print(out, options, measure(options, client, test, size, first)));
                        if (tcp != null) {
                            results.add(print(out, options, measureTcp(options, tcp, payload, test, size, first)));
                        }
                        first = false;
                    }
                }
            } finally {
                if (server != null) {
                    server.close();
                }
                shutdown(serverCm);
                shutdown(clientCm);
            }
        }
    }

    /**
     * The reactive API next to RSocket over TCP: for {@code send}, the reactive send/receive stream, then
     * RSocket fire-and-forget and request-stream; for {@code request}, reactive request/response, then
     * RSocket request-response; for {@code atomic}, {@code fetchAdd} and {@code compareAndSwap}, which
     * RSocket has no counterpart of, next to raw TCP (measured here unless the verbs tests already did). Each
     * warms up on the same connection first (longer the first time).
     */
    private static void runReactive(PerfOptions options, ByteBuf payload, PrintStream out,
            List<PerfResult> results) throws Exception {
        boolean tcpAtomics = options.baseline() && options.reactiveTests().contains(ReactiveTest.ATOMIC)
                && !options.tests().contains(Test.FETCH_ADD);
        try (ReactivePerf rx = new ReactivePerf(payload, options.crc(), options.markers(), options.port(),
                options.messaging());
                Loopback tcp = tcpAtomics ? new Loopback(options.transport()) : null) {
            for (ReactiveTest test : options.reactiveTests()) {
                if (test == ReactiveTest.ATOMIC) {
                    for (Test op : List.of(Test.FETCH_ADD, Test.COMPARE_SWAP)) {
                        WordCheck check = new WordCheck();
                        results.add(print(out, options, measureReactive(options, "rx-" + op.wireName(),
                                PerfProtocol.ATOMIC_SIZE, op == Test.FETCH_ADD,
                                (size, warmup, budget, progress, measuring) -> rx.rxAtomic(op, warmup, budget,
                                        progress, measuring, check),
                                (size, warmup, rtts) -> rx.rxAtomicLatency(op, warmup, rtts, check), check)));
                        if (tcp != null) {
                            results.add(print(out, options, measureTcp(options, tcp, payload, op,
                                    PerfProtocol.ATOMIC_SIZE, op == Test.FETCH_ADD)));
                        }
                    }
                    continue;
                }
                boolean first = true; // each test's path is compiled during its first warm-up
                for (int size : options.sizes()) {
                    if (test == ReactiveTest.SEND) {
                        results.add(print(out, options, measureReactive(options, "rx-send", size, first,
                                rx::rxSend, null, null)));
                        results.add(print(out, options, measureReactive(options, "rsocket-ff", size, first,
                                rx::rsocketFireAndForget, null, null)));
                        results.add(print(out, options, measureReactive(options, "rsocket-stream", size, first,
                                rx::rsocketStream, null, null)));
                    } else {
                        results.add(print(out, options, measureReactive(options, "rx-request", size, first,
                                rx::rxRequest, rx::rxLatency, null)));
                        results.add(print(out, options, measureReactive(options, "rsocket-rr", size, first,
                                rx::rsocketRequestResponse, rx::rsocketLatency, null)));
                    }
                    first = false;
                }
            }
        }
    }

    /**
     * One RSocket application over SoftRDMA and over TCP ({@link RsocketPerf}): for each interaction model and size,
     * the row over SoftRDMA, then its TCP twin, or with {@code --rounds} both in turns ({@link TransportTurns}). Each
     * warms up on its own connection first (longer at the model's first size); allocation and CPU are those of the
     * carrier's two event loops.
     */
    private static void runRsocket(PerfOptions options, ByteBuf payload, PrintStream out, List<PerfResult> results)
            throws Exception {
        try (RsocketPerf perf = new RsocketPerf(payload, options.crc(), options.markers(), options.port(),
                options.transport(), options.messaging(), options.baseline())) {
            for (RsocketModel model : options.rsocketModels()) {
                boolean first = true;
                for (int size : options.sizes()) {
                    List<TransportTurns.Row> rows = new ArrayList<>();
                    for (RsocketPerf.Stack stack : perf.stacks()) {
                        RsocketLoad load = stack.load();
                        ReactiveBandwidth bandwidth = switch (model) {
                            case FF -> load::fireAndForget;
                            case RR -> load::requestResponse;
                            case STREAM -> load::stream;
                        };
                        ReactiveLatency latency = switch (model) {
                            case FF -> load::fireAndForgetLatency;
                            case RR -> load::requestResponseLatency;
                            case STREAM -> load::streamLatency;
                        };
                        rows.add(new TransportTurns.Row("rsocket-" + model.wireName() + "-"
                                + stack.carrier().wireName(), stack.carrier().clientThreads(),
                                stack.carrier().serverThreads(), bandwidth, latency));
                    }
                    long roundTrips = rsocketRoundTrips(options, size);
                    if (options.rounds() > 1) {
                        for (PerfResult r : TransportTurns.measure(options, rows, size, first, roundTrips)) {
                            results.add(print(out, options, r));
                        }
                    } else {
                        for (TransportTurns.Row row : rows) {
                            results.add(print(out, options, measureReactive(options, row.test(), size, first,
                                    row.clientThreads(), row.serverThreads(), row.bandwidth(), row.latency(), null,
                                    roundTrips)));
                        }
                    }
                    first = false;
                }
            }
        }
    }

    /**
     * Round trips in an {@code --api rsocket} latency phase: as in the other rows, but no more than move 2 GiB each way
     * (2 048 at 1 MiB) unless {@code --iterations} says how many.
     */
    static long rsocketRoundTrips(PerfOptions options, int size) {
        if (options.iterations() > 0) {
            return options.iterations();
        }
        return Math.min(options.latencyRoundTrips(), Math.max(LATENCY_WARMUP, (2L << 30) / size));
    }

    /** A reactive or RSocket bandwidth phase. */
    @FunctionalInterface
    interface ReactiveBandwidth {
        Measured run(int size, Budget warmup, Budget budget, AtomicLong progress, Runnable measuring)
                throws Exception;
    }

    /** A reactive or RSocket latency phase: one request at a time. */
    @FunctionalInterface
    interface ReactiveLatency {
        void run(int size, int warmup, long[] rtts) throws Exception;
    }

    private static PerfResult measureReactive(PerfOptions options, String test, int size, boolean first,
            ReactiveBandwidth bandwidth, ReactiveLatency latency, WordCheck check) throws Exception {
        boolean rsocket = test.startsWith("rsocket-");
        return measureReactive(options, test, size, first,
                rsocket ? ReactivePerf.RSOCKET_CLIENT_THREADS : ReactivePerf.RX_CLIENT_THREADS,
                rsocket ? ReactivePerf.RSOCKET_SERVER_THREADS : ReactivePerf.RX_SERVER_THREADS, bandwidth, latency,
                check, options.latencyRoundTrips());
    }

    /**
     * A bandwidth phase (CPU and allocation of the threads named {@code clientThreads...} and
     * {@code serverThreads...}), then, with {@code latency}, {@code roundTrips} one at a time.
     */
    private static PerfResult measureReactive(PerfOptions options, String test, int size, boolean first,
            String clientThreads, String serverThreads, ReactiveBandwidth bandwidth, ReactiveLatency latency,
            WordCheck check, long roundTrips) throws Exception {
        String label = test + " " + ResultPrinter.size(size);
        Phase phase = bandwidthPhase(options, label + " bandwidth", size, clientThreads, serverThreads, bandwidth,
                warmupBudget(options, first), bandwidthBudget(options));
        Measured bw = phase.measured();
        Usage usage = Usage.of(phase.client(), phase.server(), bw);
        long[] rtts = {0};
        if (latency != null) {
            rtts = new long[(int) roundTrips];
            latency.run(size, (int) Math.min(LATENCY_WARMUP, roundTrips), rtts);
        }
        PerfResult r = result(test, size, bw, rtts, usage, check);
        if (latency == null) {
            // One-way streams have no round trip of their own.
            r = new PerfResult(r.test(), r.size(), r.iterations(), r.mibPerSecond(), r.messagesPerSecond(),
                    Double.NaN, Double.NaN, r.clientCpu(), r.serverCpu(), r.allocatedPerOperation(), r.check());
        }
        return r;
    }

    /**
     * What a reactive or RSocket bandwidth phase did, and its event loops' CPU and heap from the end of its warm-up
     * (read them at once: they run on until read).
     */
    record Phase(Measured measured, ThreadUsage client, ThreadUsage server) {
    }

    /**
     * Runs {@code bandwidth} once, {@code warmup} then {@code budget}, measuring the threads named {@code
     * clientThreads...} and {@code serverThreads...} once the warm-up is over, with a progress line {@code label}.
     */
    static Phase bandwidthPhase(PerfOptions options, String label, int size, String clientThreads,
            String serverThreads, ReactiveBandwidth bandwidth, Budget warmup, Budget budget) throws Exception {
        AtomicLong progress = new AtomicLong();
        try (Progress p = Progress.start(showProgress(options), label, budget, progress, warmup.isEmpty())) {
            ThreadUsage client = ThreadUsage.start(clientThreads);
            ThreadUsage server = ThreadUsage.start(serverThreads);
            Measured m = bandwidth.run(size, warmup, budget, progress, () -> {
                client.restart();
                server.restart();
                p.measuring();
            });
            return new Phase(m, client, server);
        }
    }

    /**
     * A bandwidth phase's warm-up: {@code --warmup} ({@value #FIRST_WARMUP_FACTOR} times that before a test's first
     * size), and at least {@link #WARMUP_OPERATIONS} operations, for at most {@link #WARMUP_OVERTIME} more.
     */
    static Budget warmupBudget(PerfOptions options, boolean first) {
        return Budget.warmup(first ? options.warmup().multipliedBy(FIRST_WARMUP_FACTOR) : options.warmup(),
                WARMUP_OPERATIONS, WARMUP_OVERTIME);
    }

    static void shutdown(ConnectionManager cm) {
        if (cm != null) {
            cm.eventLoopGroup().shutdownGracefully(0, 2, java.util.concurrent.TimeUnit.SECONDS).syncUninterruptibly();
        }
    }

    private static void serve(PerfOptions options, MpaSettings mpa, PrintStream out) throws InterruptedException {
        ConnectionManager cm = ConnectionManager.create(options.transport(),
                options.transport().newEventLoopGroup(0, new DefaultThreadFactory(SERVER_THREADS, true)));
        RdmaPerfServer server = new RdmaPerfServer(cm, RdmaDevice.create(), "0.0.0.0", options.port(), mpa);
        out.println("perf server listening on port " + server.port() + " (Ctrl-C to stop)");
        try {
            new CountDownLatch(1).await();
        } finally {
            server.close();
            shutdown(cm);
        }
    }

    private static PerfResult measure(PerfOptions options, RdmaPerfClient client, Test test, int size,
            boolean first) throws Exception {
        String label = test.wireName() + " " + ResultPrinter.size(size);
        Budget warmup = warmupBudget(options, first);
        Budget budget = bandwidthBudget(options);
        WordCheck check = new WordCheck();
        AtomicLong progress = new AtomicLong();
        Measured bw;
        ThreadUsage clientUsage;
        ThreadUsage serverUsage;
        try (Progress p = Progress.start(showProgress(options), label + " bandwidth", budget, progress,
                warmup.isEmpty())) {
            clientUsage = ThreadUsage.start(CLIENT_THREADS);
            serverUsage = ThreadUsage.start(SERVER_THREADS);
            bw = client.bandwidth(test, size, warmup, budget, progress, () -> {
                clientUsage.restart();
                serverUsage.restart();
                p.measuring();
            }, check);
        }
        Usage usage = Usage.of(clientUsage, options.connect() == null ? serverUsage : null, bw);
        long roundTrips = options.latencyRoundTrips();
        int latencyWarmup = (int) Math.min(LATENCY_WARMUP, roundTrips);
        long[] rtts;
        AtomicLong latProgress = new AtomicLong();
        try (Progress p = Progress.start(showProgress(options), label + " latency",
                Budget.of(latencyWarmup + roundTrips), latProgress, true)) {
            rtts = client.latency(test, size, roundTrips, latencyWarmup, latProgress, check);
        }
        return result(test.wireName(), size, bw, rtts, usage, check);
    }

    /**
     * The same for raw TCP: Write and Send as a one-way stream, Read as requests of 28 octets answered
     * with {@code size} octets, atomics as 52-octet requests answered with 12 octets by a server applying
     * them to a word; latency as one request answered at a time.
     */
    private static PerfResult measureTcp(PerfOptions options, Loopback tcp, ByteBuf payload, Test test, int size,
            boolean first) throws Exception {
        String label = "tcp-" + test.wireName() + " " + ResultPrinter.size(size);
        Budget budget = bandwidthBudget(options);
        // The raw-TCP path is compiled during its own warm-ups, as SoftRDMA's is.
        Budget warmup = warmupBudget(options, first);
        TcpReference reference = TcpBaseline.INSTANCE;
        WordCheck check = new WordCheck();
        AtomicLong progress = new AtomicLong();
        Measured bw;
        ThreadUsage clientUsage;
        ThreadUsage serverUsage;
        try (Progress p = Progress.start(showProgress(options), label + " bandwidth", budget, progress,
                warmup.isEmpty())) {
            clientUsage = ThreadUsage.start(Loopback.CLIENT_THREADS);
            serverUsage = ThreadUsage.start(Loopback.SERVER_THREADS);
            Runnable measuring = () -> {
                clientUsage.restart();
                serverUsage.restart();
                p.measuring();
            };
            if (test.atomic()) {
                bw = reference.atomic(tcp, test, warmup, budget, options.rate(), RdmaPerfClient.WINDOW, null,
                        progress, measuring, check);
            } else if (test == Test.READ) {
                bw = reference.requestResponse(tcp, payload, READ_REQUEST, size, warmup, budget, options.rate(),
                        RdmaPerfClient.WINDOW, null, progress, measuring);
            } else {
                bw = reference.stream(tcp, payload, size, warmup, budget, options.rate(), progress, measuring);
            }
        }
        Usage usage = Usage.of(clientUsage, serverUsage, bw);
        long roundTrips = options.latencyRoundTrips();
        int latencyWarmup = (int) Math.min(LATENCY_WARMUP, roundTrips);
        long[] rtts = new long[(int) roundTrips];
        if (test.atomic()) {
            reference.atomic(tcp, test, Budget.of(latencyWarmup), Budget.of(roundTrips), options.rate(), 1, rtts,
                    new AtomicLong(), () -> { }, check);
        } else {
            int request = test == Test.READ ? READ_REQUEST : size;
            int response = switch (test) {
                case WRITE -> 1;
                case READ, SEND -> size;
                case FETCH_ADD, COMPARE_SWAP -> throw new AssertionError(test);
            };
            reference.requestResponse(tcp, payload, request, response, Budget.of(latencyWarmup),
                    Budget.of(roundTrips), options.rate(), 1, rtts, new AtomicLong(), () -> { });
        }
        Arrays.sort(rtts);
        return result("tcp-" + test.wireName(), size, bw, rtts, usage, check);
    }

    static PerfResult print(PrintStream out, PerfOptions options, PerfResult r) {
        if (options.json()) {
            ResultPrinter.printJson(out, r, options);
        }
        return r;
    }

    private static boolean showProgress(PerfOptions options) {
        return options.progress() && !options.json();
    }

    static Budget bandwidthBudget(PerfOptions options) {
        return options.iterations() > 0 ? Budget.of(options.iterations()) : Budget.of(options.duration());
    }

    /** What the event loops used in a bandwidth phase: CPU per side, heap octets per operation. */
    private record Usage(double clientCpu, double serverCpu, double allocatedPerOperation) {
        static Usage of(ThreadUsage client, ThreadUsage server, Measured bw) {
            long allocated = client.allocated();
            if (server != null && allocated >= 0) {
                long s = server.allocated();
                allocated = s < 0 ? -1 : allocated + s;
            }
            return new Usage(client.utilization(), server == null ? Double.NaN : server.utilization(),
                    allocated < 0 ? Double.NaN : (double) allocated / bw.operations());
        }
    }

    private static PerfResult result(String test, int size, Measured bw, long[] sortedRtts, Usage usage,
            WordCheck check) {
        return PerfResult.of(test, size, bw, sortedRtts, usage.clientCpu(), usage.serverCpu(),
                usage.allocatedPerOperation(), check == null ? null : check.report());
    }
}
