package io.softrdma.internal.rdmap;

import io.netty.buffer.ByteBuf;

/**
 * The Immediate Data header (RFC 7306 §6.2; RDMAP opcodes 0x8 and 0x9 with Solicited Event, untagged, on the
 * Send queue QN 0): 8 octets of data for the peer's receive completion. It consumes one posted receive like a
 * Send, but places nothing in its buffer.
 *
 * <p>Thread safety: stateless static methods.
 */
public final class ImmediateDataCodec {
    public static final int LENGTH = 8;

    private ImmediateDataCodec() {
    }

    public static long data(ByteBuf buf, int offset) {
        return buf.getLong(offset);
    }

    public static void write(ByteBuf out, long data) {
        out.writeLong(data);
    }
}
