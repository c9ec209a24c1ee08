package io.softrdma.rpc;

import io.softrdma.cm.RpcRdmaPrivateData;
import io.softrdma.mpa.MpaSettings;
import io.softrdma.rdmap.RdmapExtensions;
import io.softrdma.reactive.DisposableRdmaServer;
import io.softrdma.reactive.RdmaServer;
import io.softrdma.reactive.spi.SessionProtocol;
import io.softrdma.verbs.QueuePairConfig;
import io.softrdma.verbs.RdmaDevice;
import java.time.Duration;
import java.util.Arrays;
import java.util.Objects;
import java.util.function.UnaryOperator;
import reactor.core.Disposable;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;
import reactor.netty.tcp.TcpServer;

/**
 * Serves ONC RPC programs over RPC-over-RDMA version 1 (RFC 8166), by the rules Linux's svcrdma follows, so that
 * Java services can call each other as NFS clients call NFS servers: RFC 8797 private data in the MPA Reply, a
 * credit grant in every reply, Read chunks RDMA-Read back into place, bulk results RDMA-Written into the caller's
 * Write chunk, replies too large to send RDMA-Written into the Reply chunk, and Send with Invalidate when both ends
 * set R.
 *
 * <pre>{@code
 * RpcRdmaServer.Bound server = RpcRdmaServer.create().port(0).handler((call, args) ->
 *         Mono.just(RpcResult.success(Unpooled.EMPTY_BUFFER))).bind();
 * }</pre>
 *
 * <p>It is an {@link RdmaServer} running RPC-over-RDMA as its session protocol: the listening socket, the event loops
 * (reactor-netty's, changed with {@link #tcpConfiguration}), each connection's MPA startup, queue pair and lifecycle
 * are the sessions', as for every SoftRDMA server.
 *
 * <p>Thread safety: immutable builder; each connection's state lives on its event loop.
 */
public final class RpcRdmaServer {
    /**
     * The largest call this server takes, inline and Read chunks together (Linux's svcrdma takes about 1 MiB of
     * payload): the memory for a call's chunks is allocated before they are read, so a peer's lengths are
     * bounded here. A larger call is answered with ERR_CHUNK.
     */
    public static final int MAX_CALL_SIZE = (1 << 20) + 4096;
    /** How long {@link Bound#dispose()} waits for the connections to end. */
    private static final Duration DISPOSE_TIMEOUT = Duration.ofSeconds(5);

    private final RdmaServer rdma;
    private final int sendSize;
    private final int receiveSize;
    private final boolean remoteInvalidation;
    private final int maxRequests;
    private final RpcHandler handler;

    private RpcRdmaServer(RdmaServer rdma, int sendSize, int receiveSize, boolean remoteInvalidation,
            int maxRequests, RpcHandler handler) {
        this.rdma = rdma;
        this.sendSize = sendSize;
        this.receiveSize = receiveSize;
        this.remoteInvalidation = remoteInvalidation;
        this.maxRequests = maxRequests;
        this.handler = handler;
    }

    /**
     * 127.0.0.1, port 20049, {@link MpaSettings#defaults()}, 4 KiB inline both ways, R set, 64 credits granted (as
     * svcrdma), a device of its own, no handler yet.
     */
    public static RpcRdmaServer create() {
        RdmaServer rdma = RdmaServer.create().host("127.0.0.1").port(RpcRdmaClient.DEFAULT_PORT)
                .mpa(MpaSettings.defaults());
        return new RpcRdmaServer(rdma, 4096, 4096, true, 64, null);
    }

    private RpcRdmaServer with(RdmaServer rdma) {
        return new RpcRdmaServer(rdma, sendSize, receiveSize, remoteInvalidation, maxRequests, handler);
    }

    public RpcRdmaServer host(String host) {
        return with(rdma.host(Objects.requireNonNull(host, "host")));
    }

    /** The port; 0 for any free one ({@link Bound#port()}). */
    public RpcRdmaServer port(int port) {
        if (port < 0 || port > 65535) {
            throw new IllegalArgumentException("port " + port + " is outside 0..65535");
        }
        return with(rdma.port(port));
    }

    /** The MPA startup's settings as a whole. */
    public RpcRdmaServer mpa(MpaSettings mpa) {
        return with(rdma.mpa(Objects.requireNonNull(mpa, "mpa")));
    }

    /** The RFC 8797 sizes advertised: the largest reply Sent inline, and the largest call received inline. */
    public RpcRdmaServer inlineSizes(int send, int receive) {
        RpcRdmaPrivateData.of(remoteInvalidation, send, receive);
        return new RpcRdmaServer(rdma, send, receive, remoteInvalidation, maxRequests, handler);
    }

    /** Whether to set R: with the client's R too, replies to calls with chunks of one STag invalidate it. */
    public RpcRdmaServer remoteInvalidation(boolean remoteInvalidation) {
        return new RpcRdmaServer(rdma, sendSize, receiveSize, remoteInvalidation, maxRequests, handler);
    }

    /** The credits granted in every reply: the calls a client may have outstanding (receive buffers each). */
    public RpcRdmaServer maxRequests(int maxRequests) {
        if (maxRequests < 1 || maxRequests > 1024) {
            throw new IllegalArgumentException("maxRequests " + maxRequests + " is outside 1..1024");
        }
        return new RpcRdmaServer(rdma, sendSize, receiveSize, remoteInvalidation, maxRequests, handler);
    }

    public RpcRdmaServer handler(RpcHandler handler) {
        return new RpcRdmaServer(rdma, sendSize, receiveSize, remoteInvalidation, maxRequests,
                Objects.requireNonNull(handler, "handler"));
    }

    /**
     * The device whose protection domains, completion queues and queue pairs the connections get (each server made
     * by {@link #create()} has one of its own unless set).
     */
    public RpcRdmaServer device(RdmaDevice device) {
        return with(rdma.device(Objects.requireNonNull(device, "device")));
    }

    /** Further reactor-netty settings: loop resources (the event loops), wiretap, metrics. */
    public RpcRdmaServer tcpConfiguration(UnaryOperator<TcpServer> configure) {
        return with(rdma.tcpConfiguration(Objects.requireNonNull(configure, "configure")));
    }

    /**
     * Listens. Each MPA Request is accepted with a queue pair whose receives are posted first, and answered with
     * this server's RFC 8797 block.
     *
     * @throws IllegalStateException if no handler was set
     */
    public Bound bind() {
        if (handler == null) {
            throw new IllegalStateException("set a handler before bind()");
        }
        return new Bound(rdma.protocol(new Responder(sendSize, receiveSize, remoteInvalidation, maxRequests,
                handler)).bindNow());
    }

    /** A listening server. */
    public static final class Bound implements Disposable {
        private final DisposableRdmaServer server;
        private volatile boolean disposed;

        Bound(DisposableRdmaServer server) {
            this.server = server;
        }

        public int port() {
            return server.port();
        }

        /** Connections being served now. */
        public int connections() {
            return server.sessionCount();
        }

        /** The server underneath: its address, MPA startups, graceful disposal. */
        public DisposableRdmaServer server() {
            return server;
        }

        /**
         * Stops listening and closes every connection, waiting (up to 5 s; not at all on an event loop, which must
         * not block) for each to end: calls still in a handler are then answered with nothing and release their
         * buffers.
         */
        @Override
        public void dispose() {
            disposed = true;
            Mono<Void> closed = server.disposeGracefully(DISPOSE_TIMEOUT).onErrorResume(e -> Mono.empty());
            if (Schedulers.isInNonBlockingThread()) {
                closed.subscribe();
                return;
            }
            closed.block();
        }

        @Override
        public boolean isDisposed() {
            return disposed;
        }
    }

    /**
     * RPC-over-RDMA version 1, responder side, as a session protocol (RFC 5040 §1's ULP): RFC 8797 private data in
     * the MPA Reply, the queue pair shape, and a {@link RpcRdmaServerConnection} per connection.
     */
    private record Responder(int sendSize, int receiveSize, boolean remoteInvalidation, int maxRequests,
            RpcHandler handler) implements SessionProtocol {
        @Override
        public String name() {
            return "RPC-over-RDMA v1 (responder)";
        }

        /** RFC 8797 §5.2: the block first, as Linux's client reads it at offset 0 (after MPA's IRD/ORD block). */
        @Override
        public byte[] privateData(byte[] applicationData) {
            byte[] block = RpcRdmaPrivateData.of(remoteInvalidation, sendSize, receiveSize).encode();
            byte[] r = Arrays.copyOf(block, block.length + applicationData.length);
            System.arraycopy(applicationData, 0, r, block.length, applicationData.length);
            return r;
        }

        /**
         * A receive per credit granted (RFC 8166 §3.3.1); a send queue for every Read, Write and Send the calls
         * may need at once ({@link RpcRdmaServerConnection#sendQueueDepth}); ORD 16 for the Reads of Read chunks
         * (RFC 8166 §3.5.3), IRD 1: the requester never reads. No RFC 7306 extensions.
         */
        @Override
        public QueuePairConfig queuePair(QueuePairConfig configured) {
            return configured.withSendQueueDepth(RpcRdmaServerConnection.sendQueueDepth(maxRequests))
                    .withReceiveQueueDepth(maxRequests).withReadDepths(16, 1).withExtensions(RdmapExtensions.NONE);
        }

        @Override
        public Engine start(Context context) {
            return new RpcRdmaServerConnection(context, sendSize, receiveSize, maxRequests, handler);
        }
    }
}
