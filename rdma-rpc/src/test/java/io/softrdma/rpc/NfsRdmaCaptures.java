package io.softrdma.rpc;

/**
 * Real bytes exchanged with the Linux kernel NFS server (svcrdma, Debian 12 kernel 6.1) over siw, from
 * {@code shared/interop/nfs-rdma/captures}: the ULP payload of each RDMA Send, i.e. the octets after the 2-octet MPA
 * length and the 18-octet untagged DDP/RDMAP header, before the MPA pad and CRC. Each is the RPC-over-RDMA v1 header
 * (RFC 8166) followed by the ONC RPC message (RFC 5531).
 */
final class NfsRdmaCaptures {
    private NfsRdmaCaptures() {
    }

    /** XID of the NULL probes: "NULL". */
    static final int NULL_XID = 0x4e554c4c;
    /** XID of the READ probes: "READ". */
    static final int READ_XID = 0x52454144;
    /** The Write chunk segment the READ probe offers (its STag and tagged offset). */
    static final int STAG = 0x5a5a0101;
    static final long TO = 0x00007f0012340000L;

    /** The RPC-over-RDMA header of every NULL call and reply: three empty lists. */
    static final int NULL_HEADER_LENGTH = 28;
    /** The header of the READ calls and replies: one Write chunk of one segment. */
    static final int READ_HEADER_LENGTH = 52;

    /** v4_null_pd1k.txt, SEND FPDU RDMA Send #1: RDMA_MSG, credits 32 asked, NFSv4 NULL CALL, AUTH_NONE (68 octets). */
    static final String V4_NULL_CALL = ""
            + "4e554c4c 00000001 00000020 00000000 00000000 00000000 00000000"
            + "4e554c4c 00000000 00000002 000186a3 00000004 00000000 00000000 00000000 00000000 00000000";

    /** v4_null_pd1k.txt, RECV FPDU Send: RDMA_MSG, credit grant 64, MSG_ACCEPTED SUCCESS, no results (52 octets). */
    static final String V4_NULL_REPLY = ""
            + "4e554c4c 00000001 00000040 00000000 00000000 00000000 00000000"
            + "4e554c4c 00000001 00000000 00000000 00000000 00000000";

    /**
     * v4_read64k_wchunk_inv1.txt, SEND FPDU RDMA Send #1: RDMA_MSG with a Write list of one chunk of one segment
     * (STag 0x5a5a0101, 65536 octets, TO 0x7f0012340000), then an NFSv4 COMPOUND call with AUTH_SYS (stamp
     * 0x5157ad00, "siwhost", uid 0, gid 0, no gids): PUTROOTFH, LOOKUP "data.bin", GETFH, READ 65536 at 0 (188 octets).
     */
    static final String V4_READ64K_CALL = ""
            + "52454144 00000001 00000020 00000000 00000000 00000001 00000001 5a5a0101 00010000 00007f00 12340000"
            + "00000000 00000000"
            // RPC call header, 68 octets
            + "52454144 00000000 00000002 000186a3 00000004 00000001"
            + "00000001 0000001c 5157ad00 00000007 73697768 6f737400 00000000 00000000 00000000"
            + "00000000 00000000"
            // COMPOUND4args, 68 octets
            + "00000000 00000000 00000004 00000018 0000000f 00000008 64617461 2e62696e 0000000a 00000019"
            + "ffffffff ffffffff ffffffff ffffffff 00000000 00000000 00010000";

    /**
     * v4_read64k_wchunk_inv1.txt, RECV FPDU Send with Invalidate: credit grant 64, the Write list echoed with length
     * 65536 (the octets written), then MSG_ACCEPTED SUCCESS and COMPOUND4res ending in the READ data length, the data
     * itself in the chunk (152 octets).
     */
    static final String V4_READ64K_REPLY = ""
            + "52454144 00000001 00000040 00000000 00000000 00000001 00000001 5a5a0101 00010000 00007f00 12340000"
            + "00000000 00000000"
            + "52454144 00000001 00000000 00000000 00000000 00000000"
            + "00000000 00000000 00000004 00000018 00000000 0000000f 00000000 0000000a 00000000 00000014"
            + "01000101 00000000 252c99f2 02000000 00000000 00000019 00000000 00000000 00010000";

    /**
     * v4_read_eof_short1001.txt, RECV FPDU Send with Invalidate: a short read at EOF, the Write list echoed with
     * length 1001 (0x3e9), READ eof 1, data length 1001 (152 octets).
     */
    static final String V4_READ_EOF_SHORT_REPLY = ""
            + "52454144 00000001 00000040 00000000 00000000 00000001 00000001 5a5a0101 000003e9 00007f00 12340000"
            + "00000000 00000000"
            + "52454144 00000001 00000000 00000000 00000000 00000000"
            + "00000000 00000000 00000004 00000018 00000000 0000000f 00000000 0000000a 00000000 00000014"
            + "01000101 00000000 13f83a6c 02000000 00000000 00000019 00000000 00000001 000003e9";

    /**
     * v4_read_zerostateid_in_grace_NFS4ERR_GRACE.txt, the first RECV FPDU Send with Invalidate: the Write list
     * echoed with length 0 (nothing written), COMPOUND and READ status NFS4ERR_GRACE 10013 (0x271d) (144 octets).
     */
    static final String V4_READ_GRACE_REPLY = ""
            + "52454144 00000001 00000040 00000000 00000000 00000001 00000001 5a5a0101 00000000 00007f00 12340000"
            + "00000000 00000000"
            + "52454144 00000001 00000000 00000000 00000000 00000000"
            + "0000271d 00000000 00000004 00000018 00000000 0000000f 00000000 0000000a 00000000 00000014"
            + "01000101 00000000 13f83a6c 02000000 00000000 00000019 0000271d";

    /**
     * v4_read_chunk_too_small.txt, SEND FPDU RDMA Send #1: as {@link #V4_READ64K_CALL} but the segment is 32768
     * octets (0x8000) for a READ of 65536 (188 octets).
     */
    static final String V4_READ_CHUNK_TOO_SMALL_CALL = ""
            + "52454144 00000001 00000020 00000000 00000000 00000001 00000001 5a5a0101 00008000 00007f00 12340000"
            + "00000000 00000000"
            + "52454144 00000000 00000002 000186a3 00000004 00000001"
            + "00000001 0000001c 5157ad00 00000007 73697768 6f737400 00000000 00000000 00000000"
            + "00000000 00000000"
            + "00000000 00000000 00000004 00000018 0000000f 00000008 64617461 2e62696e 0000000a 00000019"
            + "ffffffff ffffffff ffffffff ffffffff 00000000 00000000 00010000";

    /**
     * v4_read_chunk_too_small.txt, the reply: NFS4ERR_FBIG (27), the Write list echoed with length 0 (144 octets).
     * That capture has no raw hex dump of the reply, only its annotated XDR words ("RPC-over-RDMA header:" and
     * "ONC RPC REPLY + COMPOUND4res (92 bytes):"); these are those words in order.
     */
    static final String V4_READ_FBIG_REPLY = ""
            + "52454144 00000001 00000040 00000000 00000000 00000001 00000001 5a5a0101 00000000 00007f00 12340000"
            + "00000000 00000000"
            + "52454144 00000001 00000000 00000000 00000000 00000000"
            + "0000001b 00000000 00000004 00000018 00000000 0000000f 00000000 0000000a 00000000 00000014"
            + "01000101 00000000 13f83a6c 02000000 00000000 00000019 0000001b";

    /** neg_rdma_vers2.txt, SEND FPDU RDMA Send #1: the NFSv4 NULL call with rdma_vers 2 (68 octets). */
    static final String NEG_VERS2_CALL = ""
            + "4e554c4c 00000002 00000020 00000000 00000000 00000000 00000000"
            + "4e554c4c 00000000 00000002 000186a3 00000004 00000000 00000000 00000000 00000000 00000000";

    /**
     * neg_rdma_vers2.txt, RECV FPDU Send: RDMA_ERROR with the call's rdma_vers 2 echoed, credit 64, ERR_VERS low 1
     * high 1 (28 octets).
     */
    static final String NEG_VERS2_ERROR_REPLY = "4e554c4c 00000002 00000040 00000004 00000001 00000001 00000001";

    /**
     * v3_null_v3_disabled.txt, RECV FPDU Send: an NFSv3 NULL to a v4-only server, MSG_ACCEPTED PROG_MISMATCH 4..4
     * (60 octets).
     */
    static final String V3_NULL_PROG_MISMATCH_REPLY = ""
            + "4e554c4c 00000001 00000040 00000000 00000000 00000000 00000000"
            + "4e554c4c 00000001 00000000 00000000 00000000 00000002 00000004 00000004";

    /**
     * v2_null_prog_mismatch.txt, RECV FPDU Send: an NFSv2 NULL to a v3+v4 server, MSG_ACCEPTED PROG_MISMATCH 3..4
     * (60 octets).
     */
    static final String V2_NULL_PROG_MISMATCH_REPLY = ""
            + "4e554c4c 00000001 00000040 00000000 00000000 00000000 00000000"
            + "4e554c4c 00000001 00000000 00000000 00000000 00000002 00000003 00000004";

    /** The NFSv3 (v3_null_v3_disabled.txt) and NFSv2 (v2_null_prog_mismatch.txt) NULL calls' RPC call headers. */
    static final String V3_NULL_RPC_CALL =
            "4e554c4c 00000000 00000002 000186a3 00000003 00000000 00000000 00000000 00000000 00000000";
    static final String V2_NULL_RPC_CALL =
            "4e554c4c 00000000 00000002 000186a3 00000002 00000000 00000000 00000000 00000000 00000000";
}
