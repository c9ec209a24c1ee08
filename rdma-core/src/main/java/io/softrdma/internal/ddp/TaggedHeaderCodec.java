package io.softrdma.internal.ddp;

import io.netty.buffer.ByteBuf;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/**
 * The DDP Tagged Buffer Model header, RFC 5041 §4.3 (as RDMAP uses it, RFC 5040 Appendix A.1/A.3):
 *
 * <pre>
 *     0                   1                   2                   3
 *     0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *    +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  0 |T|L| Resrv | DV|   RsvdULP     |              STag             ~
 *    +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  4 ~  STag (cont.)                 |               TO              ~
 *    +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  8 ~                         TO (cont.)                            ~
 *    +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * 12 ~  TO (cont.)                   |
 *    +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * </pre>
 *
 * Offsets are from the start of the ULPDU (after MPA's ULPDU_Length). Readers use absolute reads.
 *
 * <p>Thread safety: stateless static methods.
 */
public final class TaggedHeaderCodec {
    public static final int CONTROL_OFFSET = 0;
    public static final int RDMAP_CONTROL_OFFSET = 1;
    /** Data Sink STag. */
    public static final int STAG_OFFSET = 2;
    /** Tagged Offset of the segment's first payload octet. */
    public static final int TO_OFFSET = 6;
    /** RFC 5041 §4.3: 14 octets (112 bits, as RFC 5040 §4.8 Terminated DDP Header). */
    public static final int LENGTH = 14;

    private static final VarHandle INT = MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.BIG_ENDIAN);
    private static final VarHandle LONG = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.BIG_ENDIAN);

    private TaggedHeaderCodec() {
    }

    public static int stag(ByteBuf buf, int offset) {
        return buf.getInt(offset + STAG_OFFSET);
    }

    public static long taggedOffset(ByteBuf buf, int offset) {
        return buf.getLong(offset + TO_OFFSET);
    }

    /** Writes a tagged header with RDMAP version 1 and {@code opcode}. */
    public static void write(ByteBuf out, int opcode, boolean last, int stag, long taggedOffset) {
        out.writeByte(DdpControl.ddpControl(true, last));
        out.writeByte(DdpControl.rdmapControl(opcode));
        out.writeInt(stag);
        out.writeLong(taggedOffset);
    }

    /**
     * Writes the same header into {@code out} at {@code at}, for a segment framed in an array (the sender's short
     * segments, {@code FpduEncoder.writeInline}); returns {@link #LENGTH}.
     */
    public static int write(byte[] out, int at, int opcode, boolean last, int stag, long taggedOffset) {
        out[at] = (byte) DdpControl.ddpControl(true, last);
        out[at + 1] = (byte) DdpControl.rdmapControl(opcode);
        INT.set(out, at + STAG_OFFSET, stag);
        LONG.set(out, at + TO_OFFSET, taggedOffset);
        return LENGTH;
    }

    /** Names every field, for logs and failing tests. */
    public static String describe(ByteBuf buf, int offset) {
        int ddp = buf.getUnsignedByte(offset);
        int rdmap = buf.getUnsignedByte(offset + 1);
        return String.format("tagged {T=%d L=%d DV=%d RV=%d opcode=%d STag=0x%08x TO=0x%x}",
                DdpControl.tagged(ddp) ? 1 : 0, DdpControl.last(ddp) ? 1 : 0, DdpControl.ddpVersion(ddp),
                DdpControl.rdmapVersion(rdmap), DdpControl.opcode(rdmap), stag(buf, offset),
                taggedOffset(buf, offset));
    }
}
