package io.softrdma.samples.rping;

import io.softrdma.cm.ConnectionManager;
import io.softrdma.cm.RdmaConnection;
import io.softrdma.mpa.MpaRejectedException;
import io.softrdma.mpa.MpaStartupException;
import io.softrdma.rdmap.TerminateException;
import io.softrdma.verbs.RdmaDevice;
import io.softrdma.verbs.WorkCompletionOpcode;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * rping's client ({@code rping_test_client}): connects, then for each ping
 *
 * <ol>
 *   <li>fills its start buffer with the ping's data and Sends {start buffer, STag, size}
 *       (RDMA_READ_ADV),
 *   <li>waits for the server's go-ahead: the server has RDMA Read the start buffer,
 *   <li>Sends {RDMA buffer, STag, size} (RDMA_WRITE_ADV),
 *   <li>waits for the server's go-ahead: the server has RDMA Written the data back into the RDMA buffer,
 * </ol>
 *
 * then compares the two buffers ({@code -V}) and prints the data ({@code -v}). At the end it
 * disconnects, which tells the server the run is over.
 */
final class RpingClient {
    private final RpingOptions options;
    private final ConnectionManager cm;
    private final RdmaDevice device;
    private final RpingConsole console;

    RpingClient(RpingOptions options, ConnectionManager cm, RdmaDevice device, RpingConsole console) {
        this.options = options;
        this.cm = cm;
        this.device = device;
        this.console = console;
    }

    /** Pings the server {@code -C} times (or until something fails); returns the pings completed. */
    int run() throws RpingException, InterruptedException {
        InetSocketAddress server = RpingServer.resolve(options.address(), options.port());
        RpingEndpoint ep = new RpingEndpoint(device, options.size(), true, options.timeout(), console);
        try {
            connect(ep, server);
            int pings = ping(ep);
            Throwable end = ep.closeAndWait();
            if (end != null) {
                console.debug("disconnect: %s", RpingEndpoint.describeEnd(end));
            }
            return pings;
        } finally {
            ep.close();
        }
    }

    private void connect(RpingEndpoint ep, InetSocketAddress server) throws RpingException, InterruptedException {
        String what = "connecting to " + RpingServer.format(server);
        console.debug("%s: MPA revision %d, CRC %s, peer-to-peer %s, IRD %d, ORD %d", what, options.mpaRevision(),
                options.crc() ? "on" : "off", options.peerToPeer(), RpingEndpoint.READ_DEPTH, RpingEndpoint.READ_DEPTH);
        CompletableFuture<RdmaConnection> connecting = cm.connect(server, ep.qp, new byte[0], options.mpaSettings(),
                options.timeout());
        RdmaConnection connection;
        try {
            connection = connecting.get(options.timeout().toNanos(), TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            throw new RpingException(what + ": not connected within " + RpingEndpoint.seconds(options.timeout())
                    + " s (--timeout)");
        } catch (ExecutionException e) {
            throw new RpingException(what + ": " + describeConnectFailure(e.getCause()), e.getCause());
        }
        ep.established(connection);
        console.debug("connected %s", RpingEndpoint.describeConnection(connection));
    }

    /** The reason a connect failed, as one clause. */
    static String describeConnectFailure(Throwable cause) {
        if (cause instanceof MpaRejectedException r) {
            byte[] pd = r.privateData();
            return "the server rejected the connection (MPA Reply with R=1"
                    + (pd.length > 0 ? ", private data \"" + printable(pd) + "\"" : "") + ")";
        }
        if (cause instanceof MpaStartupException s) {
            return "the MPA startup failed (" + s.reason() + "): " + s.getMessage();
        }
        if (cause instanceof java.net.ConnectException) {
            return "TCP connect failed: " + cause.getMessage();
        }
        return cause.getMessage() != null ? cause.getMessage() : cause.toString();
    }

    private static String printable(byte[] b) {
        String s = new String(b, StandardCharsets.ISO_8859_1);
        StringBuilder out = new StringBuilder();
        for (char c : s.toCharArray()) {
            out.append(c >= 0x20 && c < 0x7F ? c : '.');
        }
        return out.toString();
    }

    private int ping(RpingEndpoint ep) throws RpingException, InterruptedException {
        int size = options.size();
        int ping = 0;
        for (; options.count() == 0 || ping < options.count(); ping++) {
            String at = "ping " + ping;
            byte[] data = RpingPattern.bytes(ping, size);
            ep.startBuffer.buffer().setBytes(0, data);
            // rping leaves the sink as it was; cleared, a ping the server never wrote cannot pass -V.
            ep.rdmaBuffer.buffer().setZero(0, size);

            RpingInfo readAdvert = RpingEndpoint.advertise(ep.startBuffer, size);
            console.debug("%s: sending RDMA_READ_ADV %s", at, readAdvert);
            post(() -> ep.send(readAdvert), at + ", step 1/4 (sending RDMA_READ_ADV)");
            try {
                expectInfo(ep.await(at + ", step 2/4 (waiting for the server's go-ahead after its RDMA Read of "
                        + size + " octets)", WorkCompletionOpcode.RECEIVE, false), at + ", step 2/4");
            } catch (RpingException e) {
                throw withSizeHint(e);
            }
            console.debug("%s: go-ahead received: the server read the start buffer", at);

            RpingInfo writeAdvert = RpingEndpoint.advertise(ep.rdmaBuffer, size);
            console.debug("%s: sending RDMA_WRITE_ADV %s", at, writeAdvert);
            post(() -> ep.send(writeAdvert), at + ", step 3/4 (sending RDMA_WRITE_ADV)");
            expectInfo(ep.await(at + ", step 4/4 (waiting for the server's go-ahead after its RDMA Write)",
                    WorkCompletionOpcode.RECEIVE, false), at + ", step 4/4");
            console.debug("%s: go-ahead received: the server wrote the RDMA buffer", at);

            if (options.validate()) {
                byte[] echoed = new byte[size];
                ep.rdmaBuffer.buffer().getBytes(0, echoed);
                if (!Arrays.equals(data, echoed)) {
                    throw new RpingException(at + ": data mismatch: sent \""
                            + RpingPattern.cString(ep.startBuffer.buffer(), 0, size) + "\", the server wrote back \""
                            + RpingPattern.cString(ep.rdmaBuffer.buffer(), 0, size) + "\"");
                }
            }
            if (options.verbose()) {
                console.line("ping data: " + RpingPattern.cString(ep.rdmaBuffer.buffer(), 0, size));
            }
        }
        return ping;
    }

    /**
     * A Linux rping server reads into a buffer of its own {@code -S} octets: when this client's pings
     * are larger, its Read Response lands out of that buffer's bounds and the server terminates with
     * DDP "base or bounds violation" (Layer 1, EType 1, Code 1).
     */
    private RpingException withSizeHint(RpingException e) {
        if (e.getCause() instanceof TerminateException t && t.remote() && t.code().layer() == 1
                && t.code().errorType() == 1 && t.code().errorCode() == 1 && options.size() > RpingOptions.DEFAULT_SIZE) {
            return new RpingException(e.getMessage() + "; hint: a Linux rping server reads into a buffer of its own"
                    + " -S octets (default " + RpingOptions.DEFAULT_SIZE + "): start it with -S " + options.size(), t);
        }
        return e;
    }

    /** rping's client_recv: anything but a 16-octet message is "bogus data". */
    private static void expectInfo(RpingEndpoint.Received r, String at) throws RpingException {
        if (r.info() == null) {
            throw new RpingException(at + ": received bogus data: a Send of " + r.byteLength()
                    + " octets where rping's 16-octet message was due");
        }
    }

    /** Runs a post; one refused (the queue pair closed under it) is reported as the step's failure. */
    static void post(Runnable post, String step) throws RpingException {
        try {
            post.run();
        } catch (IllegalStateException | IllegalArgumentException e) {
            throw new RpingException(step + ": " + e.getMessage(), e);
        }
    }
}
