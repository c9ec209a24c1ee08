package io.softrdma.reactive.internal;

import io.netty.buffer.ByteBuf;
import io.softrdma.reactive.internal.protocol.MessageType;
import java.util.function.IntConsumer;

/**
 * A message waiting for credit and a send slot ({@link Transmitter}). Mutable and recycled: queueing a message
 * allocates nothing once the session has warmed up.
 *
 * <p>Thread safety: the event loop only.
 */
final class Outgoing {
    /** For messages whose sending nobody waits for. */
    static final IntConsumer NOTHING = octets -> { };

    MessageType type;
    int correlationId;
    ByteBuf payload;
    /** Told the message's length when its Send is complete (for LARGE: when the peer released it). */
    IntConsumer onSent;
    /** For LARGE: the inner type and the lent region. */
    MessageType innerType;
    LargeMessages.Lent region;
    /** For a READ_DONE that may invalidate remotely: the STag; 0 for none. */
    int invalidateStag;
    /** An RDMA Write followed by Immediate Data (RFC 7306) instead of a Send: it spends a credit all the same. */
    ImmediateData.ImmediateWrite immediateWrite;

    /** Whether this is a plain DATA message with a payload, which BATCH may pack. */
    boolean batchable() {
        return type == MessageType.DATA && payload != null && immediateWrite == null;
    }

    /** Forgets everything, so that a recycled record keeps no message or callback alive. */
    void clear() {
        immediateWrite = null;
        payload = null;
        onSent = null;
        innerType = null;
        region = null;
        invalidateStag = 0;
    }
}
