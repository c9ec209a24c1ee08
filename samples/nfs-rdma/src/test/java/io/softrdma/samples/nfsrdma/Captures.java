package io.softrdma.samples.nfsrdma;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.util.HexFormat;

/**
 * Bytes of the exchanges with the Linux kernel NFS server (svcrdma on siw, Debian 12 kernel 6.1) recorded in
 * {@code ../shared/interop/nfs-rdma/captures/}: the payload of each RDMA Send (after the 18-octet DDP/RDMAP header,
 * without the MPA CRC), that is the RPC-over-RDMA v1 header followed by the ONC RPC message.
 *
 * <p>The probe that made them used XID 0x52454144 ("READ"), an AUTH_SYS credential with stamp 0x5157ad00, machine
 * name "siwhost", uid 0, gid 0, and one Write chunk of one segment: STag 0x5a5a0101, TO 0x7f0012340000.
 */
final class Captures {
    static final int XID = 0x52454144;
    static final int STAMP = 0x5157ad00;
    static final String MACHINE = "siwhost";
    static final int STAG = 0x5a5a0101;
    static final long TO = 0x00007f0012340000L;

    /** The 52-octet RPC-over-RDMA header of the READ calls: RDMA_MSG, 32 credits asked, one Write chunk. */
    static final String CALL_RDMA_HEADER_64K = "52454144 00000001 00000020 00000000 00000000"
            + " 00000001 00000001 5a5a0101 00010000 00007f0012340000 00000000 00000000";

    /**
     * {@code v4_read64k_wchunk_inv1.txt}, call: the 136-octet RPC CALL. xid, CALL, rpcvers 2, NFS 100003 v4 proc 1;
     * AUTH_SYS {stamp, "siwhost", 0, 0, no gids}; verf AUTH_NONE; tag "", minorversion 0, 4 ops: PUTROOTFH, LOOKUP
     * "data.bin", GETFH, READ(all-ones stateid, offset 0, count 65536).
     */
    static final String CALL_READ_64K = """
            52 45 41 44 00 00 00 00 00 00 00 02 00 01 86 a3
            00 00 00 04 00 00 00 01 00 00 00 01 00 00 00 1c
            51 57 ad 00 00 00 00 07 73 69 77 68 6f 73 74 00
            00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00
            00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 04
            00 00 00 18 00 00 00 0f 00 00 00 08 64 61 74 61
            2e 62 69 6e 00 00 00 0a 00 00 00 19 ff ff ff ff
            ff ff ff ff ff ff ff ff ff ff ff ff 00 00 00 00
            00 00 00 00 00 01 00 00
            """;

    /** {@code v4_read_eof_short1001.txt}, call: as {@link #CALL_READ_64K} at offset 1047575 (0xffc17). */
    static final String CALL_READ_EOF = "524541440000000000000002000186a30000000400000001000000010000001c5157ad00"
            + "00000007736977686f737400000000000000000000000000000000000000000000000000000000000000000400000018000000"
            + "0f00000008646174612e62696e0000000a00000019ffffffffffffffffffffffffffffffff00000000000ffc1700010000";

    /** {@code v4_read_zerostateid_in_grace_NFS4ERR_GRACE.txt}, call 2: the zero stateid, offset 65536, XID+1. */
    static final String CALL_READ_ZERO_STATEID_2 = "524541450000000000000002000186a300000004000000010000"
            + "00010000001c5157ad0000000007736977686f7374000000"
            + "000000000000000000000000000000000000000000000000000000000004000000180000000f00000008646174612e62696e"
            + "0000000a0000001900000000000000000000000000000000000000000001000000010000";

    /**
     * {@code v4_read64k_wchunk_inv1.txt}, reply (a Send with Invalidate of STag 0x5a5a0101; the plain Send of
     * {@code v4_read64k_wchunk_inv0.txt} carries the same 152 octets): credit grant 64, the Write chunk echoed with
     * 65536 octets written; MSG_ACCEPTED SUCCESS; NFS4_OK, 4 results: PUTROOTFH, LOOKUP, GETFH (20-octet fh), READ
     * eof 0, data length 65536 (the data itself in the chunk).
     */
    static final String REPLY_READ_64K = "524541440000000100000040000000000000000000000001000000015a5a0101000100"
            + "0000007f0012340000000000000000000052454144000000010000000000000000000000000000000000000000000000000000"
            + "000400000018000000000000000f000000000000000a00000000000000140100010100000000252c99f202000000000000000000"
            + "0019000000000000000000010000";

    /** {@code v4_read_eof_short1001.txt}, reply: 1001 octets written, READ eof 1, length 1001. */
    static final String REPLY_READ_EOF = "524541440000000100000040000000000000000000000001000000015a5a0101000003e9"
            + "00007f0012340000000000000000000052454144000000010000000000000000000000000000000000000000000000000000"
            + "000400000018000000000000000f000000000000000a0000000000000014010001010000000013f83a6c02000000000000"
            + "00000000190000000000000001000003e9";

    /**
     * {@code v4_read_chunk_too_small.txt}, reply (from its annotated lines): a 32 KiB segment for a 64 KiB READ;
     * nothing written (echo length 0), COMPOUND and READ status NFS4ERR_FBIG (27).
     */
    static final String REPLY_READ_FBIG = "52454144 00000001 00000040 00000000 00000000 00000001 00000001 5a5a0101"
            + " 00000000 00007f0012340000 00000000 00000000"
            + " 524541440000000100000000000000000000000000000000"
            + " 0000001b0000000000000004"
            + " 0000001800000000"
            + " 0000000f00000000"
            + " 0000000a0000000000000014010001010000000013f83a6c0200000000000000"
            + " 000000190000001b";

    /** {@code v4_read_zerostateid_in_grace_NFS4ERR_GRACE.txt}, reply 1: READ with the zero stateid, NFS4ERR_GRACE. */
    static final String REPLY_READ_GRACE = "524541440000000100000040000000000000000000000001000000015a5a01010000000000"
            + "007f001234000000000000000000005245414400000001000000000000000000000000000000000000271d0000000000000004"
            + "00000018000000000000000f000000000000000a0000000000000014010001010000000013f83a6c02000000000000000000"
            + "00190000271d";

    private Captures() {
    }

    /** The octets of a hex string that may hold spaces and newlines. */
    static byte[] bytes(String hex) {
        return HexFormat.of().parseHex(hex.replaceAll("\\s+", ""));
    }

    /** A heap buffer of those octets (release it). */
    static ByteBuf buffer(String hex) {
        return Unpooled.wrappedBuffer(bytes(hex));
    }
}
