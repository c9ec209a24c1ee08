package io.softrdma.internal.rdmap;

import io.netty.buffer.ByteBuf;

/**
 * The Atomic Response header (RFC 7306 §5.2.2; RDMAP opcode 0xB, untagged, on QN 3), which follows the untagged
 * DDP header: 12 octets, the identifier of the request it answers and the word's value before the operation.
 *
 * <pre>
 *     0                   1                   2                   3
 *     0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *    +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  0 |                 Original Request Identifier                   |
 *    +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  4 +               Original Remote Data Value (64)                 +
 *    +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * </pre>
 *
 * <p>Thread safety: stateless static methods.
 */
public final class AtomicResponseCodec {
    public static final int REQUEST_ID_OFFSET = 0;
    public static final int ORIGINAL_VALUE_OFFSET = 4;
    public static final int LENGTH = 12;

    private AtomicResponseCodec() {
    }

    public static int requestId(ByteBuf buf, int offset) {
        return buf.getInt(offset + REQUEST_ID_OFFSET);
    }

    public static long originalValue(ByteBuf buf, int offset) {
        return buf.getLong(offset + ORIGINAL_VALUE_OFFSET);
    }

    public static void write(ByteBuf out, int requestId, long originalValue) {
        out.writeInt(requestId);
        out.writeLong(originalValue);
    }
}
