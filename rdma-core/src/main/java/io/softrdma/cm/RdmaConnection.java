package io.softrdma.cm;

import io.netty.channel.Channel;
import io.softrdma.mpa.MpaNegotiation;
import io.softrdma.mpa.ReadyToReceive;
import io.softrdma.verbs.QueuePair;
import java.net.SocketAddress;
import java.util.concurrent.CompletableFuture;

/**
 * An established RDMAP stream: the queue pair bound to it, what the MPA startup settled and the
 * private data the peer sent.
 *
 * <p>Thread safety: immutable; {@link #close()} may be called from any thread.
 */
public final class RdmaConnection implements AutoCloseable {
    private final Channel channel;
    private final QueuePair queuePair;
    private final MpaNegotiation negotiation;

    RdmaConnection(Channel channel, QueuePair queuePair, MpaNegotiation negotiation) {
        this.channel = channel;
        this.queuePair = queuePair;
        this.negotiation = negotiation;
    }

    public QueuePair queuePair() {
        return queuePair;
    }

    public MpaNegotiation negotiation() {
        return negotiation;
    }

    /** A copy of the private data the peer's application sent in its MPA Request or Reply. */
    public byte[] peerPrivateData() {
        return negotiation.peerPrivateData();
    }

    /**
     * What the RFC 8797 private data of both ends settles: inline thresholds each way and whether the
     * responder may use remote invalidation. Found anywhere in either side's application private data
     * (§5.2); RFC 8166's defaults (1024 octets, no remote invalidation) where absent.
     */
    public RpcRdmaParameters rpcRdma() {
        return RpcRdmaParameters.negotiate(negotiation.localPrivateData(), negotiation.peerPrivateData());
    }

    /** The RTR message of a peer-to-peer startup (RFC 6581 §4), or NONE. */
    public ReadyToReceive readyToReceive() {
        return negotiation.readyToReceive();
    }

    public SocketAddress localAddress() {
        return channel.localAddress();
    }

    public SocketAddress remoteAddress() {
        return channel.remoteAddress();
    }

    /** The Netty channel the stream runs on (for its event loop and pipeline; do not write to it). */
    public Channel channel() {
        return channel;
    }

    /** Closes gracefully: the queue pair finishes its posted work, then the stream closes. */
    @Override
    public void close() {
        queuePair.close();
    }

    /** Completes when the queue pair reaches ERROR (see {@link QueuePair#closeFuture()}). */
    public CompletableFuture<Void> closeFuture() {
        return queuePair.closeFuture();
    }

    @Override
    public String toString() {
        return "RdmaConnection{" + channel.localAddress() + " -> " + channel.remoteAddress() + ", " + queuePair + "}";
    }
}
