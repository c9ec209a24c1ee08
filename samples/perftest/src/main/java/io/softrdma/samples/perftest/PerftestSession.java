package io.softrdma.samples.perftest;

import io.softrdma.cm.ConnectRequest;
import io.softrdma.cm.ConnectionManager;
import io.softrdma.cm.RdmaConnection;
import io.softrdma.cm.RdmaListener;
import io.softrdma.mpa.ReadyToReceive;
import io.softrdma.rdmap.RdmapOpcode;
import io.softrdma.verbs.ProtectionDomain;
import io.softrdma.verbs.QueuePair;
import io.softrdma.verbs.RdmaDevice;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * One perftest run with {@code -R}, as client or server, message for message as perftest 4.5-0.17 does it.
 *
 * <p><b>Connections.</b> Both go to the same port. First the control connection ({@code establish_connection}:
 * one RC queue pair, conn_param with IRD = ORD = 0, no private data of perftest's own, so the MPA private data is
 * the RFC 6581 IRD/ORD header alone). Then, after a handshake on it, the {@code -q} data connections
 * ({@code create_rdma_cm_connection}; IRD = ORD = out_reads for Read tests, 0 otherwise); a perftest server
 * listens for them anew only after that handshake, so a client retries a refused connect (perftest: 10 times,
 * 100 ms apart). A handshake follows them too.
 *
 * <p><b>The control exchange</b> (each step one Send each way, client first; see {@link CommChannel}):
 * <ol>
 *   <li>version, 16 octets ("6.06"; {@code exchange_versions}; a peer under 5.70 is refused),
 *   <li>cycle buffer then cache line size, 4 octets each, big-endian ({@code check_sys_data}, version ≥ 5.32),
 *   <li>the MTU as a decimal string, 2 octets ({@code check_mtu}, version ≥ 5.31),
 *   <li>a zero pingpong_dest, the data connections, a zero pingpong_dest,
 *   <li>the pingpong_dests: for _bw, one per QP, again one per QP, then one more; ib_send_bw and ib_send_lat
 *       put the single one between the two rounds; ib_write_lat and ib_read_lat add a single one first too,
 *   <li>per tool: the run, the end-of-test handshakes and, for ib_write_bw and ib_read_bw, the client's result
 *       (size, iterations, peak, average, message rate: five exchanges of 8 octets, {@code xchg_bw_reports}),
 *       which the server prints as its own; ib_write_lat ends without any.
 * </ol>
 *
 * <p>Thread safety: one run on one thread.
 */
final class PerftestSession {
    private final PerftestOptions options;
    private final ConnectionManager cm;
    private final RdmaDevice device;
    private final PrintStream out;
    private final Tool tool;
    private final boolean client;
    private final BlockingQueue<ConnectRequest> requests = new LinkedBlockingQueue<>();
    private String peerVersion = "?";
    /** The peer's pingpong_dest per QP, from the handshakes. */
    private PingpongDest[] remote;

    PerftestSession(PerftestOptions options, ConnectionManager cm, RdmaDevice device, PrintStream out) {
        this.options = options;
        this.cm = cm;
        this.device = device;
        this.out = out;
        this.tool = options.tool();
        this.client = options.client();
    }

    /** Runs the test; returns when both sides are done. */
    void run() throws PerftestException, InterruptedException {
        ProtectionDomain pd = device.allocateProtectionDomain();
        RdmaListener listener = null;
        CommChannel comm = null;
        DataPlane data = null;
        try {
            comm = new CommChannel(device, pd, client, options.timeout());
            if (client) {
                comm = connect(comm, pd, "the control connection");
            } else {
                listener = listen();
                if (options.port() == 0) {
                    line(" Listening on port " + listener.port()); // not perftest's: it has no -p 0
                }
                line("");
                line("************************************");
                line("* Waiting for client to connect... *");
                line("************************************");
                accept(comm.endpoint.qp, "the control connection");
            }
            preamble(comm);
            data = new DataPlane(device, pd, options);
            comm.handShake(PingpongDest.ZERO, "before the data connections");
            for (int q = 0; q < options.qps(); q++) {
                String what = "data connection " + q;
                if (client) {
                    connectData(data, q, what);
                } else {
                    accept(data.newEndpoint(q).qp, what, tool == Tool.WRITE_LAT);
                }
            }
            comm.handShake(PingpongDest.ZERO, "after the data connections");
            if (listener != null) {
                listener.close(); // perftest's server destroys its listening id here too
                listener = null;
            }
            DataPlane watched = data;
            comm.watch(watched::octetsMoved, watched::failure);
            printTestInfo();
            exchangeDests(comm, data);
            data.remote(remote);
            try {
                runTool(comm, data);
            } catch (PerftestException e) {
                throw new PerftestException(e.getMessage() + dataState(data), e.getCause());
            }
            if (client) {
                // perftest's server tears down as soon as its last message is out; closing first could cut that
                // message's completion short on its side (siw reports its Send failed). Let the server go first.
                lingerForPeerClose(comm);
            }
        } finally {
            if (data != null) {
                data.close();
            }
            if (comm != null) {
                comm.close();
            }
            if (listener != null) {
                listener.close();
            }
            for (ConnectRequest r; (r = requests.poll()) != null; ) {
                r.reject(new byte[0]);
            }
            pd.close();
        }
    }

    private void lingerForPeerClose(CommChannel comm) throws InterruptedException {
        try {
            comm.endpoint.qp.closeFuture().get(2, TimeUnit.SECONDS);
        } catch (ExecutionException | TimeoutException e) {
            // closed with an error, or still open: either way this side closes now
        }
    }

    private void runTool(CommChannel comm, DataPlane data) throws PerftestException, InterruptedException {
        switch (tool) {
            case WRITE_BW, READ_BW -> new BandwidthRun(options, data, out).rdmaBw(comm, remote);
            case SEND_BW -> new BandwidthRun(options, data, out).sendBw(comm, remote);
            case WRITE_LAT -> new LatencyRun(options, data, out).writeLat(remote);
            case READ_LAT -> new LatencyRun(options, data, out).readLat(comm, remote);
            case SEND_LAT -> new LatencyRun(options, data, out).sendLat(comm);
            default -> throw new IllegalStateException(tool.name());
        }
    }

    /** The data connections' state and traffic, for a failure report: where a stalled run stopped. */
    private static String dataState(DataPlane data) {
        StringBuilder s = new StringBuilder();
        for (int q = 0; q < data.endpoints.size(); q++) {
            QueuePair qp = data.endpoints.get(q).qp;
            var c = qp.counters();
            s.append("; data connection ").append(q).append(": ").append(qp.state());
            if (qp.closeFuture().isCompletedExceptionally()) {
                try {
                    qp.closeFuture().getNow(null);
                } catch (java.util.concurrent.CompletionException e) {
                    s.append(" (").append(Endpoint.describeEnd(e.getCause())).append(")");
                }
            }
            s.append(", received ");
            for (RdmapOpcode o : RdmapOpcode.values()) {
                long m = c.messages(o, true);
                if (m > 0) {
                    s.append(o).append(' ').append(m).append(" (").append(c.octets(o, true)).append(" octets) ");
                }
            }
            s.append("sent ");
            for (RdmapOpcode o : RdmapOpcode.values()) {
                long m = c.messages(o, false);
                if (m > 0) {
                    s.append(o).append(' ').append(m).append(" (").append(c.octets(o, false)).append(" octets) ");
                }
            }
        }
        return s.toString().stripTrailing();
    }

    // ---- connections ----

    private RdmaListener listen() throws PerftestException {
        InetSocketAddress local = new InetSocketAddress(options.port());
        try {
            return cm.listen(local, options.mpaSettings(), requests::add);
        } catch (Exception e) {
            // Netty rethrows the bind's checked exception (e.g. BindException) undeclared.
            throw new PerftestException("cannot listen on port " + options.port() + ": " + e.getMessage(), e);
        }
    }

    private RdmaConnection accept(QueuePair qp, String what) throws PerftestException, InterruptedException {
        return accept(qp, what, false);
    }

    private RdmaConnection accept(QueuePair qp, String what, boolean sendsFirst)
            throws PerftestException, InterruptedException {
        ConnectRequest r = requests.poll(options.timeout().toNanos(), TimeUnit.NANOSECONDS);
        if (r == null) {
            throw new PerftestException(what + ": no client connected to port " + options.port() + " within "
                    + options.timeout().toSeconds() + " s (--timeout)");
        }
        RdmaConnection c = await(r.accept(qp, new byte[0]), what + " from " + r.remoteAddress());
        if (sendsFirst && c.negotiation().readyToReceive() == ReadyToReceive.NONE) {
            // RFC 5044 §7.1.2: the responder sends nothing before the initiator's first FPDU; an ib_write_lat
            // client sends nothing before the server's first Write. Only an RFC 6581 RTR breaks the tie.
            throw new PerftestException(what + " from " + r.remoteAddress() + ": ib_write_lat's server writes first,"
                    + " but an MPA responder may not send before the initiator's first FPDU (RFC 5044 §7.1.2), and"
                    + " this client did not offer RFC 6581 peer-to-peer mode, whose ready-to-receive message would be"
                    + " that FPDU; give a Linux client siw's peer_to_peer=1 (or this sample's client --p2p write)");
        }
        return c;
    }

    private CommChannel connect(CommChannel comm, ProtectionDomain pd, String what)
            throws PerftestException, InterruptedException {
        CommChannel c = comm;
        long deadline = System.nanoTime() + options.timeout().toNanos();
        while (true) {
            try {
                connectOnce(c.endpoint.qp, what);
                return c;
            } catch (PerftestException e) {
                if (System.nanoTime() > deadline) {
                    throw e;
                }
                c.endpoint.retire();
                c = new CommChannel(device, pd, true, options.timeout());
                Thread.sleep(100); // perftest's retry delay
            }
        }
    }

    /**
     * A perftest server listens for the data connections only once the first zero handshake is done, so the
     * first connects may be refused: retried every 100 ms, as perftest's {@code rdma_cm_client_connection} does
     * (it gives up after 10; this side after the timeout, since a slow peer — a TCG guest — may need longer).
     */
    private void connectData(DataPlane data, int q, String what) throws PerftestException, InterruptedException {
        long deadline = System.nanoTime() + options.timeout().toNanos();
        while (true) {
            Endpoint e = data.newEndpoint(q);
            try {
                connectOnce(e.qp, what);
                return;
            } catch (PerftestException x) {
                if (System.nanoTime() > deadline) {
                    throw x;
                }
                Thread.sleep(100);
            }
        }
    }

    private RdmaConnection connectOnce(QueuePair qp, String what) throws PerftestException, InterruptedException {
        InetSocketAddress server = new InetSocketAddress(options.server(), options.port());
        if (server.isUnresolved()) {
            throw new PerftestException("cannot resolve the server's address " + options.server());
        }
        boolean data = !what.startsWith("the control");
        return await(cm.connect(server, qp, new byte[0], data ? options.dataMpaSettings() : options.mpaSettings(),
                options.timeout()), what + " to " + options.server() + ":" + options.port());
    }

    private RdmaConnection await(CompletableFuture<RdmaConnection> f, String what)
            throws PerftestException, InterruptedException {
        try {
            return f.get(options.timeout().toNanos(), TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            f.cancel(false);
            throw new PerftestException(what + ": not connected within " + options.timeout().toSeconds()
                    + " s (--timeout)");
        } catch (ExecutionException e) {
            Throwable c = e.getCause();
            throw new PerftestException(what + ": " + (c.getMessage() != null ? c.getMessage() : c.toString()), c);
        }
    }

    // ---- the control exchange ----

    /** exchange_versions, check_version_compatibility, check_sys_data, check_mtu. */
    private void preamble(CommChannel comm) throws PerftestException, InterruptedException {
        byte[] version = Arrays.copyOf(Reports.VERSION.getBytes(StandardCharsets.US_ASCII), 16);
        byte[] theirs = comm.exchange(version, "version");
        peerVersion = cString(theirs);
        double v = parseVersion(peerVersion);
        if (v < 5.70) {
            throw new PerftestException("the peer's perftest version is \"" + peerVersion + "\": perftest refuses"
                    + " versions older than 5.70 (\"Current implementation is not compatible...\")");
        }
        // v ≥ 5.32: cycle buffer (the page size) and cache line size, each 4 octets big-endian; the larger counts.
        comm.exchange(intBytes(DataPlane.CYCLE_BUFFER), "cycle buffer size");
        comm.exchange(intBytes(DataPlane.CACHE_LINE), "cache line size");
        // v ≥ 5.31: the active MTU's enum value as a decimal string in 2 octets (IBV_MTU_1024 = 3, as siw on a
        // 1500-octet link); it only matters for UD.
        comm.exchange(new byte[] {'3', 0}, "MTU");
    }

    private void exchangeDests(CommChannel comm, DataPlane data) throws PerftestException, InterruptedException {
        int n = options.qps();
        PingpongDest[] mine = new PingpongDest[n];
        for (int q = 0; q < n; q++) {
            mine[q] = data.dest(q, ThreadLocalRandom.current().nextInt(1 << 24));
        }
        remote = new PingpongDest[n];
        boolean latencyRdma = tool == Tool.WRITE_LAT || tool == Tool.READ_LAT;
        boolean send = tool.verb == Tool.Verb.SEND;
        if (latencyRdma) {
            comm.handShake(mine[0], "the first pingpong_dest");
        }
        for (int q = 0; q < n; q++) {
            remote[q] = comm.handShake(mine[q], "pingpong_dest of QP " + q);
        }
        if (send) {
            comm.handShake(mine[0], "pingpong_dest after the first round");
        }
        for (int q = 0; q < n; q++) {
            line(mine[q].describe("local", tool.verb));
        }
        for (int q = 0; q < n; q++) {
            remote[q] = comm.handShake(mine[q], "pingpong_dest of QP " + q + ", second round");
            line(remote[q].describe("remote", tool.verb));
        }
        if (!send) {
            comm.handShake(mine[0], "pingpong_dest after moving to RTR");
        }
    }

    /** ctx_print_test_info, the lines that mean something here. */
    private void printTestInfo() {
        line(Reports.RESULT_LINE);
        String kind = tool.latency ? "Latency" : "BW";
        line("                    " + tool.banner + " " + kind + " Test");
        line(" Dual-port       : OFF\t\tDevice         : " + device.name());
        line(" Number of qps   : " + options.qps() + "\t\tTransport type : IW");
        line(" Connection type : RC\t\tUsing SRQ      : OFF");
        line(" PCIe relax order: OFF");
        if (tool.verb == Tool.Verb.SEND) {
            line(" " + (client ? "TX" : "RX") + " depth        : " + (client ? options.txDepth() : options.rxDepth()));
        } else if (client || !tool.latency) {
            line(" TX depth        : " + options.txDepth());
        }
        if (tool.verb == Tool.Verb.READ) {
            line(" Outstand reads  : " + options.outReads());
        }
        line(" Mtu             : 1024[B]");
        line(" Link type       : Ethernet");
        line(" GID index       : 0");
        line(" Data ex. method : rdma_cm \t\tQP type        : RC");
        line(" Peer perftest   : " + peerVersion + " (this: SoftRDMA's, speaking " + Reports.VERSION + ")");
        line(Reports.RESULT_LINE);
    }

    private void line(String s) {
        out.println(s);
        out.flush();
    }

    static String cString(byte[] b) {
        int n = 0;
        while (n < b.length && b[n] != 0) {
            n++;
        }
        return new String(b, 0, n, StandardCharsets.US_ASCII);
    }

    /** atof: the leading number, 0 when there is none. */
    static double parseVersion(String s) {
        int n = 0;
        while (n < s.length() && (Character.isDigit(s.charAt(n)) || s.charAt(n) == '.')) {
            n++;
        }
        try {
            return n == 0 ? 0 : Double.parseDouble(s.substring(0, n));
        } catch (NumberFormatException e) {
            return 0;
        }
    }

    static byte[] intBytes(int v) {
        return new byte[] {(byte) (v >>> 24), (byte) (v >>> 16), (byte) (v >>> 8), (byte) v};
    }
}
