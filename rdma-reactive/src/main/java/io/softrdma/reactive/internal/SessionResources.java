package io.softrdma.reactive.internal;

import io.netty.channel.EventLoop;
import io.softrdma.rdmap.RdmapExtensions;
import io.softrdma.reactive.spi.PendingOperation;
import io.softrdma.reactive.spi.SessionProtocol;
import io.softrdma.verbs.CompletionQueue;
import io.softrdma.verbs.ProtectionDomain;
import io.softrdma.verbs.QueuePair;
import io.softrdma.verbs.QueuePairConfig;
import io.softrdma.verbs.RdmaDevice;
import java.util.Objects;
import java.util.function.UnaryOperator;

/**
 * What one session owns on its device: a protection domain of its own (so no other connection can use its STags,
 * RFC 5040 §8.1.1), a completion queue sized for its queue pair, the queue pair, the table of its posted work
 * requests, and the engine of the protocol that runs on it (messaging by default).
 *
 * @param pd the session's protection domain
 * @param cq where both sides of its queue pair complete
 * @param qp its queue pair, IDLE until bound to a connection
 * @param operations its posted work requests, by id
 * @param protocol the session protocol
 * @param engine the protocol's engine for this connection, whose receives are posted already
 */
public record SessionResources(ProtectionDomain pd, CompletionQueue cq, QueuePair qp, Operations operations,
        SessionProtocol protocol, SessionProtocol.Engine engine) {

    /**
     * Creates them as {@code protocol} and then {@code configure} shape the queue pair (its completion queues are
     * replaced), for a connection on {@code loop}, and starts the protocol, which posts its receives: each side must
     * have them posted before the connection is established. On {@code loop}.
     */
    public static SessionResources create(RdmaDevice device, UnaryOperator<QueuePairConfig> configure, EventLoop loop,
            SessionProtocol protocol) {
        QueuePairConfig shape = shape(device, configure, protocol);
        ProtectionDomain pd = device.allocateProtectionDomain();
        QueuePair created = null;
        try {
            CompletionQueue cq = device.createCompletionQueue(shape.sendQueueDepth() + shape.receiveQueueDepth());
            QueuePair qp = pd.createQueuePair(shape.withCompletionQueues(cq, cq));
            created = qp;
            // Receives do not go through the table (ReceiveSlots.RECEIVE_TAG): sends, Writes and Reads do.
            Operations operations = new Operations(shape.sendQueueDepth());
            SessionProtocol.Engine engine = protocol.start(new SessionProtocol.Context() {
                @Override
                public ProtectionDomain protectionDomain() {
                    return pd;
                }

                @Override
                public QueuePair queuePair() {
                    return qp;
                }

                @Override
                public EventLoop eventLoop() {
                    return loop;
                }

                @Override
                public long register(PendingOperation pending) {
                    return operations.add(pending);
                }

                @Override
                public void unregister(long wrId) {
                    operations.remove(wrId);
                }
            });
            return new SessionResources(pd, cq, qp, operations, protocol, engine);
        } catch (RuntimeException e) {
            if (created != null) {
                created.close(); // a protection domain does not close its queue pairs
            }
            pd.close();
            throw e;
        }
    }

    /**
     * The configuration {@code protocol}, then {@code configure}, make of the defaults; builders call this early so
     * that a bad configurer fails on the caller's thread.
     */
    public static QueuePairConfig shape(RdmaDevice device, UnaryOperator<QueuePairConfig> configure,
            SessionProtocol protocol) {
        // Sessions offer RFC 7306: a peer that does not know it (siw) ignores the offer, and none is used.
        QueuePairConfig base = QueuePairConfig.of(Placeholder.of(device)).withExtensions(RdmapExtensions.ALL);
        QueuePairConfig shape = Objects.requireNonNull(configure.apply(Objects.requireNonNull(
                protocol.queuePair(base), "the protocol's queue pair shape is null")),
                "the queue pair configurer returned null");
        if (shape.sendQueueDepth() < SendQueueShares.MIN_SEND_QUEUE_DEPTH) {
            throw new IllegalArgumentException("a session needs sendQueueDepth " + SendQueueShares.MIN_SEND_QUEUE_DEPTH
                    + " or more, not " + shape.sendQueueDepth() + ": half for messages, a quarter for the Reads"
                    + " of large messages, the rest for Writes and Reads");
        }
        return shape;
    }

    /** Ends the engine and closes everything (the queue pair first); for a session that never came up. */
    public void close(Throwable cause) {
        try {
            engine.end(cause);
        } finally {
            try {
                qp.close();
            } finally {
                pd.close(); // its memory goes even if the queue pair's close failed
            }
        }
    }

    /** A one-entry completion queue to build configurations with; never used by a queue pair. */
    private static final class Placeholder {
        private static volatile CompletionQueue queue;

        static CompletionQueue of(RdmaDevice device) {
            CompletionQueue q = queue;
            if (q == null) {
                q = device.createCompletionQueue(1);
                queue = q;
            }
            return q;
        }
    }
}
