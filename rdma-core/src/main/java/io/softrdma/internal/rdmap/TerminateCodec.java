package io.softrdma.internal.rdmap;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.softrdma.rdmap.ReceivedTerminate;
import io.softrdma.rdmap.TerminateCode;

/**
 * The Terminate header, RFC 5040 §4.8 Figures 7 and 8, which follows the untagged DDP header of a
 * Terminate message (QN 2):
 *
 * <pre>
 *     0                   1                   2                   3
 *     0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *    +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  0 | Layer | EType |  Error Code   |M|D|R|        Reserved         |
 *    +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  4 |    DDP Segment Length (if any)|                               |
 *    +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+                               +
 *  6 //          Terminated DDP Header (if any: 14 or 18 octets)     //
 *    +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *    //          Terminated RDMA Header (if any: 28 octets)          //
 *    +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * </pre>
 *
 * <p>Linux siw (6.1) writes the control word through a little-endian C bitfield, so on the wire its
 * Layer and EType nibbles are swapped and M/D/R sit at 0x01/0x02/0x04 of the third octet: "invalid QN
 * with M and D" arrives as {@code 21 01 03 00} instead of {@code 12 01 c0 00}. This codec writes the
 * RFC's layout and {@link #decode decodes} either, reporting both readings when they differ.
 *
 * <p>Thread safety: stateless static methods.
 */
public final class TerminateCodec {
    public static final int CONTROL_OFFSET = 0;
    /** Terminate Control (19 bits) and Reserved (13 bits). */
    public static final int CONTROL_LENGTH = 4;
    public static final int SEGMENT_LENGTH_OFFSET = 4;
    public static final int DDP_HEADER_OFFSET = 6;
    /** §4.8 HdrCt M: DDP Segment Length valid. */
    public static final int FLAG_M = 0x80;
    /** §4.8 HdrCt D: DDP Header included. */
    public static final int FLAG_D = 0x40;
    /** §4.8 HdrCt R: RDMAP Header included. */
    public static final int FLAG_R = 0x20;
    /** The same bits as siw 6.1 writes them (see the class comment). */
    static final int SIW_FLAG_M = 0x01;
    static final int SIW_FLAG_D = 0x02;
    static final int SIW_FLAG_R = 0x04;

    private TerminateCodec() {
    }

    /** The octets {@link #write} produces for {@code cause}. */
    public static int length(TerminateCause cause) {
        int n = CONTROL_LENGTH;
        if (cause.hasSegmentLength() || cause.hasDdpHeader()) {
            n += 2;
        }
        return n + cause.ddpHeaderUnsafe().length + cause.rdmaHeaderUnsafe().length;
    }

    /** Writes the Terminate header for {@code cause} in the RFC's layout. */
    public static void write(ByteBuf out, TerminateCause cause) {
        TerminateCode code = cause.code();
        out.writeByte(code.layer() << 4 | code.errorType());
        out.writeByte(code.errorCode());
        out.writeByte((cause.hasSegmentLength() ? FLAG_M : 0) | (cause.hasDdpHeader() ? FLAG_D : 0)
                | (cause.hasRdmaHeader() ? FLAG_R : 0));
        out.writeByte(0);
        if (cause.hasSegmentLength() || cause.hasDdpHeader()) {
            out.writeShort(cause.segmentLength());
        }
        out.writeBytes(cause.ddpHeaderUnsafe());
        out.writeBytes(cause.rdmaHeaderUnsafe());
    }

    /**
     * Decodes the Terminate header of {@code length} octets at {@code offset}; {@code tagged} tells
     * whether the terminated DDP header, if any, is a tagged one (its first octet says so).
     */
    public static ReceivedTerminate decode(ByteBuf buf, int offset, int length) {
        if (length < CONTROL_LENGTH) {
            throw new IllegalArgumentException("a Terminate header has at least 4 octets, this one " + length);
        }
        int b0 = buf.getUnsignedByte(offset);
        int errorCode = buf.getUnsignedByte(offset + 1);
        int b2 = buf.getUnsignedByte(offset + 2);
        TerminateCode rfc = new TerminateCode(b0 >>> 4, b0 & 0x0F, errorCode);
        TerminateCode swapped = new TerminateCode(b0 & 0x0F, b0 >>> 4, errorCode);
        boolean rfcBits = (b2 & (FLAG_M | FLAG_D | FLAG_R)) != 0;
        boolean siwBits = (b2 & (SIW_FLAG_M | SIW_FLAG_D | SIW_FLAG_R)) != 0;
        // Prefer the layout whose header-control bits are the ones in use; with none set, prefer the
        // reading whose layer RFC 5040 defines.
        boolean siwLayout = siwBits && !rfcBits
                || !rfcBits && !siwBits && rfc.terminateLayer() == null && swapped.terminateLayer() != null;
        boolean m = siwLayout ? (b2 & SIW_FLAG_M) != 0 : (b2 & FLAG_M) != 0;
        boolean d = siwLayout ? (b2 & SIW_FLAG_D) != 0 : (b2 & FLAG_D) != 0;
        boolean r = siwLayout ? (b2 & SIW_FLAG_R) != 0 : (b2 & FLAG_R) != 0;

        int p = offset + CONTROL_LENGTH;
        int end = offset + length;
        int segmentLength = -1;
        byte[] ddpHeader = new byte[0];
        byte[] rdmaHeader = new byte[0];
        if ((m || d) && end - p >= 2) {
            segmentLength = buf.getUnsignedShort(p);
            p += 2;
        }
        if (d && end - p >= 1) {
            boolean taggedHeader = (buf.getUnsignedByte(p) & 0x80) != 0;
            int n = Math.min(end - p, taggedHeader ? 14 : 18);
            ddpHeader = ByteBufUtil.getBytes(buf, p, n);
            p += n;
        }
        if (r && end - p > 0) {
            rdmaHeader = ByteBufUtil.getBytes(buf, p, Math.min(end - p, ReadRequestCodec.LENGTH));
        }
        return new ReceivedTerminate(siwLayout ? swapped : rfc, siwLayout ? rfc : swapped, siwLayout, m, d, r,
                segmentLength, ddpHeader, rdmaHeader);
    }

    /** Names every field, for logs and failing tests. */
    public static String describe(ByteBuf buf, int offset, int length) {
        return decode(buf, offset, length).toString();
    }
}
