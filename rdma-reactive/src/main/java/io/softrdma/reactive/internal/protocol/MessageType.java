package io.softrdma.reactive.internal.protocol;

/**
 * The type octet of a {@link MessageHeader}: what one RDMA Send of the SoftRDMA messaging protocol carries.
 * See docs/protocol.md for the rules of each type.
 *
 * <p>Every type consumes one receive buffer at the peer, as every Send does (RFC 5040 §5.3), and so one credit.
 * The types split in two for flow control ({@link CreditWindow}):
 * <ul>
 *   <li><em>data messages</em> — {@link #DATA}, {@link #REQUEST}, {@link #RESPONSE}, {@link #LARGE},
 *       {@link #ERROR} — are handed to a consumer and use up one unit of its demand ({@link #BATCH}: one unit
 *       for each message it carries);</li>
 *   <li><em>control messages</em> — {@link #CREDIT}, {@link #READ_DONE} — are consumed by the session
 *       itself: their receive buffer is reposted at once and they use up no demand.</li>
 * </ul>
 *
 * <p>Thread safety: an enum, immutable.
 */
public enum MessageType {
    /** 1: a stream message; its payload is what {@code receive()} emits. Correlation id 0. */
    DATA(1),
    /**
     * 2: a request of request/response; the requester sets the correlation id, unique among its own
     * outstanding requests.
     */
    REQUEST(2),
    /** 3: the response to the {@link #REQUEST} with the same correlation id. */
    RESPONSE(3),
    /** 4: a credit update on its own: no payload, correlation id 0. */
    CREDIT(4),
    /**
     * 5: a message too large to go inline: the payload is a {@link LargeMessageDescriptor} of a region the
     * sender registered, and the flags carry the type of the message it stands for ({@link #DATA},
     * {@link #REQUEST} or {@link #RESPONSE}; see {@link MessageHeader#innerType}).
     */
    LARGE(5),
    /**
     * 6: no payload; the sender has RDMA-Read the region whose STag is in the correlation id field, so its owner
     * may invalidate it. Used only where remote invalidation (RFC 8797 §4.1) is not allowed.
     */
    READ_DONE(6),
    /** 7: answers a {@link #REQUEST} with an error; the payload is a UTF-8 message. */
    ERROR(7),
    /**
     * 8: several stream messages in one Send, as {@link MessageBatch} entries; the correlation id field holds
     * their count. Each entry is handed to {@code receive()} as one {@link #DATA} message would be.
     */
    BATCH(8);

    private static final MessageType[] BY_CODE = new MessageType[9];

    static {
        for (MessageType t : values()) {
            BY_CODE[t.code] = t;
        }
    }

    private final int code;

    MessageType(int code) {
        this.code = code;
    }

    /**
     * The value of the header's type octet.
     *
     * @return 1 to 8
     */
    public int code() {
        return code;
    }

    /**
     * The type whose {@link #code()} is {@code code}, or {@code null} when there is none (the session treats
     * that as a protocol error; {@link MessageHeader#type} throws for it).
     *
     * @param code a type octet, 0 to 255
     * @return the type, or {@code null}
     */
    public static MessageType fromCode(int code) {
        return code >= 0 && code < BY_CODE.length ? BY_CODE[code] : null;
    }

    /**
     * Whether this is a control message ({@link #CREDIT}, {@link #READ_DONE}): the session consumes it, its
     * receive buffer is reposted at once, and it uses up no demand.
     *
     * @return true for CREDIT and READ_DONE
     */
    public boolean isControl() {
        return this == CREDIT || this == READ_DONE;
    }

    /**
     * Whether a {@link #LARGE} message may stand for this type: {@link #DATA}, {@link #REQUEST},
     * {@link #RESPONSE}.
     *
     * @return true for the three types a LARGE descriptor can carry
     */
    public boolean canBeLarge() {
        return this == DATA || this == REQUEST || this == RESPONSE;
    }
}
