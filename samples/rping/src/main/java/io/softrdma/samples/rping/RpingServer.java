package io.softrdma.samples.rping;

import io.softrdma.cm.ConnectRequest;
import io.softrdma.cm.ConnectionManager;
import io.softrdma.cm.RdmaConnection;
import io.softrdma.cm.RdmaListener;
import io.softrdma.verbs.RdmaDevice;
import io.softrdma.verbs.WorkCompletionOpcode;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.Arrays;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * rping's server ({@code rping_test_server}): accepts a connection, then for each ping
 *
 * <ol>
 *   <li>waits for the client's RDMA_READ_ADV {buf, STag, size},
 *   <li>RDMA Reads that many octets from it into its RDMA buffer,
 *   <li>Sends the go-ahead (16 zero octets),
 *   <li>waits for the client's RDMA_WRITE_ADV,
 *   <li>RDMA Writes the string it read (its length + 1 octets) there,
 *   <li>Sends the go-ahead,
 * </ol>
 *
 * until the client disconnects. With {@code -V} it checks each ping's data against the pattern rping's
 * client generates for that ping number. With {@code -P} it serves every connection, each on its own
 * thread, until killed; otherwise it serves one and returns.
 *
 * <p>Unlike rping, whose buffer is its own {@code -S} octets, the RDMA buffer takes the largest ping an
 * rping client can send (65535 octets), so the two sides' {@code -S} need not match.
 */
final class RpingServer implements AutoCloseable {
    private final RpingOptions options;
    private final RdmaDevice device;
    private final RpingConsole console;
    private final RdmaListener listener;
    private final BlockingQueue<ConnectRequest> requests = new LinkedBlockingQueue<>();
    /** Without -P: whether a connection was taken already (later ones are rejected). */
    private final AtomicBoolean taken = new AtomicBoolean();
    private final AtomicInteger connections = new AtomicInteger();

    /**
     * Binds and listens.
     *
     * @throws RpingException when the address cannot be resolved or bound
     */
    RpingServer(RpingOptions options, ConnectionManager cm, RdmaDevice device, RpingConsole console)
            throws RpingException {
        this.options = options;
        this.device = device;
        this.console = console;
        InetSocketAddress local = resolve(options.address(), options.port());
        try {
            this.listener = cm.listen(local, options.mpaSettings(), this::onRequest);
        } catch (Exception e) {
            // Netty rethrows the bind's checked exception (e.g. BindException) undeclared.
            throw new RpingException("cannot listen on " + format(local) + ": " + e.getMessage(), e);
        }
    }

    /** The address bound (with the port chosen when {@code -p 0} was given). */
    InetSocketAddress localAddress() {
        return listener.localAddress();
    }

    /** On the event loop: hand the request to a serving thread; never block here. */
    private void onRequest(ConnectRequest request) {
        if (!options.persistent() && taken.getAndSet(true)) {
            console.debug("rejecting a second connection from %s: serving one already (use -P for more)",
                    host(request.remoteAddress()));
            request.reject(new byte[0]);
            return;
        }
        requests.add(request);
    }

    /**
     * Without {@code -P}: waits (at most the step timeout) for one connection, serves it and prints its
     * summary. With {@code -P}: serves connections until interrupted.
     */
    void run() throws RpingException, InterruptedException {
        if (!options.persistent()) {
            ConnectRequest request = requests.poll(options.timeout().toNanos(), TimeUnit.NANOSECONDS);
            if (request == null) {
                throw new RpingException("no client connected to " + format(localAddress()) + " within "
                        + RpingEndpoint.seconds(options.timeout()) + " s (--timeout)");
            }
            serve(request);
            return;
        }
        while (true) {
            ConnectRequest request = requests.take();
            Thread t = new Thread(() -> {
                try {
                    serve(request);
                } catch (RpingException e) {
                    console.error(e.getMessage());
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                } catch (RuntimeException e) {
                    console.error("connection from " + host(request.remoteAddress()) + ": " + e);
                }
            }, "rping-connection-" + connections.incrementAndGet());
            t.setDaemon(true);
            t.start();
        }
    }

    /** Accepts {@code request} and serves its pings until the client disconnects; prints the summary. */
    private void serve(ConnectRequest request) throws RpingException, InterruptedException {
        String peer = host(request.remoteAddress());
        String from = "connection from " + peer;
        console.debug("connect request from %s: %s%s", request.remoteAddress(), request.request(),
                request.irdOrd() != null ? ", " + request.irdOrd() : "");
        RpingEndpoint ep;
        try {
            ep = new RpingEndpoint(device, RpingOptions.MAX_SIZE, false, options.timeout(), console);
        } catch (RuntimeException e) {
            request.reject(new byte[0]);
            throw new RpingException(from + ": cannot set up the queue pair: " + e.getMessage(), e);
        }
        try {
            CompletableFuture<RdmaConnection> accepted = request.accept(ep.qp, new byte[0]);
            RdmaConnection connection;
            try {
                connection = accepted.get(options.timeout().toNanos(), TimeUnit.NANOSECONDS);
            } catch (TimeoutException e) {
                throw new RpingException(from + ": accepting: not in RDMA mode within "
                        + RpingEndpoint.seconds(options.timeout()) + " s (--timeout)");
            } catch (ExecutionException e) {
                throw new RpingException(from + ": accepting: " + RpingClient.describeConnectFailure(e.getCause()),
                        e.getCause());
            }
            ep.established(connection);
            console.debug("accepted %s", RpingEndpoint.describeConnection(connection));
            int served = servePings(ep, from);
            console.line("rping: " + from + ": " + served + " pings served"
                    + (options.validate() ? ", data verified" : ""));
        } finally {
            ep.close();
        }
    }

    private int servePings(RpingEndpoint ep, String from) throws RpingException, InterruptedException {
        int served = 0;
        while (true) {
            String at = from + ": ping " + served;
            RpingEndpoint.Received readAdvert = ep.await(at + ", step 1/6 (waiting for the client's RDMA_READ_ADV)",
                    WorkCompletionOpcode.RECEIVE, true);
            if (readAdvert == null) {
                console.debug("%s: the client disconnected", from);
                return served;
            }
            RpingInfo source = info(readAdvert, at + ", step 1/6");
            console.debug("%s: received RDMA_READ_ADV %s", at, source);
            int length = fitting(source, at + ", step 2/6");
            String reading = at + ", step 2/6 (RDMA Read of " + length + " octets from the client's " + source + ")";
            if (ep.qp.ord() == 0) {
                // siw's rping with MPA revision 1 ends up here; this queue pair would never send the Read.
                throw new RpingException(reading + ": the negotiated ORD is 0 (the client offered no IRD), so this"
                        + " side may not RDMA Read" + ep.hint());
            }
            RpingClient.post(() -> ep.read(source.rkey(), source.buf(), length), reading);
            ep.await(reading, WorkCompletionOpcode.RDMA_READ, false);
            console.debug("%s: RDMA Read of %d octets complete", at, length);
            if (options.verbose()) {
                console.line("server ping data: " + RpingPattern.cString(ep.rdmaBuffer.buffer(), 0, length));
            }
            if (options.validate()) {
                verify(ep, served, length, at);
            }

            RpingClient.post(() -> ep.send(RpingInfo.GO_AHEAD), at + ", step 3/6 (sending the go-ahead)");
            console.debug("%s: sent the go-ahead", at);

            RpingEndpoint.Received writeAdvert = ep.await(at + ", step 4/6 (waiting for the client's RDMA_WRITE_ADV)",
                    WorkCompletionOpcode.RECEIVE, false);
            RpingInfo sink = info(writeAdvert, at + ", step 4/6");
            console.debug("%s: received RDMA_WRITE_ADV %s", at, sink);
            // rping writes strlen(rdma_buf) + 1: the string read and its NUL.
            int echo = Math.min(RpingPattern.strlen(ep.rdmaBuffer.buffer(), 0, length) + 1, length);
            String writing = at + ", step 5/6 (RDMA Write of " + echo + " octets to the client's " + sink + ")";
            if (echo > sink.unsignedSize()) {
                throw new RpingException(writing + ": the client's buffer holds only " + sink.unsignedSize()
                        + " octets");
            }
            RpingClient.post(() -> ep.write(sink.rkey(), sink.buf(), echo), writing);
            ep.await(writing, WorkCompletionOpcode.RDMA_WRITE, false);
            console.debug("%s: RDMA Write of %d octets complete", at, echo);

            RpingClient.post(() -> ep.send(RpingInfo.GO_AHEAD), at + ", step 6/6 (sending the go-ahead)");
            console.debug("%s: sent the go-ahead", at);
            served++;
        }
    }

    /** rping's server_recv: anything but a 16-octet message is "bogus data". */
    private static RpingInfo info(RpingEndpoint.Received r, String at) throws RpingException {
        if (r.info() == null) {
            throw new RpingException(at + ": received bogus data: a Send of " + r.byteLength()
                    + " octets where rping's 16-octet message was due");
        }
        return r.info();
    }

    private static int fitting(RpingInfo source, String at) throws RpingException {
        if (source.unsignedSize() > RpingOptions.MAX_SIZE) {
            throw new RpingException(at + ": the client advertised " + source.unsignedSize() + " octets, more than"
                    + " the " + RpingOptions.MAX_SIZE + " an rping ping may have");
        }
        return source.size();
    }

    /** {@code -V} on the server: what was read must be the pattern rping's client makes for this ping. */
    private static void verify(RpingEndpoint ep, int ping, int length, String at) throws RpingException {
        if (length == 0) {
            return;
        }
        byte[] expected = RpingPattern.bytes(ping, length);
        byte[] read = new byte[length];
        ep.rdmaBuffer.buffer().getBytes(0, read);
        if (!Arrays.equals(expected, read)) {
            throw new RpingException(at + ": data mismatch: read \"" + RpingPattern.cString(ep.rdmaBuffer.buffer(), 0,
                    length) + "\", rping's pattern for this ping is \"" + RpingPattern.prefix(ping) + "...\" with its"
                    + " run starting at '" + (char) RpingPattern.startChar(ping) + "'");
        }
    }

    @Override
    public void close() {
        listener.close();
        // Connections that arrived but were never served: tell their clients.
        for (ConnectRequest r; (r = requests.poll()) != null; ) {
            r.reject(new byte[0]);
        }
    }

    /**
     * Resolves {@code host} as rping's {@code get_addr} does (a name or a literal).
     *
     * @throws RpingException naming the address when it cannot be resolved
     */
    static InetSocketAddress resolve(String host, int port) throws RpingException {
        InetSocketAddress a = new InetSocketAddress(host, port);
        if (a.isUnresolved()) {
            throw new RpingException("cannot resolve the address " + host);
        }
        return a;
    }

    /** HOST:PORT, the host as a numeric address (IPv6 in brackets). */
    static String format(InetSocketAddress a) {
        return literal(a.getAddress()) + ":" + a.getPort();
    }

    /** The numeric address of a peer, for "connection from ADDR". */
    static String host(SocketAddress a) {
        if (a instanceof InetSocketAddress i && i.getAddress() != null) {
            return literal(i.getAddress()).replace("[", "").replace("]", "");
        }
        return String.valueOf(a);
    }

    private static String literal(InetAddress a) {
        String s = a.getHostAddress();
        return a instanceof Inet6Address ? "[" + s + "]" : s;
    }
}
