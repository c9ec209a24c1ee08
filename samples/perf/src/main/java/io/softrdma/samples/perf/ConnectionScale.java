package io.softrdma.samples.perf;

import io.netty.buffer.ByteBuf;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.softrdma.cm.ConnectionManager;
import io.softrdma.mpa.MpaSettings;
import io.softrdma.reactive.DisposableRdmaServer;
import io.softrdma.reactive.RdmaClient;
import io.softrdma.reactive.RdmaServer;
import io.softrdma.reactive.RdmaSession;
import io.softrdma.reactive.ReceivePool;
import io.softrdma.samples.perf.PerfOptions.ReactiveTest;
import io.softrdma.samples.perf.PerfProtocol.Phase;
import io.softrdma.samples.perf.PerfProtocol.Test;
import io.softrdma.verbs.RdmaDevice;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import reactor.core.publisher.Mono;
import reactor.netty.resources.LoopResources;

/**
 * {@code perf --connections N}: N client connections at once against one server — one event loop on each side, as
 * in the one-connection rows — each running the bandwidth phase of a row (verbs Write, Read, Send; reactive
 * {@code rx-send}, {@code rx-request}) with the window it has alone. A row reports the aggregate and per-connection
 * messages per second, and the memory per connection twice: idle (every connection up, no traffic) and busy (halfway
 * through the warm-up, or through the measured phase without one).
 *
 * <p>Memory, per connection, over what the process held before the connections opened ({@link ProcessMemory}): heap
 * after a full collection, and direct memory. In one process, that is the server's and its clients' together; the
 * {@code serverRegistered} figure is the server's alone: the memory its sessions registered (verbs: the perf
 * server's regions and receive buffers; reactive: each session's receive buffers, those of the pool included, and
 * send slots, as {@code SessionStatistics.bufferBytes} counts them).
 *
 * <p>Thread safety: called from the main thread; each phase runs on the event loops.
 *
 * <p>Why this class is long: it sets up, runs and measures N connections for both the verbs and the reactive rows,
 * with the memory read at the same points for each, so that their figures compare.
 */
final class ConnectionScale {
    /**
     * Receive and send queue depth of the reactive sessions: the library's defaults, set here so that the memory
     * arithmetic of docs/robustness.md holds (128 × 4 KiB = 512 KiB of receive buffers per session without a pool).
     */
    static final int DEPTH = 128;
    private static final Duration TIMEOUT = Duration.ofSeconds(60);
    private static final String SCOPE = "process: the server and its clients";

    private ConnectionScale() {
    }

    /**
     * Memory per connection over what the process held before the connections opened.
     *
     * @param heapPerConnection heap octets, after a full collection
     * @param directPerConnection direct memory octets
     * @param registeredPerConnection octets the server's sessions registered (the server's alone), or NaN when the
     *     server runs in another process
     */
    record MemoryPerConnection(double heapPerConnection, double directPerConnection, double registeredPerConnection) {
    }

    /**
     * What a {@code --connections} row adds to a row.
     *
     * @param connections how many ran at once
     * @param idle memory with every connection up and no traffic
     * @param busy memory in the middle of a bandwidth phase
     * @param memoryScope what the heap and direct figures cover; null when they are not measured (the server is in
     *     another process)
     * @param receivePool the reactive server's receive pool ("off", or its octets); null for the verbs rows
     */
    record Scale(int connections, MemoryPerConnection idle, MemoryPerConnection busy, String memoryScope,
            String receivePool) {
    }

    /** Starts one phase on every connection; completes with the operations completed across them all. */
    @FunctionalInterface
    private interface Load {
        CompletableFuture<Long> start(Budget budget);
    }

    /** Each verbs test, then each reactive test, at each size, for each number of connections. */
    static void run(PerfOptions options, MpaSettings mpa, ByteBuf payload, PrintStream out, List<PerfResult> results)
            throws Exception {
        checkDescriptors(Collections.max(options.connections()), options.connect() == null ? 2 : 1);
        RdmaDevice device = RdmaDevice.create();
        boolean first = true;
        for (Test test : options.tests()) {
            for (int size : options.sizes()) {
                for (int n : options.connections()) {
                    results.add(PerfMain.print(out, options, verbs(options, mpa, device, test, size, n, first)));
                    first = false;
                }
            }
        }
        first = true;
        for (ReactiveTest test : options.reactiveTests()) {
            for (int size : options.sizes()) {
                for (int n : options.connections()) {
                    results.add(PerfMain.print(out, options, reactive(options, payload, test, size, n, first)));
                    first = false;
                }
            }
        }
    }

    /**
     * Fails with what to do when this process may not open the sockets: {@code perSide} descriptors per connection
     * (2 in one process: both ends), and some for the JVM. It changes no limit itself.
     */
    static void checkDescriptors(int connections, int perConnection) {
        if (!(ManagementFactory.getOperatingSystemMXBean() instanceof com.sun.management.UnixOperatingSystemMXBean os)) {
            return;
        }
        long max = os.getMaxFileDescriptorCount();
        long open = os.getOpenFileDescriptorCount();
        long needed = (long) perConnection * connections + 64;
        if (open + needed > max) {
            throw new IllegalStateException(String.format(Locale.ROOT, "--connections %d needs about %d more file"
                    + " descriptors (%d per connection in this process, and some for the JVM), but this process may"
                    + " have %d open (ulimit -n) and has %d: raise the limit in the shell that starts perf (ulimit -n"
                    + " %d) or run fewer connections; perf changes no system setting itself", connections, needed,
                    perConnection, max, open, Math.max(4096, Long.highestOneBit(open + needed) << 1)));
        }
    }

    /** N verbs connections, each with the perf server's session for {@code test}. */
    private static PerfResult verbs(PerfOptions options, MpaSettings mpa, RdmaDevice device, Test test, int size,
            int n, boolean first) throws Exception {
        List<RdmaPerfClient.Session> sessions = new ArrayList<>();
        RdmaPerfServer server = null;
        try (ConnectionManager serverCm = options.connect() == null ? ConnectionManager.create(options.transport(),
                options.transport().newEventLoopGroup(1, new DefaultThreadFactory(PerfMain.SERVER_THREADS, true)))
                : null;
                ConnectionManager clientCm = ConnectionManager.create(options.transport(),
                        options.transport().newEventLoopGroup(1, new DefaultThreadFactory(PerfMain.CLIENT_THREADS,
                                true)))) {
            try {
                InetSocketAddress target;
                if (serverCm != null) {
                    server = new RdmaPerfServer(serverCm, device, "127.0.0.1", options.port(), mpa);
                    target = new InetSocketAddress("127.0.0.1", server.port());
                } else {
                    target = options.connectAddress();
                }
                RdmaPerfClient client = new RdmaPerfClient(clientCm, device, target, mpa, options.rate());
                ProcessMemory before = ProcessMemory.now();
                for (int i = 0; i < n; i++) {
                    sessions.add(client.open(test, Phase.BANDWIDTH, size));
                }
                Load load = budget -> {
                    List<CompletableFuture<Measured>> runs = new ArrayList<>(sessions.size());
                    for (RdmaPerfClient.Session s : sessions) {
                        runs.add(client.startBandwidth(s, test, size, budget, new AtomicLong()));
                    }
                    return CompletableFuture.allOf(runs.toArray(CompletableFuture[]::new))
                            .thenApply(v -> runs.stream().mapToLong(f -> f.join().operations()).sum());
                };
                RdmaPerfServer s = server;
                return measure(options, test.wireName(), size, n, first, before, s == null ? null : s::registeredBytes,
                        load, PerfMain.CLIENT_THREADS, PerfMain.SERVER_THREADS, s == null ? null : SCOPE, null);
            } finally {
                for (RdmaPerfClient.Session s : sessions) {
                    s.beginClose();
                }
                for (RdmaPerfClient.Session s : sessions) {
                    s.finishClose();
                }
                if (server != null) {
                    server.close();
                    // The server's sessions release their memory as their queue pairs close, on the server's loop:
                    // it must not stop before they have.
                    long deadline = System.nanoTime() + TIMEOUT.toNanos();
                    while (server.sessions() > 0 && System.nanoTime() - deadline < 0) {
                        Thread.sleep(5);
                    }
                }
                PerfMain.shutdown(serverCm);
                PerfMain.shutdown(clientCm);
            }
        }
    }

    /**
     * N reactive clients against one {@link RdmaServer}: {@code rx-send} into each server session's {@code receive()}
     * (the one-connection row's subscriber), or {@code rx-request} answered by each session's responder.
     */
    private static PerfResult reactive(PerfOptions options, ByteBuf payload, ReactiveTest test, int size, int n,
            boolean first) throws Exception {
        long poolOption = options.receivePool();
        ReceivePool serverPool = poolOption < 0 ? ReceivePool.of(ReceivePool.DEFAULT_CAPACITY)
                : poolOption == 0 ? null : ReceivePool.of(poolOption);
        ReceivePool clientPool = poolOption > 0 ? ReceivePool.of(poolOption) : null;
        LoopResources serverLoops = LoopResources.create(ReactivePerf.RX_SERVER_THREADS, 1, 1, true);
        LoopResources clientLoops = LoopResources.create(ReactivePerf.RX_CLIENT_THREADS, 1, true);
        List<RdmaSession> serverSessions = new CopyOnWriteArrayList<>();
        List<RdmaSession> clients = new ArrayList<>();
        Arrivals arrivals = new Arrivals();
        DisposableRdmaServer server = null;
        try {
            server = RdmaServer.create().host("127.0.0.1").port(options.port())
                    .mpa(MpaSettings.defaults().withCrc(options.crc()).withMarkers(options.markers()))
                    .queuePair(c -> c.withReceiveQueueDepth(DEPTH).withSendQueueDepth(DEPTH))
                    .receivePool(serverPool)
                    .maxSessions(Math.max(n, RdmaServer.DEFAULT_MAX_SESSIONS))
                    .tcpConfiguration(t -> t.runOn(serverLoops))
                    .handle(session -> {
                        if (test == ReactiveTest.REQUEST) {
                            session.respond(request -> Mono.just(ReactivePerf.message(payload,
                                    request.readableBytes())), ReactivePerf.WINDOW);
                        } else {
                            session.receive().subscribe(new ReactivePerf.Receiver(arrivals));
                        }
                        serverSessions.add(session);
                        return session.onDispose();
                    }).bindNow();
            RdmaClient connector = RdmaClient.create().host("127.0.0.1").port(server.port())
                    .mpa(RdmaClient.DEFAULT_MPA.withCrc(options.crc()).withMarkers(options.markers()))
                    .queuePair(c -> c.withReceiveQueueDepth(DEPTH).withSendQueueDepth(DEPTH))
                    .receivePool(clientPool)
                    .tcpConfiguration(t -> t.runOn(clientLoops));
            ProcessMemory before = ProcessMemory.now();
            for (int i = 0; i < n; i++) {
                clients.add(connector.connect().block(TIMEOUT));
            }
            // The handler runs once the server's side is in RDMA mode, which may follow the client's by a moment.
            long deadline = System.nanoTime() + TIMEOUT.toNanos();
            while (serverSessions.size() < n) {
                if (System.nanoTime() - deadline > 0) {
                    throw new IllegalStateException("the server has " + serverSessions.size() + " of " + n
                            + " sessions after " + TIMEOUT.toSeconds() + " s");
                }
                Thread.sleep(10);
            }
            Load load = test == ReactiveTest.SEND ? budget -> {
                long base = arrivals.count();
                List<CompletableFuture<Long>> sends = new ArrayList<>(n);
                for (RdmaSession c : clients) {
                    sends.add(ReactivePerf.startSendPhase(c, payload, size, budget, null));
                }
                // A phase ends when the receivers have counted every message sent.
                return CompletableFuture.allOf(sends.toArray(CompletableFuture[]::new)).thenCompose(v -> {
                    long sent = sends.stream().mapToLong(CompletableFuture::join).sum();
                    return arrivals.await(base + sent).thenApply(x -> sent);
                });
            } : budget -> {
                List<CompletableFuture<Long>> phases = new ArrayList<>(n);
                for (RdmaSession c : clients) {
                    phases.add(RequestLoop.startRequestPhase(k -> c.request(ReactivePerf.message(payload, k))
                            .map(ByteBuf::readableBytes), size, budget, ReactivePerf.WINDOW, null, null));
                }
                return CompletableFuture.allOf(phases.toArray(CompletableFuture[]::new))
                        .thenApply(v -> phases.stream().mapToLong(CompletableFuture::join).sum());
            };
            // What the server's sessions hold registered now: receive buffers (pooled ones included) and send slots.
            LongSupplier registered = () -> serverSessions.stream().mapToLong(s -> s.statistics().bufferBytes()).sum();
            return measure(options, "rx-" + test.wireName(), size, n, first, before, registered, load,
                    ReactivePerf.RX_CLIENT_THREADS, ReactivePerf.RX_SERVER_THREADS, SCOPE,
                    serverPool == null ? "off" : Long.toString(serverPool.capacity()));
        } finally {
            for (RdmaSession c : clients) {
                c.dispose();
            }
            for (RdmaSession c : clients) {
                c.onDispose().block(TIMEOUT);
            }
            for (RdmaSession s : serverSessions) {
                s.onDispose().block(TIMEOUT);
            }
            if (server != null) {
                server.disposeNow(TIMEOUT);
            }
            for (LoopResources loops : new LoopResources[] {clientLoops, serverLoops}) {
                loops.disposeLater(Duration.ZERO, Duration.ofSeconds(2)).block(TIMEOUT);
            }
        }
    }

    /**
     * Idle memory, then the warm-up (busy memory halfway through it), then the measured phase, timed from its start
     * on every connection to the last one's end.
     */
    private static PerfResult measure(PerfOptions options, String test, int size, int n, boolean first,
            ProcessMemory before, LongSupplier registered, Load load, String clientThreads, String serverThreads,
            String scope, String pool) throws Exception {
        MemoryPerConnection idle = perConnection(before, registered, n, scope != null);
        Budget warmup = Budget.of(first ? options.warmup().multipliedBy(PerfMain.FIRST_WARMUP_FACTOR)
                : options.warmup());
        Budget budget = PerfMain.bandwidthBudget(options);
        MemoryPerConnection busy = null;
        if (!warmup.isEmpty()) {
            CompletableFuture<Long> warming = load.start(warmup);
            busy = halfway(warmup, warming, before, registered, n, scope != null);
            warming.get(warmup.timeoutSeconds(), TimeUnit.SECONDS);
        }
        ThreadUsage clientUsage = ThreadUsage.start(clientThreads);
        ThreadUsage serverUsage = ThreadUsage.start(serverThreads);
        long start = System.nanoTime();
        CompletableFuture<Long> measured = load.start(budget);
        if (busy == null) {
            // No warm-up: the reading's collection pauses this phase once, which its rate then includes.
            busy = halfway(budget, measured, before, registered, n, scope != null);
        }
        long operations = measured.get(budget.timeoutSeconds(), TimeUnit.SECONDS);
        double seconds = (System.nanoTime() - start) / 1e9;
        double clientCpu = clientUsage.utilization();
        double serverCpu = scope == null ? Double.NaN : serverUsage.utilization();
        long allocated = clientUsage.allocated();
        if (scope != null && allocated >= 0) {
            long s = serverUsage.allocated();
            allocated = s < 0 ? -1 : allocated + s;
        }
        return new PerfResult(test, size, operations, (double) size * operations / seconds / (1024 * 1024),
                operations / seconds, Double.NaN, Double.NaN, clientCpu, serverCpu,
                allocated < 0 || operations == 0 ? Double.NaN : (double) allocated / operations, null,
                new Scale(n, idle, busy, scope, pool));
    }

    /** The memory reading halfway through a phase (at once if the phase ended sooner). */
    private static MemoryPerConnection halfway(Budget budget, CompletableFuture<Long> phase, ProcessMemory before,
            LongSupplier registered, int n, boolean inProcess) throws Exception {
        try {
            phase.get(budget.duration().toMillis() / 2, TimeUnit.MILLISECONDS);
        } catch (java.util.concurrent.TimeoutException e) {
            // still running: the reading is taken while it does
        }
        return perConnection(before, registered, n, inProcess);
    }

    private static MemoryPerConnection perConnection(ProcessMemory before, LongSupplier registered, int n,
            boolean inProcess) {
        double server = registered == null ? Double.NaN : (double) registered.getAsLong() / n;
        if (!inProcess) {
            return new MemoryPerConnection(Double.NaN, Double.NaN, server);
        }
        ProcessMemory now = ProcessMemory.now();
        return new MemoryPerConnection((double) (now.heap() - before.heap()) / n,
                (double) (now.direct() - before.direct()) / n, server);
    }

    /** The table of a {@code --connections} run: each row with its rate next to the same test on one connection. */
    static void printTable(PrintStream out, List<PerfResult> results, PerfOptions o) {
        out.printf(Locale.ROOT, "%nSoftRDMA perf --connections (%s transport, MPA CRC %s, Java %s): bandwidth phases"
                + " on every connection at once,%none server event loop, one client event loop; memory per connection"
                + " over the process before connecting%n(heap after GC, direct: both ends in this process; server"
                + " registered: the server's sessions alone)%n",
                o.transport().name().toLowerCase(Locale.ROOT), o.crc() ? "on" : "off",
                System.getProperty("java.version"));
        String header = String.format(Locale.ROOT, "%-11s %6s %5s %12s %11s %7s %9s %17s %17s %17s", "test", "size",
                "conns", "msgs/s", "per conn", "vs 1", "cpu c/s", "heap idle/busy", "direct idle/busy",
                "srv reg idle/busy");
        out.println(header);
        out.println("-".repeat(header.length()));
        for (PerfResult r : results) {
            Scale s = r.scale();
            PerfResult single = results.stream().filter(x -> x.test().equals(r.test()) && x.size() == r.size()
                    && x.scale().connections() == 1).findFirst().orElse(null);
            String vs = single == null ? "" : String.format(Locale.ROOT, "%.2fx",
                    r.messagesPerSecond() / single.messagesPerSecond());
            out.printf(Locale.ROOT, "%-11s %6s %5d %12.0f %11.0f %7s %9s %17s %17s %17s%n", r.test(),
                    ResultPrinter.size(r.size()), s.connections(), r.messagesPerSecond(),
                    r.messagesPerSecond() / s.connections(), vs, cpu(r.clientCpu()) + "/" + cpu(r.serverCpu()),
                    pair(s.idle().heapPerConnection(), s.busy().heapPerConnection()),
                    pair(s.idle().directPerConnection(), s.busy().directPerConnection()),
                    pair(s.idle().registeredPerConnection(), s.busy().registeredPerConnection()));
        }
        results.stream().map(r -> r.scale().receivePool()).filter(p -> p != null).findFirst().ifPresent(p -> out
                .println("rx rows: the server's receive pool " + (p.equals("off") ? "off (each session registers"
                        + " 128 x 4 KiB of receive buffers)" : "of " + octets(Double.parseDouble(p)))));
        out.flush();
    }

    private static String cpu(double v) {
        return Double.isNaN(v) ? "-" : String.format(Locale.ROOT, "%.0f%%", 100 * v);
    }

    private static String pair(double idle, double busy) {
        return octets(idle) + "/" + octets(busy);
    }

    /** Octets as B, KiB or MiB, one decimal at most. */
    static String octets(double v) {
        if (Double.isNaN(v)) {
            return "-";
        }
        double a = Math.abs(v);
        if (a >= 1024 * 1024) {
            return String.format(Locale.ROOT, "%.1fM", v / (1024 * 1024));
        }
        if (a >= 1024) {
            return String.format(Locale.ROOT, "%.1fK", v / 1024);
        }
        return String.format(Locale.ROOT, "%.0f", v);
    }
}
