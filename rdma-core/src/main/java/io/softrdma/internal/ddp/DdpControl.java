package io.softrdma.internal.ddp;

/**
 * The first two octets of every DDP header (RFC 5041 §4.2 and §4.3; RFC 5040 §4.1 Figure 3):
 *
 * <pre>
 *     0                   1
 *     0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5
 *    +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *    |T|L| Resrv | DV| RV|Rsv| Opcode|
 *    +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *     DDP Control     RDMAP Control (first octet of RsvdULP)
 * </pre>
 *
 * <p>Thread safety: stateless static methods.
 */
public final class DdpControl {
    /** T: the segment uses the Tagged Buffer Model. */
    public static final int FLAG_T = 0x80;
    /** L: the last segment of a DDP message. */
    public static final int FLAG_L = 0x40;
    /** Resrv: four reserved bits, sent as zero and not checked (RFC 5041 §4.2). */
    public static final int RESERVED_MASK = 0x3C;
    /** DV: the DDP version, 01b for RFC 5041 (§4.2). */
    public static final int DV_MASK = 0x03;
    public static final int DDP_VERSION = 1;

    /** RV: the RDMAP version, 01b for RFC 5040 (§4.1). */
    public static final int RV_SHIFT = 6;
    public static final int RV_MASK = 0xC0;
    public static final int RDMAP_VERSION = 1;
    /** Rsv: two reserved bits of the RDMAP control field (§4.1). */
    public static final int RDMAP_RESERVED_MASK = 0x30;
    /** Opcode: the RDMA message type (§4.1 Figure 4). */
    public static final int OPCODE_MASK = 0x0F;

    private DdpControl() {
    }

    /** The DDP control octet for a segment. */
    public static int ddpControl(boolean tagged, boolean last) {
        return (tagged ? FLAG_T : 0) | (last ? FLAG_L : 0) | DDP_VERSION;
    }

    /** The RDMAP control octet for an opcode, version 1. */
    public static int rdmapControl(int opcode) {
        return RDMAP_VERSION << RV_SHIFT | opcode;
    }

    public static boolean tagged(int ddpControl) {
        return (ddpControl & FLAG_T) != 0;
    }

    public static boolean last(int ddpControl) {
        return (ddpControl & FLAG_L) != 0;
    }

    public static int ddpVersion(int ddpControl) {
        return ddpControl & DV_MASK;
    }

    public static int rdmapVersion(int rdmapControl) {
        return (rdmapControl & RV_MASK) >>> RV_SHIFT;
    }

    public static int opcode(int rdmapControl) {
        return rdmapControl & OPCODE_MASK;
    }
}
