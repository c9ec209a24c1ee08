package io.softrdma.samples.perftest;

import java.nio.ByteBuffer;

/**
 * perftest's {@code struct pingpong_dest}, what {@code ctx_hand_shake} sends over the control connection: 56
 * octets on x86-64, every integer big-endian ({@code rdma_write_keys} with HAVE_ENDIAN, as Debian builds it).
 *
 * <pre>
 *  0 lid        4 out_reads   8 qpn   12 psn   16 rkey   20 (padding)   24 vaddr (8)
 * 32 gid (16)  48 srqn       52 gid_index
 * </pre>
 *
 * <p>A receiver reads lid, out_reads, qpn, psn, rkey, vaddr and gid ({@code rdma_read_keys}); srqn and gid_index
 * are sent but not read back.
 *
 * <p>Thread safety: immutable.
 */
record PingpongDest(int lid, int outReads, int qpn, int psn, int rkey, long vaddr, byte[] gid, int srqn,
        int gidIndex) {
    /** sizeof(struct pingpong_dest) on x86-64 (vaddr aligned to 8). */
    static final int LENGTH = 56;
    /** All zero: what perftest exchanges before its data connections exist. */
    static final PingpongDest ZERO = new PingpongDest(0, 0, 0, 0, 0, 0, new byte[16], 0, 0);

    PingpongDest {
        if (gid.length != 16) {
            throw new IllegalArgumentException("a GID has 16 octets, not " + gid.length);
        }
        gid = gid.clone();
    }

    @Override
    public byte[] gid() {
        return gid.clone();
    }

    byte[] encode() {
        ByteBuffer b = ByteBuffer.allocate(LENGTH);
        b.putInt(lid).putInt(outReads).putInt(qpn).putInt(psn).putInt(rkey).putInt(0).putLong(vaddr).put(gid)
                .putInt(srqn).putInt(gidIndex);
        return b.array();
    }

    /**
     * @throws IllegalArgumentException when {@code m} is not 56 octets
     */
    static PingpongDest decode(byte[] m) {
        if (m.length != LENGTH) {
            throw new IllegalArgumentException("a pingpong_dest has " + LENGTH + " octets, this message " + m.length);
        }
        ByteBuffer b = ByteBuffer.wrap(m);
        int lid = b.getInt();
        int outReads = b.getInt();
        int qpn = b.getInt();
        int psn = b.getInt();
        int rkey = b.getInt();
        b.getInt();
        long vaddr = b.getLong();
        byte[] gid = new byte[16];
        b.get(gid);
        return new PingpongDest(lid, outReads, qpn, psn, rkey, vaddr, gid, b.getInt(), b.getInt());
    }

    /** ctx_print_pingpong_data's line, e.g. " local address: LID 0000 QPN 0x0011 PSN 0x8e0a2b RKey 0x000102 VAddr 0x..." */
    String describe(String side, Tool.Verb verb) {
        StringBuilder s = new StringBuilder(String.format(" %s address: LID %#04x QPN %#06x PSN %#06x", side, lid, qpn,
                psn));
        if (verb == Tool.Verb.READ) {
            s.append(String.format(" OUT %#04x", outReads));
        }
        if (verb != Tool.Verb.SEND) {
            s.append(String.format(" RKey %#08x VAddr %#016x", rkey, vaddr));
        }
        return s.toString();
    }
}
