package io.softrdma.mpa;

/**
 * The 4-octet block RFC 6581 §5 puts in front of the private data of an "enhanced" MPA Request or
 * Reply (revision 2, flag 0x10 as Linux marks it):
 *
 * <pre>
 *     0                   1                   2                   3
 *     0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *    +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *    |A|B|           IRD             |C|D|           ORD             |
 *    +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * </pre>
 *
 * A: peer-to-peer mode; B: a zero-length Send may be the ready-to-receive (RTR) message; C: a
 * zero-length RDMA Write may be; D: a zero-length RDMA Read may be. IRD and ORD are 14 bits each.
 *
 * <p>Thread safety: immutable.
 *
 * @param peerToPeer A: the initiator asks for (or the responder agrees to) peer-to-peer mode
 * @param sendRtr B: a zero-length Send as RTR (Linux never offers or accepts it)
 * @param ird inbound RDMA Read queue depth, 0 to 16383
 * @param writeRtr C: a zero-length RDMA Write as RTR
 * @param readRtr D: a zero-length RDMA Read as RTR
 * @param ord outbound RDMA Read queue depth, 0 to 16383
 */
public record IrdOrdHeader(boolean peerToPeer, boolean sendRtr, int ird, boolean writeRtr, boolean readRtr, int ord) {
    /** Octets of the block. */
    public static final int LENGTH = 4;
    /** IRD word, bit A. */
    public static final int PEER_TO_PEER = 0x8000;
    /** IRD word, bit B (Linux: MPA_V2_ZERO_LENGTH_RTR). */
    public static final int SEND_RTR = 0x4000;
    /** ORD word, bit C. */
    public static final int WRITE_RTR = 0x8000;
    /** ORD word, bit D. */
    public static final int READ_RTR = 0x4000;
    /** Linux siw's per-QP limit on IRD and ORD (SIW_MAX_IRD_QP, SIW_MAX_ORD_QP). */
    public static final int LINUX_MAX_DEPTH = 128;
    /** The 14 bits of IRD or ORD. */
    public static final int MASK = 0x3FFF;

    public IrdOrdHeader {
        if (ird < 0 || ird > MASK) {
            throw new IllegalArgumentException("IRD " + ird
                    + " does not fit the 14-bit field (0..16383, RFC 6581 §5)");
        }
        if (ord < 0 || ord > MASK) {
            throw new IllegalArgumentException("ORD " + ord
                    + " does not fit the 14-bit field (0..16383, RFC 6581 §5)");
        }
    }

    /** A block without peer-to-peer mode. */
    public static IrdOrdHeader of(int ird, int ord) {
        return new IrdOrdHeader(false, false, ird, false, false, ord);
    }

    /** Writes the block at {@code offset}. */
    public void encode(byte[] dst, int offset) {
        int irdWord = (peerToPeer ? PEER_TO_PEER : 0) | (sendRtr ? SEND_RTR : 0) | ird;
        int ordWord = (writeRtr ? WRITE_RTR : 0) | (readRtr ? READ_RTR : 0) | ord;
        dst[offset] = (byte) (irdWord >>> 8);
        dst[offset + 1] = (byte) irdWord;
        dst[offset + 2] = (byte) (ordWord >>> 8);
        dst[offset + 3] = (byte) ordWord;
    }

    /** The block followed by {@code applicationData}: the private data of an enhanced frame. */
    public byte[] prependTo(byte[] applicationData) {
        byte[] pd = new byte[LENGTH + applicationData.length];
        encode(pd, 0);
        System.arraycopy(applicationData, 0, pd, LENGTH, applicationData.length);
        return pd;
    }

    /**
     * Reads the block at the start of {@code privateData}.
     *
     * @throws IllegalArgumentException if fewer than 4 octets are given
     */
    public static IrdOrdHeader decode(byte[] privateData) {
        if (privateData.length < LENGTH) {
            throw new IllegalArgumentException("an enhanced MPA frame needs at least " + LENGTH
                    + " octets of private data for IRD/ORD, got " + privateData.length + " (RFC 6581 §5)");
        }
        int irdWord = ((privateData[0] & 0xFF) << 8) | (privateData[1] & 0xFF);
        int ordWord = ((privateData[2] & 0xFF) << 8) | (privateData[3] & 0xFF);
        return new IrdOrdHeader((irdWord & PEER_TO_PEER) != 0, (irdWord & SEND_RTR) != 0, irdWord & MASK,
                (ordWord & WRITE_RTR) != 0, (ordWord & READ_RTR) != 0, ordWord & MASK);
    }

    @Override
    public String toString() {
        return "IRD/ORD {IRD=" + ird + " ORD=" + ord + (peerToPeer ? " P2P" : "") + (sendRtr ? " SEND_RTR" : "")
                + (writeRtr ? " WRITE_RTR" : "") + (readRtr ? " READ_RTR" : "") + "}";
    }
}
