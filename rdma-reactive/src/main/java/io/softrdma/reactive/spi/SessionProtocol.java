package io.softrdma.reactive.spi;

import io.netty.channel.EventLoop;
import io.softrdma.cm.RdmaConnection;
import io.softrdma.verbs.ProtectionDomain;
import io.softrdma.verbs.QueuePair;
import io.softrdma.verbs.QueuePairConfig;
import io.softrdma.verbs.WorkCompletion;

/**
 * An upper layer protocol — RFC 5040 §1's ULP — that runs on a session's queue pair. The session
 * ({@code RdmaSession}, set up by {@code RdmaClient} and {@code RdmaServer}) owns the connection, the protection
 * domain, the completion queue, the one-sided operations (RDMA Write, Read, atomics) and the lifecycle; the protocol
 * owns the receive queue and its own Sends. SoftRDMA's messaging with credits (docs/protocol.md) is the default
 * protocol; RPC-over-RDMA version 1 (RFC 8166, module rdma-rpc) is another.
 *
 * <p>An implementation is a stateless factory, shared by every session it is configured for: {@link #start} makes
 * the per-connection {@link Engine}.
 *
 * <p>Thread safety: {@link #start} and every {@link Engine} method run on the connection's event loop.
 */
public interface SessionProtocol {
    /** A short name for messages and diagnostics, e.g. {@code "RPC-over-RDMA v1"}. */
    String name();

    /**
     * The MPA private data this end sends (in the Request as client, the Reply as server): the application's, with
     * whatever the protocol puts around it — RFC 8797's block goes first, where Linux looks for it.
     */
    byte[] privateData(byte[] applicationData);

    /** Shapes the queue pair from what the client or server was configured with (depths, ORD and IRD). */
    default QueuePairConfig queuePair(QueuePairConfig configured) {
        return configured;
    }

    /**
     * Sets up one connection, before its MPA startup: registers the protocol's memory and posts its receives (RFC
     * 5040 §5.3: a Send needs a posted receive, and the peer may send as soon as the stream is in RDMA mode).
     */
    Engine start(Context context);

    /** What a protocol gets of its session. */
    interface Context {
        /** The session's protection domain (its own: no other connection can use its STags). */
        ProtectionDomain protectionDomain();

        /** The session's queue pair, not yet connected. */
        QueuePair queuePair();

        /** The connection's event loop, where every engine method runs. */
        EventLoop eventLoop();

        /**
         * Files an operation the protocol posts, and returns the work request id to post it with; the
         * completion goes to {@code pending}. Receives are not filed: their ids carry
         * {@link ReceiveSlots#RECEIVE_TAG} and reach {@link Engine#receiveCompleted}.
         */
        long register(PendingOperation pending);

        /** Takes back the id of an operation that could not be posted. */
        void unregister(long wrId);
    }

    /** One connection's protocol. */
    interface Engine {
        /** The stream is in RDMA mode: what the MPA startup negotiated (RFC 8797 thresholds among it). */
        void established(RdmaConnection connection);

        /** A receive completed (its id carries {@link ReceiveSlots#RECEIVE_TAG}). */
        void receiveCompleted(WorkCompletion completion);

        /**
         * The session ended, or never came up ({@code cause} says why): every waiter fails with it and every buffer
         * held is released. It may be called again (a failure while dispatching ends the engine before the session's
         * end does): only the first call may act.
         */
        void end(Throwable cause);

        /**
         * Why this engine ended the session itself, if it did (the peer broke the protocol, and the engine closed
         * the queue pair): the session reports it as the reason it ended ({@code RdmaSession.onTermination()},
         * metrics), although the queue pair's close was graceful. Null otherwise, and by default.
         */
        default Throwable failure() {
            return null;
        }
    }
}
