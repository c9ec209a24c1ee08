package io.softrdma.cm;

import io.softrdma.rdmap.RdmapExtensions;

import io.netty.channel.Channel;
import io.softrdma.mpa.IrdOrdHeader;
import io.softrdma.mpa.MpaNegotiation;
import io.softrdma.internal.mpa.MpaResponderDecision;
import io.softrdma.mpa.MpaStartupFrame;
import io.softrdma.internal.mpa.MpaStartupHandler;
import io.softrdma.internal.transport.PipelineNames;
import io.softrdma.verbs.QueuePair;
import io.softrdma.verbs.QueuePairHandler;
import java.net.SocketAddress;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * An incoming connection whose MPA Request arrived: the listener's consumer sees the peer's private
 * data and accepts it with a queue pair, or rejects it (RFC 5044 §7.1.2 rules 2 and 6).
 *
 * <p>Thread safety: {@link #accept} and {@link #reject} may be called from any thread, once.
 */
public final class ConnectRequest {
    private final Channel channel;
    private final MpaStartupFrame request;
    private final MpaResponderDecision decision;
    private final MpaStartupHandler startup;
    private final AtomicBoolean decided = new AtomicBoolean();

    ConnectRequest(Channel channel, MpaStartupFrame request, MpaResponderDecision decision, MpaStartupHandler startup) {
        this.channel = channel;
        this.request = request;
        this.decision = decision;
        this.startup = startup;
    }

    /** A copy of the initiator's application private data (without RFC 6581's IRD/ORD block). */
    public byte[] privateData() {
        return request.applicationPrivateData();
    }

    /**
     * The initiator's RFC 8797 RPC-over-RDMA private data, found anywhere in its application private
     * data (§5.2), or empty.
     */
    public java.util.Optional<RpcRdmaPrivateData> rpcRdmaPrivateData() {
        return RpcRdmaPrivateData.find(request.applicationPrivateData());
    }

    /** The initiator's RFC 6581 IRD/ORD block, or null if its Request was not enhanced (revision 1). */
    public IrdOrdHeader irdOrd() {
        return request.enhanced() && request.privateDataLength() >= IrdOrdHeader.LENGTH ? request.irdOrd() : null;
    }

    /** The MPA Request as received. */
    public MpaStartupFrame request() {
        return request;
    }

    public SocketAddress remoteAddress() {
        return channel.remoteAddress();
    }

    /**
     * Accepts with {@code queuePair} (IDLE, of any protection domain) and replies with
     * {@code privateData}. An enhanced Reply offers the queue pair's configured IRD and ORD, cut to the
     * initiator's ORD and IRD (RFC 6581 §5).
     *
     * @return completes when the stream is in RDMA mode, or exceptionally if it never gets there
     * @throws IllegalStateException if already accepted or rejected, or the queue pair is not IDLE
     * @throws IllegalArgumentException if the private data does not fit the Reply (512 octets, less 4
     *     for RFC 6581's IRD/ORD block when the Request was enhanced, or the configured maximum)
     */
    public CompletableFuture<RdmaConnection> accept(QueuePair queuePair, byte[] applicationPrivateData) {
        Objects.requireNonNull(queuePair, "queuePair");
        Objects.requireNonNull(applicationPrivateData, "privateData");
        // The RFC 7306 extensions the Request offered and the queue pair supports are answered after it.
        byte[] privateData = RdmapExtensions.answer(queuePair.config().extensions(), request.applicationPrivateData(),
                applicationPrivateData);
        QueuePairHandler handler = QueuePairHandler.of(queuePair);
        startup.checkReplyPrivateData(privateData);
        decide();
        CompletableFuture<RdmaConnection> established = new CompletableFuture<>();
        channel.eventLoop().execute(() -> {
            if (channel.pipeline().context(PipelineNames.MPA_STARTUP) == null) {
                established.completeExceptionally(new IllegalStateException("the connection closed before it was"
                        + " accepted"));
                queuePair.close();
                return;
            }
            channel.pipeline().addAfter(PipelineNames.MPA_STARTUP, PipelineNames.QUEUE_PAIR, handler);
            startup.outcome().whenComplete((MpaNegotiation n, Throwable failure) -> {
                if (failure != null) {
                    established.completeExceptionally(failure);
                } else {
                    established.complete(new RdmaConnection(channel, queuePair, n));
                }
            });
            decision.accept(privateData, queuePair.config().ird(), queuePair.config().ord());
        });
        return established;
    }

    /**
     * Rejects with {@code privateData} (the Reply's R bit set), then closes.
     *
     * @throws IllegalArgumentException if the private data does not fit the Reply
     */
    public void reject(byte[] privateData) {
        Objects.requireNonNull(privateData, "privateData");
        startup.checkReplyPrivateData(privateData);
        decide();
        decision.reject(privateData);
    }

    private void decide() {
        if (!decided.compareAndSet(false, true)) {
            throw new IllegalStateException("this connect request was already accepted or rejected");
        }
    }
}
