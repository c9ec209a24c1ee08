package io.softrdma.internal.ddp;

import io.netty.buffer.ByteBuf;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/**
 * The DDP Untagged Buffer Model header, RFC 5041 §4.4 (as RDMAP uses it, RFC 5040 Appendix A):
 *
 * <pre>
 *     0                   1                   2                   3
 *     0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *    +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  0 |T|L| Resrv | DV|  RsvdULP[0:7] |      RsvdULP[8:39]            ~
 *    +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  4 ~ RsvdULP (cont.: Invalidate STag)|          QN                  ~
 *    +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  8 ~  QN (cont.)                   |          MSN                  ~
 *    +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * 12 ~  MSN (cont.)                  |          MO                   ~
 *    +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * 16 ~  MO (cont.)                   |
 *    +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * </pre>
 *
 * Offsets are from the start of the ULPDU. RDMAP carries its control octet in RsvdULP[0:7] and the
 * Invalidate STag in RsvdULP[8:39] (RFC 5040 §4.1).
 *
 * <p>Thread safety: stateless static methods.
 */
public final class UntaggedHeaderCodec {
    public static final int CONTROL_OFFSET = 0;
    public static final int RDMAP_CONTROL_OFFSET = 1;
    /** RFC 5040 §4.1: the Invalidate STag of Send with Invalidate; zero otherwise. */
    public static final int INVALIDATE_STAG_OFFSET = 2;
    /** Queue Number. */
    public static final int QN_OFFSET = 6;
    /** Message Sequence Number. */
    public static final int MSN_OFFSET = 10;
    /** Message Offset. */
    public static final int MO_OFFSET = 14;
    /** RFC 5041 §4.4: 18 octets (144 bits, as RFC 5040 §4.8 Terminated DDP Header). */
    public static final int LENGTH = 18;

    /** RFC 5040 §3.1: the queue of Send, Send with Invalidate, Send with SE, Send with SE and Invalidate. */
    public static final int QN_SEND = 0;
    /** RFC 5040 §3.1: the RDMA Read Request queue. */
    public static final int QN_READ_REQUEST = 1;
    /** RFC 5040 §3.1: the Terminate queue. */
    public static final int QN_TERMINATE = 2;
    /** RFC 7306: the queue of Atomic Responses. */
    public static final int QN_ATOMIC_RESPONSE = 3;

    private static final VarHandle INT = MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.BIG_ENDIAN);

    private UntaggedHeaderCodec() {
    }

    public static int invalidateStag(ByteBuf buf, int offset) {
        return buf.getInt(offset + INVALIDATE_STAG_OFFSET);
    }

    public static long queueNumber(ByteBuf buf, int offset) {
        return buf.getUnsignedInt(offset + QN_OFFSET);
    }

    public static int msn(ByteBuf buf, int offset) {
        return buf.getInt(offset + MSN_OFFSET);
    }

    public static long messageOffset(ByteBuf buf, int offset) {
        return buf.getUnsignedInt(offset + MO_OFFSET);
    }

    /** Writes an untagged header with RDMAP version 1 and {@code opcode}. */
    public static void write(ByteBuf out, int opcode, boolean last, int invalidateStag, int queueNumber, int msn,
            int messageOffset) {
        out.writeByte(DdpControl.ddpControl(false, last));
        out.writeByte(DdpControl.rdmapControl(opcode));
        out.writeInt(invalidateStag);
        out.writeInt(queueNumber);
        out.writeInt(msn);
        out.writeInt(messageOffset);
    }

    /**
     * Writes the same header into {@code out} at {@code at}, for a segment framed in an array (the sender's short
     * segments, {@code FpduEncoder.writeInline}); returns {@link #LENGTH}.
     */
    public static int write(byte[] out, int at, int opcode, boolean last, int invalidateStag, int queueNumber,
            int msn, int messageOffset) {
        out[at] = (byte) DdpControl.ddpControl(false, last);
        out[at + 1] = (byte) DdpControl.rdmapControl(opcode);
        INT.set(out, at + INVALIDATE_STAG_OFFSET, invalidateStag);
        INT.set(out, at + QN_OFFSET, queueNumber);
        INT.set(out, at + MSN_OFFSET, msn);
        INT.set(out, at + MO_OFFSET, messageOffset);
        return LENGTH;
    }

    /** Names every field, for logs and failing tests. */
    public static String describe(ByteBuf buf, int offset) {
        int ddp = buf.getUnsignedByte(offset);
        int rdmap = buf.getUnsignedByte(offset + 1);
        return String.format("untagged {T=%d L=%d DV=%d RV=%d opcode=%d InvSTag=0x%08x QN=%d MSN=%d MO=%d}",
                DdpControl.tagged(ddp) ? 1 : 0, DdpControl.last(ddp) ? 1 : 0, DdpControl.ddpVersion(ddp),
                DdpControl.rdmapVersion(rdmap), DdpControl.opcode(rdmap), invalidateStag(buf, offset),
                queueNumber(buf, offset), Integer.toUnsignedLong(msn(buf, offset)), messageOffset(buf, offset));
    }
}
