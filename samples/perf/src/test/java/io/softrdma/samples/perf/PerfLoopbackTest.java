package io.softrdma.samples.perf;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.netty.util.concurrent.DefaultThreadFactory;
import io.softrdma.cm.ConnectionManager;
import io.softrdma.cm.RdmaListener;
import io.softrdma.cm.RdmaTransport;
import io.softrdma.mpa.MpaSettings;
import io.softrdma.samples.perf.PerfProtocol.Reply;
import io.softrdma.verbs.Access;
import io.softrdma.verbs.MemoryRegion;
import io.softrdma.verbs.ProtectionDomain;
import io.softrdma.verbs.QueuePair;
import io.softrdma.verbs.QueuePairConfig;
import io.softrdma.verbs.RdmaDevice;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * The perf sample end to end in one process, briefly: every test at a small and a multi-segment size
 * (the atomics once, on their word), over SoftRDMA and raw TCP, with the JSON lines a script would read.
 * Speed is not judged here (that is docs/benchmarks.md's job); that every operation completes and is
 * counted is, and for the atomics that the word holds what they imply.
 */
class PerfLoopbackTest {
    @Test
    void everyTestCompletesAndReportsJsonLines() throws Exception {
        PerfOptions options = PerfOptions.parse(new String[] {"--size", "64,100000", "--iterations", "300",
            "--warmup", "0", "--json", "--no-progress"});
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        List<PerfResult> results;
        try (PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8)) {
            results = PerfMain.run(options, out);
        }
        assertThat(results).extracting(PerfResult::test).containsExactly("write", "tcp-write", "write",
                "tcp-write", "read", "tcp-read", "read", "tcp-read", "send", "tcp-send", "send", "tcp-send",
                "fetch-add", "tcp-fetch-add", "compare-swap", "tcp-compare-swap");
        for (PerfResult r : results) {
            assertThat(r.iterations()).as("%s", r).isGreaterThanOrEqualTo(300);
            assertThat(r.mibPerSecond()).as("%s", r).isPositive();
            assertThat(r.messagesPerSecond()).as("%s", r).isPositive();
            assertThat(r.p50Micros()).as("%s", r).isPositive().isLessThanOrEqualTo(r.p99Micros());
        }
        String[] lines = bytes.toString(StandardCharsets.UTF_8).strip().split("\n");
        assertThat(lines).hasSize(results.size());
        for (String line : lines) {
            assertThat(line).startsWith("{\"test\":\"").endsWith("}")
                    .contains("\"size\":", "\"iterations\":", "\"MiBps\":", "\"msgsPerSec\":", "\"p50us\":",
                            "\"p99us\":");
        }
    }

    @Test
    void atomicsRunOnceAndLeaveTheWordTheyImply() throws Exception {
        // --size does not multiply the atomic rows: one word, 8 octets.
        PerfOptions options = PerfOptions.parse(new String[] {"--test", "atomic", "--size", "64,4K", "--iterations",
            "200", "--warmup", "0", "--no-progress"});
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        List<PerfResult> results;
        try (PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8)) {
            results = PerfMain.run(options, out);
        }
        assertThat(results).extracting(PerfResult::test).containsExactly("fetch-add", "tcp-fetch-add",
                "compare-swap", "tcp-compare-swap");
        for (PerfResult r : results) {
            assertThat(r.size()).as("%s", r).isEqualTo(8);
            assertThat(r.iterations()).as("%s", r).isEqualTo(200);
            assertThat(r.messagesPerSecond()).as("%s", r).isPositive();
            assertThat(r.p50Micros()).as("%s", r).isPositive().isLessThanOrEqualTo(r.p99Micros());
        }
        // 200 in the bandwidth phase; 200 warm-up round trips and 200 measured in the latency phase.
        String fetchAdd = "bandwidth: word 200 after 200 fetch-adds of 1; latency: word 400 after 400 fetch-adds of 1";
        String compareSwap = "bandwidth: word 0 after 200 compare-swaps of 0 for 0, each finding 0; latency: word 400"
                + " after 400 serial compare-swaps of v for v+1, each swapping";
        assertThat(results).extracting(PerfResult::check).containsExactly(fetchAdd, fetchAdd, compareSwap,
                compareSwap);
        String table = bytes.toString(StandardCharsets.UTF_8);
        assertThat(table).contains("tcp-*: raw TCP over Netty", "batched per flush");
        assertThat(table).contains("checked, the word after each phase:", "  fetch-add: " + fetchAdd,
                "  tcp-compare-swap: " + compareSwap);
        assertThat(table.lines().filter(l -> l.startsWith("fetch-add ") || l.startsWith("compare-swap ")))
                .as("a ratio to raw TCP on each SoftRDMA row").hasSize(2)
                .allMatch(l -> l.matches(".*\\d+% +\\d+\\.\\d+x.*"));
    }

    @Test
    void oneConnectionsStreamsKeep64KiBInFlightAndManyConnectionsGetTheDefault() throws Exception {
        assertThat(RdmaPerfClient.receivesToAsk(PerfProtocol.Test.SEND, 64)).isEqualTo(1024);
        assertThat(RdmaPerfClient.receivesToAsk(PerfProtocol.Test.SEND, 128)).isEqualTo(512);
        assertThat(RdmaPerfClient.receivesToAsk(PerfProtocol.Test.SEND, 256)).as("the default: 256").isZero();
        assertThat(RdmaPerfClient.receivesToAsk(PerfProtocol.Test.SEND, 4096)).isZero();
        assertThat(RdmaPerfClient.receivesToAsk(PerfProtocol.Test.WRITE, 64)).isZero();
        // Streams keep 64 KiB of small messages in flight, WINDOW of larger ones.
        assertThat(RdmaPerfClient.streamWindow(64)).isEqualTo(RdmaPerfClient.MAX_STREAM_WINDOW);
        assertThat(RdmaPerfClient.streamWindow(128)).isEqualTo(512);
        assertThat(RdmaPerfClient.streamWindow(4096)).isEqualTo(RdmaPerfClient.WINDOW);
        // What the field carries, and what a client that sends the old reserved zero gets.
        PerfProtocol.Request asked = new PerfProtocol.Request(PerfProtocol.Test.SEND, PerfProtocol.Phase.BANDWIDTH,
                64, 1024);
        assertThat(PerfProtocol.Request.decode(asked.encode())).isEqualTo(asked);
        PerfProtocol.Request old = new PerfProtocol.Request(PerfProtocol.Test.SEND, PerfProtocol.Phase.BANDWIDTH, 64);
        assertThat(RdmaPerfServer.Session.sendCredits(PerfProtocol.Request.decode(old.encode()))).isEqualTo(256);
        assertThat(RdmaPerfServer.Session.sendCredits(new PerfProtocol.Request(PerfProtocol.Test.SEND,
                PerfProtocol.Phase.BANDWIDTH, 1 << 20, 0))).isEqualTo(64);
        assertThat(RdmaPerfServer.Session.sendCredits(new PerfProtocol.Request(PerfProtocol.Test.SEND,
                PerfProtocol.Phase.BANDWIDTH, 64, 5000))).isEqualTo(RdmaPerfServer.MAX_RECEIVES);
        assertThat(RdmaPerfServer.Session.sendCredits(new PerfProtocol.Request(PerfProtocol.Test.SEND,
                PerfProtocol.Phase.BANDWIDTH, 64, 3))).isEqualTo(16);

        // And over a connection: the server posts what it grants, and a deep stream runs through its credits.
        RdmaTransport transport = RdmaTransport.best();
        RdmaDevice device = RdmaDevice.create();
        ConnectionManager cm = ConnectionManager.create(transport, transport.newEventLoopGroup(1,
                new DefaultThreadFactory("deep-receives", true)));
        try (RdmaPerfServer server = new RdmaPerfServer(cm, device, "127.0.0.1", 0, MpaSettings.defaults())) {
            RdmaPerfClient client = new RdmaPerfClient(cm, device, new InetSocketAddress("127.0.0.1",
                    server.port()), MpaSettings.defaults(), 0);
            try (RdmaPerfClient.Session many = client.open(PerfProtocol.Test.SEND, PerfProtocol.Phase.BANDWIDTH, 64);
                    RdmaPerfClient.Session deep = new RdmaPerfClient.Session(client, PerfProtocol.Test.SEND,
                            PerfProtocol.Phase.BANDWIDTH, 64, RdmaPerfClient.receivesToAsk(PerfProtocol.Test.SEND,
                                    64), true)) {
                assertThat(many.reply.receiveCredits()).isEqualTo(256);
                assertThat(deep.reply.receiveCredits()).isEqualTo(1024);
            }
            Measured m = client.bandwidth(PerfProtocol.Test.SEND, 64, Budget.of(0), Budget.of(5000), new AtomicLong(),
                    () -> { }, new WordCheck());
            assertThat(m.operations()).isEqualTo(5000);
            server.close();
            // The server's sessions release their memory on its loop as their queue pairs close: before it stops.
            await().atMost(Duration.ofSeconds(10)).until(() -> server.sessions() == 0);
        } finally {
            cm.eventLoopGroup().shutdownGracefully(0, 2, TimeUnit.SECONDS).syncUninterruptibly();
        }
    }

    @Test
    void atomicsNeedAServerThatAgreesToThem() throws Exception {
        // A server that does not offer RFC 7306 (as Linux siw): its queue pair has no extensions.
        RdmaTransport transport = RdmaTransport.best();
        RdmaDevice device = RdmaDevice.create();
        ConnectionManager cm = ConnectionManager.create(transport, transport.newEventLoopGroup(1,
                new DefaultThreadFactory("no-atomics", true)));
        java.util.List<QueuePair> accepted = new java.util.concurrent.CopyOnWriteArrayList<>();
        try {
            InetSocketAddress any = new InetSocketAddress("127.0.0.1", 0);
            RdmaListener listener = cm.listen(any, MpaSettings.defaults(), request -> {
                ProtectionDomain pd = device.allocateProtectionDomain();
                QueuePair qp = pd.createQueuePair(QueuePairConfig.of(device.createCompletionQueue(256)));
                MemoryRegion word = pd.allocate(8, Access.of(Access.LOCAL_WRITE, Access.REMOTE_READ));
                request.accept(qp, new Reply(word.stag(), word.baseTaggedOffset(), 8, 16).encode());
                qp.closeFuture().whenComplete((v, e) -> pd.close());
                accepted.add(qp);
            });
            try (listener) {
                RdmaPerfClient client = new RdmaPerfClient(cm, device,
                        new InetSocketAddress("127.0.0.1", listener.port()), MpaSettings.defaults(), 0);
                assertThatThrownBy(() -> client.bandwidth(PerfProtocol.Test.FETCH_ADD, 8, Budget.of(0),
                        Budget.of(10), new AtomicLong(), () -> { }, new WordCheck()))
                        .isInstanceOf(IllegalStateException.class)
                        .hasMessageContaining("did not agree to RFC 7306 atomics");
            }
        } finally {
            // The server's queue pair releases its memory when it closes: close it before the loops stop.
            for (QueuePair qp : accepted) {
                qp.close();
                qp.closeFuture().handle((v, e) -> null).get(5, TimeUnit.SECONDS);
            }
            cm.eventLoopGroup().shutdownGracefully(0, 2, TimeUnit.SECONDS).syncUninterruptibly();
        }
    }

    @Test
    void twoProcessModeServesAClient() throws Exception {
        // The server runs until its process ends (or, here, its thread is interrupted).
        int port = freePort();
        java.util.concurrent.CountDownLatch listening = new java.util.concurrent.CountDownLatch(1);
        PrintStream serverOut = new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8) {
            @Override
            public void println(String line) {
                super.println(line);
                if (line.startsWith("perf server listening")) {
                    listening.countDown();
                }
            }
        };
        Thread server = new Thread(() -> {
            try {
                PerfMain.run(PerfOptions.parse(new String[] {"--server", "--port", Integer.toString(port)}),
                        serverOut);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        }, "perf-test-server");
        server.setDaemon(true);
        server.start();
        PerfOptions client = PerfOptions.parse(new String[] {"--connect", "127.0.0.1:" + port, "--test", "write,send",
            "--size", "4K", "--iterations", "200", "--warmup", "0", "--json", "--no-progress"});
        assertThat(listening.await(10, TimeUnit.SECONDS)).as("the server says it listens").isTrue();
        List<PerfResult> results = PerfMain.run(client, new PrintStream(new ByteArrayOutputStream(), true,
                StandardCharsets.UTF_8));
        assertThat(results).extracting(PerfResult::test).containsExactly("write", "send");
        assertThat(results).allSatisfy(r -> assertThat(Double.isNaN(r.serverCpu())).isTrue());
        server.interrupt();
        server.join(10_000);
        assertThat(server.isAlive()).as("the server stops when interrupted").isFalse();
    }

    private static int freePort() throws Exception {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }
}
