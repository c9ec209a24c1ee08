package io.softrdma.reactive.rpc;

import io.netty.channel.EventLoopGroup;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.softrdma.cm.ConnectionManager;
import io.softrdma.cm.RdmaTransport;
import io.softrdma.cm.RpcRdmaPrivateData;
import io.softrdma.mpa.MpaSettings;
import io.softrdma.verbs.RdmaDevice;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Objects;
import reactor.core.publisher.Mono;

/**
 * Connects to an RPC-over-RDMA version 1 server (RFC 8166), such as the Linux kernel's NFS server (svcrdma, port
 * 20049), and gives a {@link RpcRdmaConnection} to call its procedures. The MPA startup carries RFC 8797 private data
 * first (the Linux server reads it at offset 0): the inline sizes this side sends and receives, and whether it takes
 * Send with Invalidate.
 *
 * <pre>{@code
 * RpcRdmaConnection c = RpcRdmaClient.create().host("127.0.0.1").port(20049).connect().block();
 * RpcReply reply = c.call(100003, 4, 0, Unpooled.EMPTY_BUFFER).block(); // NFSv4 NULL
 * reply.release();
 * }</pre>
 *
 * <p>Thread safety: immutable; each setter returns a new client.
 */
public final class RpcRdmaClient {
    /** The IANA port of NFS over RDMA. */
    public static final int DEFAULT_PORT = 20049;
    private static final RdmaDevice DEVICE = RdmaDevice.create("rpc-rdma-client");

    private final String host;
    private final int port;
    private final MpaSettings mpa;
    private final int sendSize;
    private final int receiveSize;
    private final boolean remoteInvalidation;
    private final int maxCredits;
    private final RpcAuth credential;
    private final Duration connectTimeout;
    private final ConnectionManager connectionManager;

    private RpcRdmaClient(String host, int port, MpaSettings mpa, int sendSize, int receiveSize,
            boolean remoteInvalidation, int maxCredits, RpcAuth credential, Duration connectTimeout,
            ConnectionManager connectionManager) {
        this.host = host;
        this.port = port;
        this.mpa = mpa;
        this.sendSize = sendSize;
        this.receiveSize = receiveSize;
        this.remoteInvalidation = remoteInvalidation;
        this.maxCredits = maxCredits;
        this.credential = credential;
        this.connectTimeout = connectTimeout;
        this.connectionManager = connectionManager;
    }

    /** 127.0.0.1:20049, MPA defaults, 4 KiB inline both ways, Send with Invalidate accepted, 32 credits, AUTH_NONE. */
    public static RpcRdmaClient create() {
        return new RpcRdmaClient("127.0.0.1", DEFAULT_PORT, MpaSettings.defaults(), 4096, 4096, true, 32,
                RpcAuth.none(), Duration.ofSeconds(10), null);
    }

    public RpcRdmaClient host(String host) {
        return new RpcRdmaClient(Objects.requireNonNull(host, "host"), port, mpa, sendSize, receiveSize,
                remoteInvalidation, maxCredits, credential, connectTimeout, connectionManager);
    }

    public RpcRdmaClient port(int port) {
        if (port < 1 || port > 65535) {
            throw new IllegalArgumentException("port " + port + " is outside 1..65535");
        }
        return new RpcRdmaClient(host, port, mpa, sendSize, receiveSize, remoteInvalidation, maxCredits, credential,
                connectTimeout, connectionManager);
    }

    /** The MPA startup's settings (revision, CRC, Markers, peer-to-peer). */
    public RpcRdmaClient mpa(MpaSettings mpa) {
        return new RpcRdmaClient(host, port, Objects.requireNonNull(mpa, "mpa"), sendSize, receiveSize,
                remoteInvalidation, maxCredits, credential, connectTimeout, connectionManager);
    }

    /**
     * The RFC 8797 inline sizes this side advertises: the largest Send it transmits and the largest it receives
     * (1 KiB to 256 KiB in whole KiB). The inline thresholds are the smaller of these and the peer's.
     */
    public RpcRdmaClient inlineSizes(int send, int receive) {
        RpcRdmaPrivateData.of(remoteInvalidation, send, receive); // validates the sizes
        return new RpcRdmaClient(host, port, mpa, send, receive, remoteInvalidation, maxCredits, credential,
                connectTimeout, connectionManager);
    }

    /** Whether to advertise R: this side takes replies as Send with Invalidate of its chunk STags (RFC 8797 §4.1). */
    public RpcRdmaClient remoteInvalidation(boolean remoteInvalidation) {
        return new RpcRdmaClient(host, port, mpa, sendSize, receiveSize, remoteInvalidation, maxCredits, credential,
                connectTimeout, connectionManager);
    }

    /** The most calls outstanding: credits asked for, and receive buffers posted (RFC 8166 §3.3). */
    public RpcRdmaClient maxCredits(int maxCredits) {
        if (maxCredits < 1 || maxCredits > 1024) {
            throw new IllegalArgumentException("maxCredits " + maxCredits + " is outside 1..1024");
        }
        return new RpcRdmaClient(host, port, mpa, sendSize, receiveSize, remoteInvalidation, maxCredits, credential,
                connectTimeout, connectionManager);
    }

    /** The credential of every call (AUTH_NONE by default; {@link RpcAuth#sys} for NFS). */
    public RpcRdmaClient credential(RpcAuth credential) {
        return new RpcRdmaClient(host, port, mpa, sendSize, receiveSize, remoteInvalidation, maxCredits,
                Objects.requireNonNull(credential, "credential"), connectTimeout, connectionManager);
    }

    public RpcRdmaClient connectTimeout(Duration connectTimeout) {
        return new RpcRdmaClient(host, port, mpa, sendSize, receiveSize, remoteInvalidation, maxCredits, credential,
                Objects.requireNonNull(connectTimeout, "connectTimeout"), connectionManager);
    }

    /** The connection manager (event loops) to connect with; by default one shared, of daemon threads. */
    public RpcRdmaClient connectionManager(ConnectionManager connectionManager) {
        return new RpcRdmaClient(host, port, mpa, sendSize, receiveSize, remoteInvalidation, maxCredits, credential,
                connectTimeout, Objects.requireNonNull(connectionManager, "connectionManager"));
    }

    /** Connects: the TCP connection, the MPA startup with RFC 8797 private data, then receives posted. */
    public Mono<RpcRdmaConnection> connect() {
        ConnectionManager cm = connectionManager != null ? connectionManager : SharedLoops.MANAGER;
        return Mono.defer(() -> Mono.fromFuture(RpcRdmaConnection.connect(cm, DEVICE,
                new InetSocketAddress(host, port), mpa, RpcRdmaPrivateData.of(remoteInvalidation, sendSize,
                        receiveSize), maxCredits, credential, connectTimeout)));
    }

    /** One connection manager for clients that bring none: daemon threads, so it never keeps a JVM alive. */
    private static final class SharedLoops {
        static final ConnectionManager MANAGER;

        static {
            RdmaTransport kind = RdmaTransport.best();
            EventLoopGroup group = kind.newEventLoopGroup(2, new DefaultThreadFactory("rpc-rdma", true));
            MANAGER = ConnectionManager.create(kind, group);
        }
    }
}
