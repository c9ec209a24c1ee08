package io.softrdma.spring.autoconfigure;

import io.softrdma.mpa.PeerToPeerMode;
import java.net.InetAddress;
import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.NestedConfigurationProperty;
import org.springframework.util.unit.DataSize;

/**
 * Configuration of SoftRDMA's reactive server and client ({@code rdma.server.*}, {@code rdma.client.*}).
 * Each side has the same groups: {@code mpa} (RFC 5044 / RFC 6581 connection setup), {@code queue-pair}
 * (queue depths, ORD and IRD), {@code messaging} (credits, inline sizes and remote invalidation, RFC 8797)
 * and {@code ssl}.
 *
 * <p>Why this class is long: it is the whole {@code rdma.*} tree Spring Boot binds (server, client, MPA, queue pair,
 * messaging, TLS) as nested classes with their defaults and Javadoc, which the configuration processor turns into
 * metadata; splitting it would scatter one tree.
 */
@ConfigurationProperties("rdma")
public class RdmaProperties {
    private final Server server = new Server();
    private final Client client = new Client();

    public Server getServer() {
        return server;
    }

    public Client getClient() {
        return client;
    }

    /** What a server and a client both have: the MPA, queue pair, messaging and TLS groups. */
    public abstract static class Side {
        @NestedConfigurationProperty
        private final Mpa mpa;

        @NestedConfigurationProperty
        private final QueuePair queuePair = new QueuePair();

        @NestedConfigurationProperty
        private final Messaging messaging = new Messaging();

        /**
         * How long the event loops poll their sockets after each burst of work before they sleep, as an RDMA
         * application polls its completion queue: an answer that comes within that time is taken without waking a
         * sleeping thread (a cache GET one at a time: 64–71 µs to 13–21 µs on the project's 2-core machine), at
         * the price of up to that much CPU after every burst. 0 (the default): the loops sleep at once.
         */
        private Duration busyPoll = Duration.ZERO;

        Side(Mpa mpa) {
            this.mpa = mpa;
        }

        public Duration getBusyPoll() {
            return busyPoll;
        }

        public void setBusyPoll(Duration busyPoll) {
            this.busyPoll = busyPoll;
        }

        public Mpa getMpa() {
            return mpa;
        }

        public QueuePair getQueuePair() {
            return queuePair;
        }

        public Messaging getMessaging() {
            return messaging;
        }

        /** TLS below MPA; each side declares its own, since a server's has more ({@link ServerSsl}). */
        public abstract Ssl getSsl();
    }

    /** The server: started with the application when {@code rdma.server.port} is set. */
    public static class Server extends Side {
        /** Port to listen on (0 for any free one); the server starts only when this is set. */
        private Integer port;

        /** Address to bind; every interface when unset. */
        private InetAddress address;

        /**
         * MPA startups run at once; connections beyond are closed as they arrive, and each startup lasts at most
         * the MPA request timeout.
         */
        private int maxPendingStartups = 1024;

        /** Sessions open at once; one more connection is refused with an MPA Reject that says why. */
        private int maxSessions = 4096;

        /**
         * Octets of receive buffers the sessions share beyond 3 of their own each, drawn as traffic needs them (a
         * shared receive pool: docs/robustness.md); 0 for none, each session then registering receive-queue-depth
         * times inline-size when it starts.
         */
        private DataSize receivePoolSize = DataSize.ofBytes(io.softrdma.reactive.ReceivePool.DEFAULT_CAPACITY);

        public DataSize getReceivePoolSize() {
            return receivePoolSize;
        }

        public void setReceivePoolSize(DataSize receivePoolSize) {
            this.receivePoolSize = receivePoolSize;
        }

        public int getMaxSessions() {
            return maxSessions;
        }

        public void setMaxSessions(int maxSessions) {
            this.maxSessions = maxSessions;
        }

        public int getMaxPendingStartups() {
            return maxPendingStartups;
        }

        public void setMaxPendingStartups(int maxPendingStartups) {
            this.maxPendingStartups = maxPendingStartups;
        }

        /** TLS below MPA, with the server's own setting: whether clients must present certificates. */
        @NestedConfigurationProperty
        private final ServerSsl ssl = new ServerSsl();

        public Server() {
            super(new Mpa());
        }

        @Override
        public ServerSsl getSsl() {
            return ssl;
        }

        public Integer getPort() {
            return port;
        }

        public void setPort(Integer port) {
            this.port = port;
        }

        public InetAddress getAddress() {
            return address;
        }

        public void setAddress(InetAddress address) {
            this.address = address;
        }

    }

    /** The client: an RdmaClient bean that connects when the application asks it to. */
    public static class Client extends Side {
        /** Host of the server to connect to. */
        private String host = "localhost";

        /** Port of the server to connect to. */
        private int port = 7471;

        /** How long a TCP connect may take (the MPA exchange has its own timeouts). */
        private Duration connectTimeout = Duration.ofSeconds(10);

        @NestedConfigurationProperty
        private final Ssl ssl = new Ssl();

        public Client() {
            super(new Mpa());
        }

        @Override
        public Ssl getSsl() {
            return ssl;
        }

        public String getHost() {
            return host;
        }

        public void setHost(String host) {
            this.host = host;
        }

        public int getPort() {
            return port;
        }

        public void setPort(int port) {
            this.port = port;
        }

        public Duration getConnectTimeout() {
            return connectTimeout;
        }

        public void setConnectTimeout(Duration connectTimeout) {
            this.connectTimeout = connectTimeout;
        }

    }

    /** MPA connection setup (RFC 5044 §7.1; RFC 6581 for revision 2). */
    public static class Mpa {
        /** MPA revision: 2 (RFC 6581: IRD/ORD exchange, peer-to-peer setup; what Linux siw speaks) or 1. */
        private int revision = 2;

        /** Whether to ask for the MPA CRC32c on every FPDU (RFC 5044 §4.4); either side asking turns it on. */
        private boolean crc = true;

        /** Whether to ask the peer to insert Markers (RFC 5044 §5). */
        private boolean markers = false;

        /**
         * RFC 6581 peer-to-peer mode: which ready-to-receive message to offer (initiator) or accept
         * (responder). OFF, WRITE, READ or ANY. Unset: ANY with revision 2 (both ends' default: offers the
         * Write and the Read, accepts either, so that the server may send first), OFF with revision 1.
         */
        private PeerToPeerMode peerToPeer;

        /** How long a responder waits for the MPA Request once TCP is up. */
        private Duration requestTimeout = Duration.ofSeconds(5);

        /** How long an initiator waits for the MPA Reply. */
        private Duration replyTimeout = Duration.ofSeconds(10);

        /** How long a responder's accept decision may take. */
        private Duration acceptTimeout = Duration.ofSeconds(10);


        public int getRevision() {
            return revision;
        }

        public void setRevision(int revision) {
            this.revision = revision;
        }

        public boolean isCrc() {
            return crc;
        }

        public void setCrc(boolean crc) {
            this.crc = crc;
        }

        public boolean isMarkers() {
            return markers;
        }

        public void setMarkers(boolean markers) {
            this.markers = markers;
        }

        public PeerToPeerMode getPeerToPeer() {
            return peerToPeer;
        }

        public void setPeerToPeer(PeerToPeerMode peerToPeer) {
            this.peerToPeer = peerToPeer;
        }

        public Duration getRequestTimeout() {
            return requestTimeout;
        }

        public void setRequestTimeout(Duration requestTimeout) {
            this.requestTimeout = requestTimeout;
        }

        public Duration getReplyTimeout() {
            return replyTimeout;
        }

        public void setReplyTimeout(Duration replyTimeout) {
            this.replyTimeout = replyTimeout;
        }

        public Duration getAcceptTimeout() {
            return acceptTimeout;
        }

        public void setAcceptTimeout(Duration acceptTimeout) {
            this.acceptTimeout = acceptTimeout;
        }
    }

    /** Queue pair sizes and RDMA Read depths, per connection. */
    public static class QueuePair {
        /** Outbound RDMA Reads at once (RFC 5040 §6.1); offered in RFC 6581 and cut to the peer's IRD. */
        private int ord = 128;

        /** Inbound RDMA Reads accepted at once (RFC 5040 §6.1). */
        private int ird = 128;

        /**
         * Send queue entries: half carry messages, a quarter the Reads of large messages, the rest the
         * application's Writes and Reads (more wait in the session). At least 4.
         */
        private int sendQueueDepth = 128;

        /**
         * Receive buffers per connection, each of the inline size: the most credits this side grants the
         * peer (docs/protocol.md). At least 3.
         */
        private int receiveQueueDepth = 128;

        /**
         * Offer RFC 7306 atomics (fetchAdd, compareAndSwap) at connection setup; used only when the peer agrees
         * (a SoftRDMA peer does, Linux siw never).
         */
        private boolean atomics = true;

        /** Offer RFC 7306 Immediate Data (writeWithImmediate, immediates()); used only when the peer agrees. */
        private boolean immediateData = true;

        public boolean isAtomics() {
            return atomics;
        }

        public void setAtomics(boolean atomics) {
            this.atomics = atomics;
        }

        public boolean isImmediateData() {
            return immediateData;
        }

        public void setImmediateData(boolean immediateData) {
            this.immediateData = immediateData;
        }

        public int getOrd() {
            return ord;
        }

        public void setOrd(int ord) {
            this.ord = ord;
        }

        public int getIrd() {
            return ird;
        }

        public void setIrd(int ird) {
            this.ird = ird;
        }

        public int getSendQueueDepth() {
            return sendQueueDepth;
        }

        public void setSendQueueDepth(int sendQueueDepth) {
            this.sendQueueDepth = sendQueueDepth;
        }

        public int getReceiveQueueDepth() {
            return receiveQueueDepth;
        }

        public void setReceiveQueueDepth(int receiveQueueDepth) {
            this.receiveQueueDepth = receiveQueueDepth;
        }
    }

    /** Messaging over RDMA Sends (docs/protocol.md) and RFC 8797's private data. */
    public static class Messaging {
        /**
         * The largest Send each way, header included, advertised with RFC 8797 (§4.2): 1 KB to 256 KB in whole
         * kilobytes. Larger messages go by RDMA Read.
         */
        private DataSize inlineSize = DataSize.ofKilobytes(4);

        /** The largest message sent or accepted; a larger LARGE descriptor from the peer ends the session. */
        private DataSize maxMessageSize = DataSize.ofMegabytes(16);

        /** RFC 8797's R flag: let the peer invalidate regions this side lends (Send with Invalidate, §4.1). */
        private boolean remoteInvalidation = true;

        /** Messages one send() keeps requested from its publisher and not yet sent. */
        private int sendWindow = 4096;

        /** The most octets of those messages (by their average length). */
        private DataSize sendWindowSize = DataSize.ofMegabytes(1);

        /**
         * Per session, the most Writes and Reads waiting for room in the send queue, and the most requests awaiting
         * their response; one more fails at once.
         */
        private int maxQueuedOperations = 65536;

        public int getMaxQueuedOperations() {
            return maxQueuedOperations;
        }

        public void setMaxQueuedOperations(int maxQueuedOperations) {
            this.maxQueuedOperations = maxQueuedOperations;
        }

        public DataSize getInlineSize() {
            return inlineSize;
        }

        public void setInlineSize(DataSize inlineSize) {
            this.inlineSize = inlineSize;
        }

        public DataSize getMaxMessageSize() {
            return maxMessageSize;
        }

        public void setMaxMessageSize(DataSize maxMessageSize) {
            this.maxMessageSize = maxMessageSize;
        }

        public boolean isRemoteInvalidation() {
            return remoteInvalidation;
        }

        public void setRemoteInvalidation(boolean remoteInvalidation) {
            this.remoteInvalidation = remoteInvalidation;
        }

        public int getSendWindow() {
            return sendWindow;
        }

        public void setSendWindow(int sendWindow) {
            this.sendWindow = sendWindow;
        }

        public DataSize getSendWindowSize() {
            return sendWindowSize;
        }

        public void setSendWindowSize(DataSize sendWindowSize) {
            this.sendWindowSize = sendWindowSize;
        }
    }

    /**
     * TLS below MPA, from a Spring Boot SSL bundle ({@code spring.ssl.bundle.*}). Encrypts the stream on
     * untrusted networks; a TLS stream is not iWARP on the wire, so only SoftRDMA peers with TLS can talk to it.
     */
    public static class Ssl {
        /** Whether to run MPA over TLS. */
        private boolean enabled;

        /**
         * The SSL bundle: a server's key material, and the trust material its clients' certificates are verified
         * against; a client's trust material, and the key material it presents when a server asks for it.
         */
        private String bundle;

        public boolean isEnabled() {
            return enabled;
        }

        public void setEnabled(boolean enabled) {
            this.enabled = enabled;
        }

        public String getBundle() {
            return bundle;
        }

        public void setBundle(String bundle) {
            this.bundle = bundle;
        }
    }

    /** A server's TLS: the bundle, and whether clients must present certificates. */
    public static class ServerSsl extends Ssl {
        /**
         * Whether clients present certificates: none (not asked), want (asked; a client without one is accepted) or
         * need (a client without a certificate the bundle's trust material verifies is refused in the handshake).
         */
        private ClientAuth clientAuth = ClientAuth.NONE;

        public ClientAuth getClientAuth() {
            return clientAuth;
        }

        public void setClientAuth(ClientAuth clientAuth) {
            this.clientAuth = clientAuth;
        }
    }

    /**
     * TLS client authentication, named as Spring Boot's web servers name it ({@code server.ssl.client-auth}), whose
     * enum lives in spring-boot-web-server, which this starter does not need.
     */
    public enum ClientAuth {
        /** The server asks for no client certificate. */
        NONE,
        /** The server asks for a client certificate and accepts a client without one. */
        WANT,
        /** The server requires a client certificate its trust material verifies. */
        NEED
    }
}
