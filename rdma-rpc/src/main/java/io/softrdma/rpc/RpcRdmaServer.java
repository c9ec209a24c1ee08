package io.softrdma.rpc;

import io.softrdma.cm.ConnectionManager;
import io.softrdma.cm.RdmaListener;
import io.softrdma.cm.RpcRdmaPrivateData;
import io.softrdma.mpa.MpaSettings;
import io.softrdma.verbs.RdmaDevice;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import reactor.core.Disposable;

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
 * <p>Thread safety: immutable builder; each connection's state lives on its event loop.
 */
public final class RpcRdmaServer {
    private static final RdmaDevice DEVICE = RdmaDevice.create("rpc-rdma-server");
    /**
     * The largest call this server takes, inline and Read chunks together (Linux's svcrdma takes about 1 MiB of
     * payload): the memory for a call's chunks is allocated before they are read, so a peer's lengths are
     * bounded here. A larger call is answered with ERR_CHUNK.
     */
    public static final int MAX_CALL_SIZE = (1 << 20) + 4096;

    private final String host;
    private final int port;
    private final MpaSettings mpa;
    private final int sendSize;
    private final int receiveSize;
    private final boolean remoteInvalidation;
    private final int maxRequests;
    private final RpcHandler handler;
    private final ConnectionManager connectionManager;

    private RpcRdmaServer(String host, int port, MpaSettings mpa, int sendSize, int receiveSize,
            boolean remoteInvalidation, int maxRequests, RpcHandler handler, ConnectionManager connectionManager) {
        this.host = host;
        this.port = port;
        this.mpa = mpa;
        this.sendSize = sendSize;
        this.receiveSize = receiveSize;
        this.remoteInvalidation = remoteInvalidation;
        this.maxRequests = maxRequests;
        this.handler = handler;
        this.connectionManager = connectionManager;
    }

    /** 127.0.0.1, port 20049, 4 KiB inline both ways, R set, 64 credits granted (as svcrdma), no handler yet. */
    public static RpcRdmaServer create() {
        return new RpcRdmaServer("127.0.0.1", RpcRdmaClient.DEFAULT_PORT, MpaSettings.defaults(), 4096, 4096, true,
                64, null, null);
    }

    public RpcRdmaServer host(String host) {
        return new RpcRdmaServer(Objects.requireNonNull(host, "host"), port, mpa, sendSize, receiveSize,
                remoteInvalidation, maxRequests, handler, connectionManager);
    }

    /** The port; 0 for any free one ({@link Bound#port()}). */
    public RpcRdmaServer port(int port) {
        if (port < 0 || port > 65535) {
            throw new IllegalArgumentException("port " + port + " is outside 0..65535");
        }
        return new RpcRdmaServer(host, port, mpa, sendSize, receiveSize, remoteInvalidation, maxRequests, handler,
                connectionManager);
    }

    public RpcRdmaServer mpa(MpaSettings mpa) {
        return new RpcRdmaServer(host, port, Objects.requireNonNull(mpa, "mpa"), sendSize, receiveSize,
                remoteInvalidation, maxRequests, handler, connectionManager);
    }

    /** The RFC 8797 sizes advertised: the largest reply Sent inline, and the largest call received inline. */
    public RpcRdmaServer inlineSizes(int send, int receive) {
        RpcRdmaPrivateData.of(remoteInvalidation, send, receive);
        return new RpcRdmaServer(host, port, mpa, send, receive, remoteInvalidation, maxRequests, handler,
                connectionManager);
    }

    /** Whether to set R: with the client's R too, replies to calls with chunks of one STag invalidate it. */
    public RpcRdmaServer remoteInvalidation(boolean remoteInvalidation) {
        return new RpcRdmaServer(host, port, mpa, sendSize, receiveSize, remoteInvalidation, maxRequests, handler,
                connectionManager);
    }

    /** The credits granted in every reply: the calls a client may have outstanding (receive buffers each). */
    public RpcRdmaServer maxRequests(int maxRequests) {
        if (maxRequests < 1 || maxRequests > 1024) {
            throw new IllegalArgumentException("maxRequests " + maxRequests + " is outside 1..1024");
        }
        return new RpcRdmaServer(host, port, mpa, sendSize, receiveSize, remoteInvalidation, maxRequests, handler,
                connectionManager);
    }

    public RpcRdmaServer handler(RpcHandler handler) {
        return new RpcRdmaServer(host, port, mpa, sendSize, receiveSize, remoteInvalidation, maxRequests,
                Objects.requireNonNull(handler, "handler"), connectionManager);
    }

    public RpcRdmaServer connectionManager(ConnectionManager connectionManager) {
        return new RpcRdmaServer(host, port, mpa, sendSize, receiveSize, remoteInvalidation, maxRequests, handler,
                Objects.requireNonNull(connectionManager, "connectionManager"));
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
        boolean ownsManager = connectionManager == null;
        ConnectionManager cm = ownsManager ? ConnectionManager.create(2) : connectionManager;
        RpcRdmaPrivateData local = RpcRdmaPrivateData.of(remoteInvalidation, sendSize, receiveSize);
        Set<RpcRdmaServerConnection> connections = ConcurrentHashMap.newKeySet();
        RdmaListener listener = cm.listen(new InetSocketAddress(host, port), mpa, request -> {
            RpcRdmaServerConnection c = RpcRdmaServerConnection.accept(DEVICE, request, local, maxRequests, handler,
                    connections::remove);
            if (c != null) {
                connections.add(c);
                if (c.ended().isDone()) {
                    connections.remove(c); // it ended before it was added
                }
            }
        });
        return new Bound(listener, cm, ownsManager, connections);
    }

    /** A listening server. */
    public static final class Bound implements Disposable {
        private final RdmaListener listener;
        private final ConnectionManager cm;
        private final boolean ownsManager;
        private final Set<RpcRdmaServerConnection> connections;
        private volatile boolean disposed;

        Bound(RdmaListener listener, ConnectionManager cm, boolean ownsManager,
                Set<RpcRdmaServerConnection> connections) {
            this.listener = listener;
            this.cm = cm;
            this.ownsManager = ownsManager;
            this.connections = connections;
        }

        public int port() {
            return listener.port();
        }

        /** Connections being served now. */
        public int connections() {
            return connections.size();
        }

        /**
         * Stops listening and closes every connection, waiting (up to 5 s) for each to end before its event loops
         * stop: calls still in a handler are then answered with nothing and release their buffers.
         */
        @Override
        public void dispose() {
            disposed = true;
            listener.close();
            List<CompletableFuture<Void>> ends = new ArrayList<>();
            for (RpcRdmaServerConnection c : connections) {
                c.close();
                ends.add(c.ended());
            }
            try {
                CompletableFuture.allOf(ends.toArray(CompletableFuture[]::new)).get(5, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (ExecutionException | TimeoutException e) {
                // closing anyway
            }
            if (ownsManager) {
                cm.close();
            }
        }

        @Override
        public boolean isDisposed() {
            return disposed;
        }
    }
}
