package io.softrdma.samples.rping;

import static org.assertj.core.api.Assertions.assertThat;

import io.softrdma.cm.ConnectionManager;
import io.softrdma.cm.RdmaConnection;
import io.softrdma.cm.RdmaListener;
import io.softrdma.mpa.MpaSettings;
import io.softrdma.verbs.Access;
import io.softrdma.verbs.CompletionQueue;
import io.softrdma.verbs.MemoryRegion;
import io.softrdma.verbs.ProtectionDomain;
import io.softrdma.verbs.QueuePair;
import io.softrdma.verbs.QueuePairConfig;
import io.softrdma.verbs.RdmaDevice;
import io.softrdma.verbs.ReceiveWorkRequest;
import io.softrdma.verbs.ScatterGatherEntry;
import io.softrdma.verbs.SendWorkRequest;
import io.softrdma.verbs.WorkCompletion;
import io.softrdma.verbs.WorkCompletionOpcode;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BiConsumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Failures end the run within the timeout, with exit status 1 and one line on standard error that
 * says which ping and step failed and why. The misbehaving peers are built on SoftRDMA's verbs.
 */
class RpingFailureTest {
    private final ConnectionManager cm = ConnectionManager.create(1);
    private final RdmaDevice device = RdmaDevice.create("fake-peer");
    private final List<AutoCloseable> cleanup = new CopyOnWriteArrayList<>();

    @AfterEach
    void close() throws Exception {
        for (AutoCloseable c : cleanup) {
            c.close();
        }
        cm.close();
    }

    @ParameterizedTest(name = "MPA revision {0}")
    @ValueSource(ints = {2, 1})
    void aServerClosingTheConnectionMidPingFailsTheClientClearly(int revision) throws Exception {
        // Reads the client's start buffer, then drops the connection instead of sending the go-ahead.
        int port = fakeServer(MpaSettings.defaults().withRevision(revision).withCrc(false), (peer, c) -> {
            if (c.opcode() == WorkCompletionOpcode.RECEIVE) {
                RpingInfo adv = RpingInfo.decode(peer.receive.buffer(), 0);
                peer.qp.postSend(SendWorkRequest.read(9, new ScatterGatherEntry(peer.sink, 0, adv.size()), adv.rkey(),
                        adv.buf()));
            } else if (c.opcode() == WorkCompletionOpcode.RDMA_READ) {
                peer.connection.get().channel().close();
            }
        });
        long start = System.nanoTime();
        RpingRun client = RpingRun.start("-c", "-a", "127.0.0.1", "-p", Integer.toString(port), "-C", "3", "-V",
                "--mpa-rev", Integer.toString(revision), "--timeout", "5");
        assertThat(client.exitCode(Duration.ofSeconds(10))).as("%s", client).isEqualTo(1);
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(5));
        assertThat(client.out()).isEmpty();
        String expected = "rping: error: ping 0, step 2/4 (waiting for the server's go-ahead after its RDMA Read of 64"
                + " octets): the connection closed without a Terminate (the peer closed or reset it)";
        if (revision == 1) {
            expected += "; hint: MPA revision 1 was negotiated, which carries no IRD/ORD, so a Linux siw peer has"
                    + " IRD=ORD=0 and cannot RDMA Read (use --mpa-rev 2)";
        }
        assertThat(client.err()).isEqualTo(expected + "\n");
    }

    @Test
    void aServerThatNeverAnswersTimesOut() throws Exception {
        int port = fakeServer(MpaSettings.defaults().withCrc(false), (peer, c) -> { });
        long start = System.nanoTime();
        RpingRun client = RpingRun.start("-c", "-a", "127.0.0.1", "-p", Integer.toString(port), "--timeout", "0.5");
        assertThat(client.exitCode(Duration.ofSeconds(10))).as("%s", client).isEqualTo(1);
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(5));
        assertThat(client.err()).isEqualTo("rping: error: ping 0, step 2/4 (waiting for the server's go-ahead after"
                + " its RDMA Read of 64 octets): nothing happened within 0.5 s (--timeout)\n");
    }

    @Test
    void noServerListening() throws Exception {
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        RpingRun client = RpingRun.start("-c", "-a", "127.0.0.1", "-p", Integer.toString(port), "--timeout", "5");
        assertThat(client.exitCode(Duration.ofSeconds(10))).isEqualTo(1);
        assertThat(client.err()).startsWith("rping: error: connecting to 127.0.0.1:" + port + ": TCP connect failed: ")
                .hasLineCount(1);
    }

    @Test
    void aRejectingServer() throws Exception {
        RdmaListener listener = cm.listen(new InetSocketAddress("127.0.0.1", 0), MpaSettings.defaults(),
                r -> r.reject("busy".getBytes(StandardCharsets.US_ASCII)));
        cleanup.add(listener);
        RpingRun client = RpingRun.start("-c", "-a", "127.0.0.1", "-p", Integer.toString(listener.port()));
        assertThat(client.exitCode(Duration.ofSeconds(10))).isEqualTo(1);
        assertThat(client.err()).isEqualTo("rping: error: connecting to 127.0.0.1:" + listener.port()
                + ": the server rejected the connection (MPA Reply with R=1, private data \"busy\")\n");
    }

    @Test
    void theServerNamesTheTerminateItReceived() throws Exception {
        RpingRun server = RpingRun.server("--timeout", "5");
        // A client whose advertisement names an STag it never registered: its RNIC answers the Read
        // Request with a Terminate (RFC 5040 §7.2: invalid STag).
        Peer peer = peer();
        RdmaConnection c = cm.connect(new InetSocketAddress("127.0.0.1", server.port()), peer.qp, new byte[0],
                MpaSettings.defaults().withCrc(false), Duration.ofSeconds(5)).get(5, TimeUnit.SECONDS);
        peer.connection.set(c);
        new RpingInfo(0x1000, 0x12345600, 64).encode(peer.send.buffer(), 0);
        peer.qp.postSend(SendWorkRequest.send(1, ScatterGatherEntry.of(peer.send)));
        assertThat(server.exitCode(Duration.ofSeconds(10))).as("%s", server).isEqualTo(1);
        assertThat(server.err()).startsWith("rping: error: connection from 127.0.0.1: ping 0, step 2/6 (RDMA Read of"
                + " 64 octets from the client's buf=0x0000000000001000 rkey=0x12345600 size=64): ")
                .contains("the peer sent a Terminate: layer 0 (RDMAP), etype 1, code 0x00: ").hasLineCount(1);
    }

    @Test
    void theServerReportsAClientThatLeavesMidPing() throws Exception {
        RpingRun server = RpingRun.server("--timeout", "5");
        Peer peer = peer();
        RdmaConnection c = cm.connect(new InetSocketAddress("127.0.0.1", server.port()), peer.qp, new byte[0],
                MpaSettings.defaults().withCrc(false), Duration.ofSeconds(5)).get(5, TimeUnit.SECONDS);
        // A proper RDMA_READ_ADV, then gone before the Read Response.
        new RpingInfo(peer.sink.baseTaggedOffset(), peer.sink.stag(), 64).encode(peer.send.buffer(), 0);
        peer.qp.postSend(SendWorkRequest.send(1, ScatterGatherEntry.of(peer.send)));
        peer.received.await(WorkCompletionOpcode.SEND);
        c.channel().close();
        assertThat(server.exitCode(Duration.ofSeconds(10))).as("%s", server).isEqualTo(1);
        assertThat(server.err()).startsWith("rping: error: connection from 127.0.0.1: ping 0, step ")
                .contains("the connection closed without a Terminate").hasLineCount(1);
    }

    @Test
    void aServerWithoutClientsGivesUpAfterTheTimeout() throws Exception {
        RpingRun server = RpingRun.server("--timeout", "0.3");
        assertThat(server.exitCode(Duration.ofSeconds(10))).isEqualTo(1);
        assertThat(server.err()).isEqualTo("rping: error: no client connected to 127.0.0.1:" + server.port()
                + " within 0.3 s (--timeout)\n");
    }

    // ---- misbehaving peers ----

    @Test
    void aClientDrippingItsMpaRequestLosesItsStartupSlotWithinTheCap() throws Exception {
        // A Request announcing 512 octets of private data, one octet per 100 ms: complete after 53 s. The server
        // (step timeout 30 s) must close it when the library's 5 s Request timeout runs out, not after --timeout.
        RpingRun server = RpingRun.server("-P", "--timeout", "30");
        byte[] request = new byte[20 + 512];
        System.arraycopy("MPA ID Req Frame".getBytes(StandardCharsets.US_ASCII), 0, request, 0, 16);
        request[17] = 1; // revision 1, no flags
        request[18] = 0x02; // PD_Length 512
        java.util.concurrent.ScheduledExecutorService drip = java.util.concurrent.Executors
                .newSingleThreadScheduledExecutor();
        try (java.net.Socket socket = new java.net.Socket("127.0.0.1", server.port())) {
            long connected = System.nanoTime();
            java.io.OutputStream out = socket.getOutputStream();
            java.util.concurrent.atomic.AtomicInteger sent = new java.util.concurrent.atomic.AtomicInteger();
            drip.scheduleAtFixedRate(() -> {
                int i = sent.get();
                if (i < request.length) {
                    try {
                        out.write(request[i]);
                        out.flush();
                        sent.incrementAndGet();
                    } catch (java.io.IOException closed) {
                        // the server closed the connection: what the test waits for
                    }
                }
            }, 0, 100, TimeUnit.MILLISECONDS);
            java.util.concurrent.CompletableFuture<Long> closedAfter = java.util.concurrent.CompletableFuture
                    .supplyAsync(() -> {
                        try {
                            while (socket.getInputStream().read() >= 0) {
                                // the server sends nothing before the whole Request; read until it closes
                            }
                        } catch (java.io.IOException reset) {
                            // a reset is a close too
                        }
                        return System.nanoTime() - connected;
                    });
            Duration after = Duration.ofNanos(closedAfter.get(RpingOptions.STARTUP_STEP_CAP.toMillis() + 3_000,
                    TimeUnit.MILLISECONDS));
            assertThat(after).as("closed at the Request timeout").isBetween(
                    RpingOptions.STARTUP_STEP_CAP.minusMillis(500), RpingOptions.STARTUP_STEP_CAP.plusSeconds(3));
            assertThat(sent.get()).as("octets dripped by then").isBetween(20, request.length - 1);
        } finally {
            drip.shutdownNow();
        }
        // The server goes on: a well-behaved client still gets its pings.
        RpingRun client = RpingRun.start("-c", "-a", "127.0.0.1", "-p", Integer.toString(server.port()), "-C", "2");
        assertThat(client.exitCode(Duration.ofSeconds(10))).as("%s", client).isZero();
        server.interrupt();
    }

    /** A peer's verbs resources: 16-octet receive and send buffers and a 64-octet sink. */
    private final class Peer implements AutoCloseable {
        final ProtectionDomain pd = device.allocateProtectionDomain();
        final CompletionQueue cq = device.createCompletionQueue(64);
        final QueuePair qp = pd.createQueuePair(QueuePairConfig.of(cq).withSendQueueDepth(16)
                .withReceiveQueueDepth(4).withReadDepths(1, 1));
        final MemoryRegion receive = pd.allocate(16, Access.of(Access.LOCAL_WRITE));
        final MemoryRegion send = pd.allocate(16, Access.of(Access.LOCAL_WRITE));
        final MemoryRegion sink = pd.allocate(4096, Access.all());
        final AtomicReference<RdmaConnection> connection = new AtomicReference<>();
        final Completions received = new Completions();

        Peer(BiConsumer<Peer, WorkCompletion> onCompletion) {
            qp.postReceive(ReceiveWorkRequest.of(1, ScatterGatherEntry.of(receive)));
            CompletionQueue.Handler handler = c -> {
                received.add(c.copy());
                if (c.isSuccess()) {
                    onCompletion.accept(this, c);
                }
            };
            cq.setListener(q -> {
                do {
                    while (cq.poll(handler, 16) > 0) {
                        // keep polling
                    }
                    cq.requestNotification(false);
                } while (cq.poll(handler, 16) > 0);
            });
            cq.requestNotification(false);
        }

        @Override
        public void close() throws java.util.concurrent.ExecutionException, java.util.concurrent.TimeoutException {
            qp.close();
            try {
                qp.closeFuture().handle((v, e) -> null).get(5, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } finally {
                pd.close();
            }
        }
    }

    private Peer peer() {
        Peer p = new Peer((peer, c) -> { });
        cleanup.add(p);
        return p;
    }

    /** A server that accepts every connection and does what {@code onCompletion} says. */
    private int fakeServer(MpaSettings settings, BiConsumer<Peer, WorkCompletion> onCompletion) {
        RdmaListener listener = cm.listen(new InetSocketAddress("127.0.0.1", 0), settings, r -> {
            Peer p = new Peer(onCompletion);
            cleanup.add(p);
            r.accept(p.qp, new byte[0]).thenAccept(p.connection::set);
        });
        cleanup.add(0, listener);
        return listener.port();
    }

    /** Completions seen by a peer, to wait on. */
    private static final class Completions {
        private final List<WorkCompletion> seen = new CopyOnWriteArrayList<>();

        synchronized void add(WorkCompletion c) {
            seen.add(c);
            notifyAll();
        }

        synchronized void await(WorkCompletionOpcode opcode) throws InterruptedException {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
            while (seen.stream().noneMatch(c -> c.opcode() == opcode)) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    throw new AssertionError("no " + opcode + " completion; seen " + seen);
                }
                TimeUnit.NANOSECONDS.timedWait(this, left);
            }
        }
    }
}
