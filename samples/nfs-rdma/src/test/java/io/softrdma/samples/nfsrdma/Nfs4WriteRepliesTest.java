package io.softrdma.samples.nfsrdma;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.softrdma.rpc.RpcRdmaHeader;
import io.softrdma.rpc.RpcRdmaProcedure;
import io.softrdma.rpc.RpcReplyHeader;
import java.util.HexFormat;
import java.util.function.Consumer;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;

/**
 * The write path's reply decoding against what Linux 6.1 svcrdma sent on siw: whole FPDUs (MPA length, DDP/RDMAP
 * header, ULPDU, CRC) from a host capture of {@code nfs-rdma --write} of 16 MiB with MPA CRC on (tshark, 2026-11-26,
 * the interop VM's guest command): the SETCLIENTID, OPEN and OPEN_CONFIRM replies, svcrdma's first RDMA Read
 * Request for a WRITE's Read chunk, and that WRITE's reply, a Send with Invalidate of the chunk's STag.
 */
class Nfs4WriteRepliesTest {
    /** Frame 9: the SETCLIENTID reply (Send): clientid and confirm verifier. */
    static final String SETCLIENTID_REPLY = "006a414300000000000000000000000100000000f05acb49000000010000004000000000000000000000000000000000"
            + "f05acb49000000010000000000000000000000000000000000000000000000000000000100000023000000003d51086b"
            + "c2bcd7735651086b433284651bceaa8b";
    /** Frame 15: the reply to PUTROOTFH; OPEN; GETFH (Send): rflags 6 (CONFIRM, POSIX locks), no delegation. */
    static final String OPEN_REPLY = "00ba414300000000000000000000000300000000f05acb4b000000010000004000000000000000000000000000000000"
            + "f05acb4b0000000100000000000000000000000000000000000000000000000000000003000000180000000000000012"
            + "00000000000000013d51086bc2bcd77301000000000000016b0851510af79e006b0851560ec82e000000000600000002"
            + "0000001000000002000000000000000a000000000000001401000101000000004994bd8e060000000000000017cc8760";
    /** Frame 17: the reply to PUTFH; OPEN_CONFIRM (Send): the stateid with seqid 2. */
    static final String OPEN_CONFIRM_REPLY = "0072414300000000000000000000000400000000f05acb4c000000010000004000000000000000000000000000000000"
            + "f05acb4c0000000100000000000000000000000000000000000000000000000000000002000000160000000000000014"
            + "00000000000000023d51086bc2bcd77301000000416bd5dd";
    /** Frame 20: svcrdma's first RDMA Read Request: 65536 octets from the Read chunk's STag at TO 0. */
    static final String READ_REQUEST = "002e4141000000000000000100000001000000005de8d301ff12e5383fdd400000010000c30f197b0000000000000000"
            + "d231d68b";
    /** Frame 30: the reply to that WRITE: a Send with Invalidate of the Read chunk's STag; 65536 octets, UNSTABLE4. */
    static final String WRITE_REPLY = "00724144c30f197b000000000000000500000000f05acb4e000000010000004000000000000000000000000000000000"
            + "f05acb4e0000000100000000000000000000000000000000000000000000000000000002000000160000000000000026"
            + "000000000001000000000000c4021fca8794bb7a14746448";

    /** The untagged DDP/RDMAP header (RFC 5041 §4.3, RFC 5040 §4.2): control, Invalidate STag, QN, MSN, MO. */
    private static final int UNTAGGED_HEADER = 18;

    /** Checks the FPDU's length and CRC32c (RFC 5044 §4.4, sent least significant octet first) and returns it. */
    private static ByteBuf fpdu(String hex) {
        byte[] b = HexFormat.of().parseHex(hex);
        int ulpdu = (b[0] & 0xff) << 8 | b[1] & 0xff;
        int pad = -(2 + ulpdu) & 3;
        assertThat(b).as("MPA length, PAD and CRC").hasSize(2 + ulpdu + pad + 4);
        CRC32C crc = new CRC32C();
        crc.update(b, 0, b.length - 4);
        ByteBuf f = Unpooled.wrappedBuffer(b);
        assertThat(Integer.toUnsignedLong(f.getIntLE(b.length - 4))).as("CRC32c").isEqualTo(crc.getValue());
        return f.writerIndex(2 + ulpdu);
    }

    /** A Send's ULPDU decoded to its COMPOUND reply; {@code rdmapControl} 0x43 is Send, 0x44 Send with Invalidate. */
    private static void reply(String hex, int rdmapControl, Consumer<Nfs4CompoundReply> check) {
        ByteBuf f = fpdu(hex);
        try {
            assertThat((int) f.getUnsignedByte(2)).as("DDP control: untagged, last, version 1").isEqualTo(0x41);
            assertThat((int) f.getUnsignedByte(3)).as("RDMAP control").isEqualTo(rdmapControl);
            ByteBuf in = f.skipBytes(2 + UNTAGGED_HEADER);
            RpcRdmaHeader header = RpcRdmaHeader.decode(in);
            assertThat(header.procedure()).isEqualTo(RpcRdmaProcedure.RDMA_MSG);
            assertThat(header.credits()).as("svcrdma's grant").isEqualTo(64);
            RpcReplyHeader rpc = RpcReplyHeader.decode(in);
            assertThat(rpc.xid()).isEqualTo(header.xid());
            check.accept(Nfs4CompoundReply.decode(in, false));
        } finally {
            f.release();
        }
    }

    @Test
    void rfc7530Section16_33SetClientIdReply() {
        reply(SETCLIENTID_REPLY, 0x43, r -> {
            assertThat(r.ok()).isTrue();
            assertThat(r.clientId().clientId()).isEqualTo(0x3d51086bc2bcd773L);
            assertThat(HexFormat.of().formatHex(r.clientId().confirm())).isEqualTo("5651086b43328465");
        });
    }

    @Test
    void rfc7530Section16_16OpenAsksForConfirmationAndGrantsNoDelegation() {
        reply(OPEN_REPLY, 0x43, r -> {
            assertThat(r.results()).extracting(Nfs4CompoundReply.OpResult::op).containsExactly(Nfs4.OP_PUTROOTFH,
                    Nfs4.OP_OPEN, Nfs4.OP_GETFH);
            // seqid 1 and the other 12 octets: the clientid and a counter.
            assertThat(HexFormat.of().formatHex(r.open().stateid())).isEqualTo("000000013d51086bc2bcd77301000000");
            assertThat(r.open().rflags()).as("OPEN4_RESULT_CONFIRM | OPEN4_RESULT_LOCKTYPE_POSIX").isEqualTo(6);
            assertThat(r.open().needsConfirm()).isTrue();
            assertThat(r.open().delegation()).isEqualTo(Nfs4.OPEN_DELEGATE_NONE);
            assertThat(r.fileHandleHex()).isEqualTo("01000101000000004994bd8e0600000000000000");
        });
        reply(OPEN_CONFIRM_REPLY, 0x43, r -> assertThat(HexFormat.of().formatHex(r.stateid()))
                .as("the stateid, seqid 2").isEqualTo("000000023d51086bc2bcd77301000000"));
    }

    @Test
    void rfc8166Section3_4_5SvcrdmaReadsTheChunkThenInvalidatesItsStagWithTheReply() {
        ByteBuf request = fpdu(READ_REQUEST);
        int chunkStag;
        try {
            // RFC 5040 §4.4 Read Request on queue 1: sink STag and TO, size, source STag and TO.
            assertThat(request.getUnsignedByte(3) & 0x0f).as("RDMAP opcode: Read Request").isEqualTo(1);
            assertThat(request.getInt(2 + 6)).as("QN").isEqualTo(1);
            assertThat(request.getInt(2 + UNTAGGED_HEADER + 12)).as("RDMA Read message size").isEqualTo(65536);
            chunkStag = request.getInt(2 + UNTAGGED_HEADER + 16);
            assertThat(request.getLong(2 + UNTAGGED_HEADER + 20)).as("source TO: the chunk's start").isZero();
        } finally {
            request.release();
        }
        ByteBuf f = fpdu(WRITE_REPLY);
        try {
            assertThat(f.getInt(4)).as("the Send with Invalidate names the chunk's STag (RFC 8797 §4.1)")
                    .isEqualTo(chunkStag);
        } finally {
            f.release();
        }
        reply(WRITE_REPLY, 0x44, r -> {
            assertThat(r.write().count()).isEqualTo(65536);
            assertThat(r.write().committed()).isEqualTo(Nfs4.UNSTABLE4);
            assertThat(HexFormat.of().formatHex(r.write().verifier())).isEqualTo("c4021fca8794bb7a");
        });
    }
}
