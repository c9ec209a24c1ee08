package io.softrdma.reactive.internal;

import io.netty.channel.EventLoop;
import io.softrdma.reactive.MessagingOptions;
import io.softrdma.rdmap.RdmapExtensions;
import io.softrdma.verbs.CompletionQueue;
import io.softrdma.verbs.ProtectionDomain;
import io.softrdma.verbs.QueuePair;
import io.softrdma.verbs.QueuePairConfig;
import io.softrdma.verbs.RdmaDevice;
import java.util.Objects;
import java.util.function.UnaryOperator;

/**
 * What one session owns on its device: a protection domain of its own (so no other connection can
 * use its STags, RFC 5040 §8.1.1), a completion queue sized for its queue pair, and the queue pair.
 *
 * @param pd the session's protection domain
 * @param cq where both sides of its queue pair complete
 * @param qp its queue pair, IDLE until bound to a connection
 * @param operations its posted work requests, by id
 * @param messaging its credit-based messaging, whose reserve of receive buffers is posted already
 */
public record SessionResources(ProtectionDomain pd, CompletionQueue cq, QueuePair qp, Operations operations,
        MessagingEngine messaging) {

    /**
     * Creates them as {@code configure} shapes the queue pair (its completion queues are replaced), for a
     * connection on {@code loop}, and posts the messaging reserve of receive buffers: each side must
     * have them posted before the connection is established (docs/protocol.md). On {@code loop}.
     */
    public static SessionResources create(RdmaDevice device, UnaryOperator<QueuePairConfig> configure, EventLoop loop,
            MessagingOptions messaging) {
        QueuePairConfig shape = shape(device, configure);
        ProtectionDomain pd = device.allocateProtectionDomain();
        CompletionQueue cq = device.createCompletionQueue(shape.sendQueueDepth() + shape.receiveQueueDepth());
        QueuePair qp = pd.createQueuePair(shape.withCompletionQueues(cq, cq));
        // Receives do not go through the table (ReceiveSlots.RECEIVE_TAG): sends, Writes and Reads do.
        Operations operations = new Operations(shape.sendQueueDepth());
        MessagingEngine engine = new MessagingEngine(pd, qp, operations, loop, messaging);
        return new SessionResources(pd, cq, qp, operations, engine);
    }

    /**
     * The configuration {@code configure} makes of the defaults; builders call this early so a bad
     * configurer fails on the caller's thread.
     */
    public static QueuePairConfig shape(RdmaDevice device, UnaryOperator<QueuePairConfig> configure) {
        // Sessions offer RFC 7306: a peer that does not know it (siw) ignores the offer, and none is used.
        QueuePairConfig shape = Objects.requireNonNull(configure.apply(QueuePairConfig.of(Placeholder.of(device))
                .withExtensions(RdmapExtensions.ALL)), "the queue pair configurer returned null");
        if (shape.sendQueueDepth() < SendQueueShares.MIN_SEND_QUEUE_DEPTH) {
            throw new IllegalArgumentException("a session needs sendQueueDepth " + SendQueueShares.MIN_SEND_QUEUE_DEPTH
                    + " or more, not " + shape.sendQueueDepth() + ": half for messages, a quarter for the Reads"
                    + " of large messages, the rest for Writes and Reads");
        }
        return shape;
    }

    /** Closes everything (the queue pair first); for a session that never came up. */
    public void close() {
        qp.close();
        pd.close();
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
