package io.softrdma.internal.mpa;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;

/**
 * Wire format of an FPDU and of a Marker, RFC 5044 §4.1 (Figure 2) and §4.2 (Figure 3):
 *
 * <pre>
 *     0                   1                   2                   3
 *     0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *    +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *    |          ULPDU_Length         |                               |
 *    +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+                               +
 *    ~                             ULPDU                             ~
 *    |                               +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *    |                               |          PAD (0-3 octets)     |
 *    +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *    |                              CRC                              |
 *    +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *
 *    Marker:
 *    +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *    |           RESERVED            |            FPDUPTR            |
 *    +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * </pre>
 *
 * <p>Markers (when negotiated for a direction) sit at every 512th octet of that direction's stream,
 * counted from the first octet of its first FPDU (§4.3), wherever that falls: between FPDUs, inside a
 * ULPDU, or between the PAD and the CRC.
 *
 * <p>Thread safety: stateless static methods.
 */
public final class FpduCodec {
    /** §4.1 ULPDU_Length: 16 bits. */
    public static final int LENGTH_FIELD_LENGTH = 2;
    /** §4.1 CRC: 32 bits. */
    public static final int CRC_LENGTH = 4;
    /** §4.1: "adds a minimum of 6 octets to the length of the ULPDU". */
    public static final int FRAMING_OVERHEAD = LENGTH_FIELD_LENGTH + CRC_LENGTH;
    /** §4.2 Marker: 32 bits. */
    public static final int MARKER_LENGTH = 4;
    /** §4.3: "a 512-octet periodic interval in the TCP Sequence Number Space". */
    public static final int MARKER_INTERVAL = 512;
    /** §4.2 FPDUPTR: "The least significant two bits ... MUST [be treated] as zero". */
    public static final int FPDUPTR_MASK = 0xFFFC;
    /** §3: "The sending DDP MUST NOT post a ULPDU larger than 64768 octets". */
    public static final int MAX_ULPDU_LENGTH = 64768;
    /** §3 and §4.5: MULPDU is never below 128 octets. */
    public static final int MIN_MULPDU = 128;

    private FpduCodec() {
    }

    /** §4.1 PAD: 0 to 3 octets so that ULPDU_Length field + ULPDU + PAD is a multiple of four. */
    public static int padLength(int ulpduLength) {
        return -(LENGTH_FIELD_LENGTH + ulpduLength) & 3;
    }

    /** Octets of an FPDU without Markers: length field, ULPDU, PAD and CRC. */
    public static int fpduLength(int ulpduLength) {
        return LENGTH_FIELD_LENGTH + ulpduLength + padLength(ulpduLength) + CRC_LENGTH;
    }

    /**
     * §4.5: the largest ULPDU that fits one TCP segment of {@code emss} octets,
     * {@code EMSS - (6 + 4 * ceil(EMSS / 512) + EMSS mod 4)} with Markers and
     * {@code EMSS - (6 + EMSS mod 4)} without, kept within [128, 64768] as §3 and §4.5 require.
     */
    public static int mulpdu(int emss, boolean markers) {
        int mulpdu = emss - (FRAMING_OVERHEAD + emss % 4);
        if (markers) {
            mulpdu -= MARKER_LENGTH * ((emss + MARKER_INTERVAL - 1) / MARKER_INTERVAL);
        }
        return Math.max(MIN_MULPDU, Math.min(MAX_ULPDU_LENGTH, mulpdu));
    }

    /**
     * Octets from stream position {@code p} to the next Marker position (§4.3), or 0 when a Marker
     * starts at {@code p}. Positions count from the first octet of the direction's first FPDU.
     */
    public static int octetsBeforeMarker(long p) {
        int offsetInInterval = (int) (p % MARKER_INTERVAL);
        return offsetInInterval == 0 ? 0 : MARKER_INTERVAL - offsetInInterval;
    }

    /** ULPDU_Length of the FPDU whose length field is at {@code offset}. */
    public static int ulpduLength(ByteBuf buf, int offset) {
        return buf.getUnsignedShort(offset);
    }

    /** The CRC field at {@code offset}, read least-significant octet first (§4.4, as iSCSI). */
    public static int crcLittleEndian(ByteBuf buf, int offset) {
        return buf.getIntLE(offset);
    }

    /** FPDUPTR of the Marker at {@code offset}, with its two low bits treated as zero (§4.2). */
    public static int markerFpduPointer(ByteBuf buf, int offset) {
        return buf.getUnsignedShort(offset + 2) & FPDUPTR_MASK;
    }

    /** Names the fields of the (Marker-free) FPDU at {@code offset}, for logs and failing tests. */
    public static String describe(ByteBuf buf, int offset) {
        int readable = buf.writerIndex() - offset;
        if (readable < LENGTH_FIELD_LENGTH) {
            return "FPDU {" + readable + " octets, no complete ULPDU_Length}";
        }
        int ulpduLength = ulpduLength(buf, offset);
        int pad = padLength(ulpduLength);
        StringBuilder sb = new StringBuilder("FPDU {ULPDU_Length=").append(ulpduLength).append(" PAD=").append(pad);
        int total = fpduLength(ulpduLength);
        if (readable >= total) {
            sb.append(" CRC(le)=0x").append(Integer.toHexString(crcLittleEndian(buf, offset + total - CRC_LENGTH)))
                    .append(" computed=0x")
                    .append(Integer.toHexString(Crc32c.compute(buf, offset, total - CRC_LENGTH)));
        } else {
            sb.append(" (").append(readable).append(" of ").append(total).append(" octets)");
        }
        int show = Math.min(Math.min(ulpduLength, 32), readable - LENGTH_FIELD_LENGTH);
        if (show > 0) {
            sb.append(" ULPDU=").append(ByteBufUtil.hexDump(buf, offset + LENGTH_FIELD_LENGTH, show))
                    .append(ulpduLength > show ? "..." : "");
        }
        return sb.append('}').toString();
    }
}
