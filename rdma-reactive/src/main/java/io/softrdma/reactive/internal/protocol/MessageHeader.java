package io.softrdma.reactive.internal.protocol;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.softrdma.RdmaException;

/**
 * The 8-octet header at the start of every RDMA Send payload of the SoftRDMA messaging protocol (docs/protocol.md),
 * big-endian:
 *
 * <pre>
 *     0       1       2               4                               8
 *    +-------+-------+---------------+-------------------------------+-----------
 *    | type  | flags |  credits (16) |      correlation id (32)      | payload ...
 *    +-------+-------+---------------+-------------------------------+-----------
 * </pre>
 *
 * <ul>
 *   <li><b>type</b>: a {@link MessageType} code.</li>
 *   <li><b>flags</b>: for {@link MessageType#LARGE}, the two low-order bits (mask {@code 0x03}) hold the code of the
 *       type the large message stands for ({@code DATA} 1, {@code REQUEST} 2, {@code RESPONSE} 3) and the six
 *       high-order bits are zero; for every other type all eight bits are zero. Nonzero reserved bits are a
 *       protocol error.</li>
 *   <li><b>credits</b>: receive buffers the sender of this header posted for its peer since its previous grant, a
 *       delta of 0 to 65535 ({@link CreditWindow}).</li>
 *   <li><b>correlation id</b>: for {@code REQUEST}, {@code RESPONSE}, {@code ERROR} and a {@code LARGE} request or
 *       response, the requester's id of the exchange; for {@code READ_DONE}, the STag of the (first) region read,
 *       whose payload lists the further STags it releases, 4 octets each; for
 *       {@code BATCH}, the number of messages it carries (1 or more); zero for {@code DATA}, {@code CREDIT} and a
 *       {@code LARGE} stream message.</li>
 * </ul>
 *
 * <p>A flyweight codec: static methods that read and write a header at an absolute index of a {@link ByteBuf},
 * without moving its reader or writer index and without allocating. {@link #validate} checks a received Send
 * completely and throws a {@link ProtocolException} — never an {@code IllegalArgumentException} — naming what is
 * wrong, so the session can close the connection with that message. The write methods check their arguments and
 * throw {@link IllegalArgumentException}: those are this side's bugs, not the peer's.
 *
 * <p>Thread safety: stateless static methods; the buffer is the caller's.
 */
public final class MessageHeader {
    /** Octets of the header. */
    public static final int LENGTH = 8;
    /** Offset of the type octet. */
    public static final int TYPE_OFFSET = 0;
    /** Offset of the flags octet. */
    public static final int FLAGS_OFFSET = 1;
    /** Offset of the 16-bit credits field. */
    public static final int CREDITS_OFFSET = 2;
    /** Offset of the 32-bit correlation id field. */
    public static final int CORRELATION_ID_OFFSET = 4;
    /** The largest grant one header carries. */
    public static final int MAX_CREDITS = 0xFFFF;
    /** The flags bits of a {@link MessageType#LARGE} header that hold the inner type's code. */
    public static final int INNER_TYPE_MASK = 0x03;

    private MessageHeader() {
    }

    /**
     * Writes a header at {@code index}; the buffer's indices do not move.
     *
     * @param buf the buffer, with at least {@link #LENGTH} octets of capacity from {@code index}
     * @param index absolute index of the header's first octet
     * @param type the message type
     * @param flags the flags octet: {@link #largeFlags} for {@link MessageType#LARGE}, else 0
     * @param credits the grant, 0 to {@link #MAX_CREDITS} (normally {@link CreditWindow#takeGrant()})
     * @param correlationId the correlation id; must be 0 for {@code DATA}, {@code CREDIT} and a {@code LARGE}
     *        {@code DATA}
     * @throws IllegalArgumentException if a field is not valid for {@code type}
     * @throws IndexOutOfBoundsException if the header does not fit at {@code index}; nothing is written
     */
    public static void write(ByteBuf buf, int index, MessageType type, int flags, int credits, int correlationId) {
        if (type == null) {
            throw new IllegalArgumentException("type must not be null");
        }
        if (credits < 0 || credits > MAX_CREDITS) {
            throw new IllegalArgumentException("credits " + credits + " is outside 0.." + MAX_CREDITS);
        }
        String error = flagsError(type, flags);
        if (error == null) {
            error = correlationError(type, flags, correlationId);
        }
        if (error != null) {
            throw new IllegalArgumentException(error);
        }
        if (index < 0 || index > buf.capacity() - LENGTH) {
            throw new IndexOutOfBoundsException("a " + LENGTH + "-octet header at index " + index
                    + " does not fit in a buffer of capacity " + buf.capacity());
        }
        buf.setByte(index + TYPE_OFFSET, type.code());
        buf.setByte(index + FLAGS_OFFSET, flags);
        buf.setShort(index + CREDITS_OFFSET, credits);
        buf.setInt(index + CORRELATION_ID_OFFSET, correlationId);
    }

    /**
     * Writes the header of a {@link MessageType#LARGE} message standing for {@code innerType}; the
     * {@link LargeMessageDescriptor} follows at {@code index + LENGTH}.
     *
     * @param buf the buffer
     * @param index absolute index of the header's first octet
     * @param innerType {@code DATA}, {@code REQUEST} or {@code RESPONSE}
     * @param credits the grant, 0 to {@link #MAX_CREDITS}
     * @param correlationId the request's correlation id, or 0 for {@code DATA}
     * @throws IllegalArgumentException if {@code innerType} cannot be large or a field is invalid
     */
    public static void writeLarge(ByteBuf buf, int index, MessageType innerType, int credits, int correlationId) {
        write(buf, index, MessageType.LARGE, largeFlags(innerType), credits, correlationId);
    }

    /**
     * The flags octet of a {@link MessageType#LARGE} message that stands for {@code innerType}: its code in the
     * two low-order bits ({@link #INNER_TYPE_MASK}).
     *
     * @param innerType {@code DATA}, {@code REQUEST} or {@code RESPONSE}
     * @return the flags octet
     * @throws IllegalArgumentException if {@code innerType} cannot be carried by a LARGE message
     */
    public static int largeFlags(MessageType innerType) {
        if (innerType == null || !innerType.canBeLarge()) {
            throw new IllegalArgumentException("a LARGE message stands for DATA, REQUEST or RESPONSE, not "
                    + innerType);
        }
        return innerType.code();
    }

    /**
     * The type octet, unchecked.
     *
     * @param buf the buffer
     * @param index absolute index of the header
     * @return the type code, 0 to 255
     */
    public static int typeCode(ByteBuf buf, int index) {
        return buf.getUnsignedByte(index + TYPE_OFFSET);
    }

    /**
     * The message type.
     *
     * @param buf the buffer
     * @param index absolute index of the header
     * @return the type
     * @throws ProtocolException if the type octet is not a known type
     */
    public static MessageType type(ByteBuf buf, int index) {
        int code = typeCode(buf, index);
        MessageType type = MessageType.fromCode(code);
        if (type == null) {
            throw new ProtocolException("unknown message type " + code + " (known: 1 DATA to 8 BATCH) in header "
                    + hex(buf, index, LENGTH));
        }
        return type;
    }

    /**
     * The flags octet, unchecked.
     *
     * @param buf the buffer
     * @param index absolute index of the header
     * @return the flags, 0 to 255
     */
    public static int flags(ByteBuf buf, int index) {
        return buf.getUnsignedByte(index + FLAGS_OFFSET);
    }

    /**
     * The credits field: the grant this header carries.
     *
     * @param buf the buffer
     * @param index absolute index of the header
     * @return 0 to {@link #MAX_CREDITS}
     */
    public static int credits(ByteBuf buf, int index) {
        return buf.getUnsignedShort(index + CREDITS_OFFSET);
    }

    /**
     * The correlation id field (for {@code READ_DONE}, the STag of the region read).
     *
     * @param buf the buffer
     * @param index absolute index of the header
     * @return the 32 bits of the field
     */
    public static int correlationId(ByteBuf buf, int index) {
        return buf.getInt(index + CORRELATION_ID_OFFSET);
    }

    /**
     * The type a {@link MessageType#LARGE} message stands for, from its flags.
     *
     * @param buf the buffer
     * @param index absolute index of a LARGE header
     * @return {@code DATA}, {@code REQUEST} or {@code RESPONSE}
     * @throws ProtocolException if the header is not LARGE or its flags do not name one of the three
     */
    public static MessageType innerType(ByteBuf buf, int index) {
        if (typeCode(buf, index) != MessageType.LARGE.code()) {
            throw new ProtocolException("only a LARGE message has an inner type, not header " + hex(buf, index,
                    LENGTH));
        }
        String error = flagsError(MessageType.LARGE, flags(buf, index));
        if (error != null) {
            throw new ProtocolException(error + " in header " + hex(buf, index, LENGTH));
        }
        return MessageType.fromCode(flags(buf, index) & INNER_TYPE_MASK);
    }

    /**
     * Checks a received Send of {@code length} octets whose header starts at {@code index}: long enough for the
     * header; a known type; flags valid for it; a correlation id of zero where the type requires it; and a payload
     * of the length the type requires ({@code CREDIT} none, {@code READ_DONE} a multiple of 4, {@code LARGE} exactly a
     * {@link LargeMessageDescriptor}). The descriptor's own fields are checked by
     * {@link LargeMessageDescriptor#read}.
     *
     * @param buf the receive buffer
     * @param index absolute index of the Send's first octet
     * @param length octets the Send carried (the receive completion's byte length)
     * @return the message type
     * @throws ProtocolException naming the first violation found
     */
    public static MessageType validate(ByteBuf buf, int index, int length) {
        if (length < LENGTH) {
            throw new ProtocolException("a Send of " + length + " octets is too short for the " + LENGTH
                    + "-octet message header" + (length > 0 ? " (" + hex(buf, index, length) + ")" : ""));
        }
        MessageType type = type(buf, index);
        int flags = flags(buf, index);
        String error = flagsError(type, flags);
        if (error == null) {
            error = correlationError(type, flags, correlationId(buf, index));
        }
        if (error == null) {
            int payload = length - LENGTH;
            if (type == MessageType.READ_DONE && payload % Integer.BYTES != 0) {
                error = "a READ_DONE's payload is the further STags it releases, 4 octets each, not " + payload
                        + " octets";
            } else if (type == MessageType.CREDIT && payload != 0) {
                error = "a CREDIT message has no payload, but this one has " + payload + " octets";
            } else if (type == MessageType.LARGE && payload != LargeMessageDescriptor.LENGTH) {
                error = "a LARGE message's payload is a " + LargeMessageDescriptor.LENGTH
                        + "-octet descriptor, not " + payload + " octets";
            } else if (type == MessageType.BATCH) {
                error = MessageBatch.error(buf, index + LENGTH, payload, correlationId(buf, index));
            }
        }
        if (error != null) {
            throw new ProtocolException(error + " in header " + hex(buf, index, LENGTH));
        }
        return type;
    }

    /**
     * Names every field, for logs and failing tests.
     *
     * @param buf the buffer
     * @param index absolute index of the header
     * @return a description such as {@code header{type=REQUEST flags=0x00 credits=3 correlationId=0x0000002a}}
     */
    public static String describe(ByteBuf buf, int index) {
        int code = typeCode(buf, index);
        MessageType type = MessageType.fromCode(code);
        return String.format("header{type=%s flags=0x%02x credits=%d correlationId=0x%08x}",
                type == null ? "unknown(" + code + ")" : type.name(), flags(buf, index), credits(buf, index),
                correlationId(buf, index));
    }

    private static String flagsError(MessageType type, int flags) {
        if (flags < 0 || flags > 0xFF) {
            return "flags " + flags + " do not fit in an octet";
        }
        if (type == MessageType.LARGE) {
            MessageType inner = MessageType.fromCode(flags & INNER_TYPE_MASK);
            if ((flags & ~INNER_TYPE_MASK) != 0 || inner == null) {
                return String.format("a LARGE message's flags must be 0x01 (DATA), 0x02 (REQUEST) or 0x03 (RESPONSE),"
                        + " not 0x%02x", flags);
            }
            return null;
        }
        return flags == 0 ? null : String.format("a %s message's flags must be zero, not 0x%02x", type, flags);
    }

    private static String correlationError(MessageType type, int flags, int correlationId) {
        boolean mustBeZero = type == MessageType.DATA || type == MessageType.CREDIT
                || (type == MessageType.LARGE && (flags & INNER_TYPE_MASK) == MessageType.DATA.code());
        if (mustBeZero && correlationId != 0) {
            return String.format("a %s message's correlation id must be zero, not 0x%08x",
                    type == MessageType.LARGE ? "LARGE DATA" : type.name(), correlationId);
        }
        if (type == MessageType.BATCH && correlationId < 1) {
            return String.format("a BATCH message's correlation id counts its messages, 1 or more, not 0x%08x",
                    correlationId);
        }
        return null;
    }

    private static String hex(ByteBuf buf, int index, int length) {
        int available = Math.max(0, Math.min(length, buf.capacity() - index));
        return available == 0 ? "(none)" : ByteBufUtil.hexDump(buf, index, available);
    }

    /**
     * A received message that breaks the SoftRDMA messaging protocol: a Send too short for the header, an unknown
     * type, reserved bits set, a payload of the wrong length, an invalid {@link LargeMessageDescriptor}. The
     * session fails the connection's pending operations with it and closes the connection; the message says what
     * was wrong and shows the header.
     *
     * <p>Stackless: it describes the peer's message, not a place in this process's code.
     */
    public static final class ProtocolException extends RdmaException {
        private static final long serialVersionUID = 1L;

        /**
         * A protocol error described by {@code message}.
         *
         * @param message what was wrong, with the offending values
         */
        public ProtocolException(String message) {
            super("SoftRDMA messaging protocol error: " + message, null, false, false);
        }
    }
}
