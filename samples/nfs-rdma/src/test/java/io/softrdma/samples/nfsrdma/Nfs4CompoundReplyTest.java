package io.softrdma.samples.nfsrdma;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.buffer.ByteBuf;
import io.softrdma.rpc.RpcRdmaHeader;
import io.softrdma.rpc.RpcRdmaProcedure;
import io.softrdma.rpc.RpcRdmaProtocolException;
import io.softrdma.rpc.RpcReplyHeader;
import java.util.List;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/**
 * The COMPOUND reply decoder against the replies of Linux svcrdma (../shared/interop/nfs-rdma/captures), decoded
 * as the connection does: the RPC-over-RDMA header, the RPC reply header, then the results.
 */
class Nfs4CompoundReplyTest {
    private static final List<String> DATA_BIN = List.of("data.bin");

    /** Decodes a captured Send payload; checks the transport and RPC headers; hands the COMPOUND on. */
    private static void decodeCaptured(String hex, long expectedWritten, Consumer<Nfs4CompoundReply> check) {
        ByteBuf in = Captures.buffer(hex);
        try {
            RpcRdmaHeader header = RpcRdmaHeader.decode(in);
            assertThat(header.xid()).isEqualTo(Captures.XID);
            assertThat(header.procedure()).isEqualTo(RpcRdmaProcedure.RDMA_MSG);
            assertThat(header.credits()).as("svcrdma's credit grant").isEqualTo(64);
            assertThat(header.writeList()).hasSize(1);
            assertThat(header.writeList().get(0).segments()).hasSize(1);
            assertThat(header.writeList().get(0).segments().get(0).handle()).isEqualTo(Captures.STAG);
            assertThat(header.writeList().get(0).segments().get(0).offset()).isEqualTo(Captures.TO);
            assertThat(header.writeList().get(0).length()).as("octets written into the chunk")
                    .isEqualTo(expectedWritten);
            RpcReplyHeader rpc = RpcReplyHeader.decode(in);
            assertThat(rpc.xid()).isEqualTo(Captures.XID);
            assertThat(rpc.isSuccess()).isTrue();
            check.accept(Nfs4CompoundReply.decode(in, true));
            assertThat(in.isReadable()).isFalse();
        } finally {
            in.release();
        }
    }

    @Test
    void read64kWithTheDataInTheWriteChunk() {
        decodeCaptured(Captures.REPLY_READ_64K, 65536, r -> {
            assertThat(r.ok()).isTrue();
            assertThat(r.status()).isZero();
            assertThat(r.results()).extracting(Nfs4CompoundReply.OpResult::op).containsExactly(Nfs4.OP_PUTROOTFH,
                    Nfs4.OP_LOOKUP, Nfs4.OP_GETFH, Nfs4.OP_READ);
            assertThat(r.results()).allMatch(o -> o.status() == Nfs4.NFS4_OK);
            assertThat(r.fileHandle()).hasSize(20);
            assertThat(r.fileHandleHex()).isEqualTo("0100010100000000252c99f20200000000000000");
            assertThat(r.read().eof()).isFalse();
            assertThat(r.read().length()).isEqualTo(65536);
            assertThat(r.read().inlineData()).as("the data is in the chunk, not inline").isNull();
            assertThat(r.failed()).isNull();
            assertThat(r.toException("READ /data.bin", DATA_BIN)).isNull();
        });
    }

    @Test
    void shortReadAtTheEndOfTheFile() {
        decodeCaptured(Captures.REPLY_READ_EOF, 1001, r -> {
            assertThat(r.ok()).isTrue();
            assertThat(r.fileHandleHex()).isEqualTo("010001010000000013f83a6c0200000000000000");
            assertThat(r.read().eof()).isTrue();
            assertThat(r.read().length()).isEqualTo(1001);
        });
    }

    @Test
    void chunkTooSmallIsNfs4errFbig() {
        decodeCaptured(Captures.REPLY_READ_FBIG, 0, r -> {
            assertThat(r.ok()).isFalse();
            assertThat(r.status()).isEqualTo(Nfs4.NFS4ERR_FBIG);
            assertThat(r.results()).hasSize(4);
            assertThat(r.failed()).isEqualTo(new Nfs4CompoundReply.OpResult(Nfs4.OP_READ, 27));
            assertThat(r.read()).isNull();
            assertThat(r.fileHandle()).as("GETFH before the failed READ still has its result").hasSize(20);
            Nfs4Exception e = r.toException("READ /data.bin at offset 0 count 65536", DATA_BIN);
            assertThat(e.status()).isEqualTo(27);
            assertThat(e.op()).isEqualTo(Nfs4.OP_READ);
            assertThat(e.getMessage()).startsWith("READ /data.bin at offset 0 count 65536: READ failed with"
                    + " NFS4ERR_FBIG (27): ").contains("Write chunk");
        });
    }

    @Test
    void zeroStateidInTheGracePeriodIsNfs4errGrace() {
        decodeCaptured(Captures.REPLY_READ_GRACE, 0, r -> {
            assertThat(r.status()).isEqualTo(Nfs4.NFS4ERR_GRACE);
            assertThat(r.failed().op()).isEqualTo(Nfs4.OP_READ);
            Nfs4Exception e = r.toException("READ /data.bin", DATA_BIN);
            assertThat(e.getMessage()).contains("NFS4ERR_GRACE (10013)").contains("grace period")
                    .contains("--stateid ones");
        });
    }

    @Test
    void failedLookupNamesTheComponent() {
        // PUTROOTFH OK, LOOKUP "dir" OK, LOOKUP "nope" NFS4ERR_NOENT: the results stop there.
        ByteBuf in = Captures.buffer("00000002 00000000 00000003 00000018 00000000 0000000f 00000000"
                + " 0000000f 00000002");
        try {
            Nfs4CompoundReply r = Nfs4CompoundReply.decode(in, true);
            assertThat(r.status()).isEqualTo(Nfs4.NFS4ERR_NOENT);
            assertThat(r.toException("READ /dir/nope", List.of("dir", "nope")).getMessage())
                    .isEqualTo("READ /dir/nope: LOOKUP 'nope' failed with NFS4ERR_NOENT (2): no such file or"
                            + " directory");
        } finally {
            in.release();
        }
    }

    @Test
    void getattrTypeAndSize() {
        ByteBuf in = Captures.buffer("00000000 00000000 00000003 00000018 00000000 0000000a 00000000 00000004"
                + " 01020304 00000009 00000000 00000001 00000012 0000000c 00000001 0000000000100000");
        try {
            Nfs4CompoundReply r = Nfs4CompoundReply.decode(in, false);
            assertThat(r.fileHandleHex()).isEqualTo("01020304");
            assertThat(r.attributes()).isEqualTo(new Nfs4CompoundReply.Attributes(Nfs4.NF4REG, 1 << 20));
        } finally {
            in.release();
        }
    }

    @Test
    void readDataInlineWhenNoChunkWasOffered() {
        ByteBuf in = Captures.buffer("00000000 00000000 00000001 00000019 00000000 00000001 00000005"
                + " 0102030405000000");
        try {
            Nfs4CompoundReply r = Nfs4CompoundReply.decode(in, false);
            assertThat(r.read().eof()).isTrue();
            assertThat(r.read().inlineData()).containsExactly(1, 2, 3, 4, 5);
        } finally {
            in.release();
        }
    }

    @Test
    void dataInlineAlthoughAChunkWasOfferedIsAnError() {
        ByteBuf in = Captures.buffer("00000000 00000000 00000001 00000019 00000000 00000001 00000004 01020304");
        try {
            assertThatThrownBy(() -> Nfs4CompoundReply.decode(in, true)).isInstanceOf(RpcRdmaProtocolException.class)
                    .hasMessageContaining("4 octets after the last result").hasMessageContaining("inline");
        } finally {
            in.release();
        }
    }

    @Test
    void malformedRepliesAreRefused() {
        refused("00000000 00000000 00000002 00000018 00000000 0000000a 00000000 00000004 0102",
                "truncated");
        refused("00000002 00000000 00000002 0000000f 00000002 0000000a 00000000", "yet 1 results follow it");
        refused("00000000 00000000 00000001 00000003 00000000", "op 3, which this client does not send");
        refused("00000000 00000000 00000001 00000019 00000000 00000002 00000000", "not an XDR bool");
        refused("00000000 00000000 00000001 0000000a 00000000 00000081", "exceeds its maximum of 128");
        refused("00000000 00000000 00000001 00000018 00000002", "differs from that of its last operation");
    }

    private static void refused(String hex, String message) {
        ByteBuf in = Captures.buffer(hex);
        try {
            assertThatThrownBy(() -> Nfs4CompoundReply.decode(in, true)).isInstanceOf(RpcRdmaProtocolException.class)
                    .hasMessageContaining(message);
        } finally {
            in.release();
        }
    }

    @Test
    void statusNames() {
        assertThat(Nfs4Exception.describe(10013)).isEqualTo("NFS4ERR_GRACE (10013)");
        assertThat(Nfs4Exception.describe(27)).isEqualTo("NFS4ERR_FBIG (27)");
        assertThat(Nfs4Exception.describe(2)).isEqualTo("NFS4ERR_NOENT (2)");
        assertThat(Nfs4Exception.describe(0)).isEqualTo("NFS4_OK (0)");
        assertThat(Nfs4Exception.describe(12345)).isEqualTo("nfsstat4 12345 (12345)");
        assertThat(Nfs4.opName(Nfs4.OP_READ)).isEqualTo("READ");
    }
}
