package io.softrdma.rpc;

import io.softrdma.cm.RpcRdmaPrivateData;
import io.softrdma.mpa.MpaSettings;
import io.softrdma.rdmap.RdmapExtensions;
import io.softrdma.reactive.RdmaClient;
import io.softrdma.reactive.RdmaSession;
import io.softrdma.reactive.spi.SessionProtocol;
import io.softrdma.verbs.QueuePairConfig;
import io.softrdma.verbs.RdmaDevice;
import java.time.Duration;
import java.util.Arrays;
import java.util.Objects;
import java.util.function.UnaryOperator;
import reactor.core.publisher.Mono;
import reactor.netty.tcp.TcpClient;

/**
 * Connects to an RPC-over-RDMA version 1 server (RFC 8166), such as the Linux kernel's NFS server (svcrdma, port
 * 20049), and gives a {@link RpcRdmaConnection} to call its procedures. The MPA startup carries RFC 8797 private data
 * first (the Linux server reads it at offset 0): the inline sizes this side sends and receives, and whether it takes
 * Send with Invalidate.
 *
 * <p>It is an {@link RdmaClient} running RPC-over-RDMA as its session protocol: the TCP connection, the event loops
 * (reactor-netty's, changed with {@link #tcpConfiguration}), the MPA startup, the queue pair and its lifecycle are
 * the session's, as for every SoftRDMA client ({@link RpcRdmaConnection#session()}).
 *
 * <pre>{@code
 * RpcRdmaConnection c = RpcRdmaClient.create().host(host).port(port).connect().block();
 * RpcReply reply = c.call(100003, 4, 0, Unpooled.EMPTY_BUFFER).block(); // NFSv4 NULL
 * reply.release();
 * }</pre>
 *
 * <p>Thread safety: immutable; each setter returns a new client.
 */
public final class RpcRdmaClient {
    /** The IANA port of NFS over RDMA. */
    public static final int DEFAULT_PORT = 20049;

    private final RdmaClient rdma;
    private final int sendSize;
    private final int receiveSize;
    private final boolean remoteInvalidation;
    private final int maxCredits;
    private final RpcAuth credential;

    private RpcRdmaClient(RdmaClient rdma, int sendSize, int receiveSize, boolean remoteInvalidation, int maxCredits,
            RpcAuth credential) {
        this.rdma = rdma;
        this.sendSize = sendSize;
        this.receiveSize = receiveSize;
        this.remoteInvalidation = remoteInvalidation;
        this.maxCredits = maxCredits;
        this.credential = credential;
    }

    /**
     * 127.0.0.1:20049, {@link MpaSettings#defaults()} (revision 2, CRC, no peer-to-peer mode: the requester speaks
     * first), 4 KiB inline both ways, Send with Invalidate accepted, 32 credits, AUTH_NONE, a device of its own.
     */
    public static RpcRdmaClient create() {
        RdmaClient rdma = RdmaClient.create().host("127.0.0.1").port(DEFAULT_PORT).mpa(MpaSettings.defaults())
                .connectTimeout(Duration.ofSeconds(10));
        return new RpcRdmaClient(rdma, 4096, 4096, true, 32, RpcAuth.none());
    }

    private RpcRdmaClient with(RdmaClient rdma) {
        return new RpcRdmaClient(rdma, sendSize, receiveSize, remoteInvalidation, maxCredits, credential);
    }

    public RpcRdmaClient host(String host) {
        return with(rdma.host(Objects.requireNonNull(host, "host")));
    }

    public RpcRdmaClient port(int port) {
        if (port < 1 || port > 65535) {
            throw new IllegalArgumentException("port " + port + " is outside 1..65535");
        }
        return with(rdma.port(port));
    }

    /** The MPA startup's settings (revision, CRC, Markers, peer-to-peer), as a whole. */
    public RpcRdmaClient mpa(MpaSettings mpa) {
        return with(rdma.mpa(Objects.requireNonNull(mpa, "mpa")));
    }

    /**
     * The RFC 8797 inline sizes this side advertises: the largest Send it transmits and the largest it receives
     * (1 KiB to 256 KiB in whole KiB). The inline thresholds are the smaller of these and the peer's.
     */
    public RpcRdmaClient inlineSizes(int send, int receive) {
        RpcRdmaPrivateData.of(remoteInvalidation, send, receive); // validates the sizes
        return new RpcRdmaClient(rdma, send, receive, remoteInvalidation, maxCredits, credential);
    }

    /** Whether to advertise R: this side takes replies as Send with Invalidate of its chunk STags (RFC 8797 §4.1). */
    public RpcRdmaClient remoteInvalidation(boolean remoteInvalidation) {
        return new RpcRdmaClient(rdma, sendSize, receiveSize, remoteInvalidation, maxCredits, credential);
    }

    /** The most calls outstanding: credits asked for, and receive buffers posted (RFC 8166 §3.3). */
    public RpcRdmaClient maxCredits(int maxCredits) {
        if (maxCredits < 1 || maxCredits > 1024) {
            throw new IllegalArgumentException("maxCredits " + maxCredits + " is outside 1..1024");
        }
        return new RpcRdmaClient(rdma, sendSize, receiveSize, remoteInvalidation, maxCredits, credential);
    }

    /** The credential of every call (AUTH_NONE by default; {@link RpcAuth#sys} for NFS). */
    public RpcRdmaClient credential(RpcAuth credential) {
        return new RpcRdmaClient(rdma, sendSize, receiveSize, remoteInvalidation, maxCredits,
                Objects.requireNonNull(credential, "credential"));
    }

    /** How long the TCP connect may take (10 s by default); the MPA Reply has {@link MpaSettings#replyTimeout()}. */
    public RpcRdmaClient connectTimeout(Duration connectTimeout) {
        return with(rdma.connectTimeout(Objects.requireNonNull(connectTimeout, "connectTimeout")));
    }

    /**
     * The device whose protection domains, completion queues and queue pairs the connections get (each client made
     * by {@link #create()} has one of its own unless set).
     */
    public RpcRdmaClient device(RdmaDevice device) {
        return with(rdma.device(Objects.requireNonNull(device, "device")));
    }

    /** Further reactor-netty settings: loop resources (the event loops), wiretap, metrics. */
    public RpcRdmaClient tcpConfiguration(UnaryOperator<TcpClient> configure) {
        return with(rdma.tcpConfiguration(Objects.requireNonNull(configure, "configure")));
    }

    /** Connects: the TCP connection, receives posted, then the MPA startup with RFC 8797 private data. */
    public Mono<RpcRdmaConnection> connect() {
        return rdma.protocol(new Requester(sendSize, receiveSize, remoteInvalidation, maxCredits, credential))
                .connect().map(RpcRdmaClient::connection);
    }

    private static RpcRdmaConnection connection(RdmaSession session) {
        return session.engine(RpcRdmaConnection.Engine.class).connection().attach(session);
    }

    /**
     * RPC-over-RDMA version 1, requester side, as a session protocol (RFC 5040 §1's ULP): RFC 8797 private data,
     * the queue pair shape, and a {@link RpcRdmaConnection} per connection.
     */
    private record Requester(int sendSize, int receiveSize, boolean remoteInvalidation, int maxCredits,
            RpcAuth credential) implements SessionProtocol {
        @Override
        public String name() {
            return "RPC-over-RDMA v1 (requester)";
        }

        /** RFC 8797 §5.2: Linux svcrdma looks for the block at offset 0 of the private data, so nothing goes before. */
        @Override
        public byte[] privateData(byte[] applicationData) {
            byte[] block = RpcRdmaPrivateData.of(remoteInvalidation, sendSize, receiveSize).encode();
            byte[] r = Arrays.copyOf(block, block.length + applicationData.length);
            System.arraycopy(applicationData, 0, r, block.length, applicationData.length);
            return r;
        }

        /**
         * A Send and a receive per credit (RFC 8166 §3.3; a session wants a send queue of 4 at least). ORD 1: this
         * side never reads; IRD 16: the responder RDMA-Reads Long Calls (Linux svcrdma up to 16 at once). No RFC
         * 7306 extensions: RPC-over-RDMA uses none, and the private data stays RFC 8797's block alone.
         */
        @Override
        public QueuePairConfig queuePair(QueuePairConfig configured) {
            return configured.withSendQueueDepth(Math.max(4, maxCredits)).withReceiveQueueDepth(maxCredits)
                    .withReadDepths(1, 16).withExtensions(RdmapExtensions.NONE);
        }

        @Override
        public Engine start(Context context) {
            return new RpcRdmaConnection(context, sendSize, receiveSize, maxCredits, credential).engine();
        }
    }
}
