package io.softrdma.samples.nfsrdma;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.softrdma.rpc.RpcRdmaProtocolException;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The XDR of the write path (RFC 7531, the XDR of RFC 7530): SETCLIENTID, SETCLIENTID_CONFIRM, OPEN with
 * OPEN_CONFIRM, WRITE with its data left out for a Read chunk (RFC 8166 §3.4.5, RFC 8267), COMMIT, CLOSE and
 * READDIR, each encoded against the layout written out word by word here, and each result decoded from a reply
 * built the same way.
 */
class Nfs4WriteXdrTest {
    private static final byte[] FH = HexFormat.of().parseHex("01000101000000007fa95be90300000000000000");
    private static final byte[] STATEID = HexFormat.of().parseHex("00000001" + "0f4f086b" + "e8d8303c" + "00000002");
    private static final byte[] VERIFIER = HexFormat.of().parseHex("41c8dd788d72666a");

    /** Words and opaques in XDR, to write the expected bytes out field by field. */
    private static final class Xdr {
        final ByteBuf b = Unpooled.buffer();

        Xdr i(int... words) {
            for (int w : words) {
                b.writeInt(w);
            }
            return this;
        }

        Xdr l(long v) {
            b.writeLong(v);
            return this;
        }

        Xdr fixed(byte[] v) {
            b.writeBytes(v);
            return this;
        }

        /** A variable-length opaque or string: length, octets, zero padding to 4. */
        Xdr o(byte[] v) {
            b.writeInt(v.length).writeBytes(v).writeZero(-v.length & 3);
            return this;
        }

        Xdr s(String v) {
            return o(v.getBytes(StandardCharsets.UTF_8));
        }

        String hex() {
            String h = ByteBufUtil.hexDump(b);
            b.release();
            return h;
        }

        ByteBuf buf() {
            return b;
        }
    }

    private static String hex(ByteBuf b) {
        try {
            return ByteBufUtil.hexDump(b);
        } finally {
            b.release();
        }
    }

    /** COMPOUND4args header: tag "", minorversion 0, the count of operations. */
    private static Xdr compound(int ops) {
        return new Xdr().i(0, 0, ops);
    }

    @Test
    void rfc7530Section16_33SetClientIdWithACallbackNfsdTakesNoPathFrom() {
        ByteBuf out = Unpooled.buffer();
        Nfs4Compound.encodeSetClientId(out, VERIFIER, "softrdma nfs-rdma x", 1);
        // SETCLIENTID4args: nfs_client_id4 {verifier4, opaque id<>}, cb_client4 {cb_program, netaddr4 {r_netid,
        // r_addr}}, callback_ident.
        assertThat(hex(out)).isEqualTo(compound(1).i(35).fixed(VERIFIER).s("softrdma nfs-rdma x").i(0x40000000)
                .s("rdma").s("0.0.0.0.0.0").i(1).hex());
        ByteBuf confirm = Unpooled.buffer();
        Nfs4Compound.encodeSetClientIdConfirm(confirm, 0x0f4f086be8d8303cL, VERIFIER);
        assertThat(hex(confirm)).isEqualTo(compound(1).i(36).l(0x0f4f086be8d8303cL).fixed(VERIFIER).hex());
    }

    @Test
    void rfc7530Section16_16OpenCreatesUncheckedWithSizeZeroAndAMode() {
        ByteBuf out = Unpooled.buffer();
        byte[] owner = "nfs-rdma open-owner 1".getBytes(StandardCharsets.UTF_8);
        Nfs4Compound.encodeOpenCreate(out, List.of("dir"), "copy.bin", 0, 0x0f4f086be8d8303cL, owner, 0644);
        // PUTROOTFH; LOOKUP dir; OPEN (seqid, share_access WRITE, share_deny NONE, open_owner4 {clientid, owner},
        // openflag4 OPEN4_CREATE / createhow4 UNCHECKED4 with fattr4 {bitmap [size, mode], attrlist: size 0,
        // mode}, open_claim4 CLAIM_NULL name); GETFH.
        assertThat(hex(out)).isEqualTo(compound(4).i(24).i(15).s("dir").i(18).i(0, 2, 0).l(0x0f4f086be8d8303cL)
                .o(owner).i(1, 0).i(2, 1 << 4, 1 << 1).i(12).l(0).i(0644).i(0).s("copy.bin").i(10).hex());
        ByteBuf confirm = Unpooled.buffer();
        Nfs4Compound.encodeOpenConfirm(confirm, FH, STATEID, 1);
        assertThat(hex(confirm)).isEqualTo(compound(2).i(22).o(FH).i(20).fixed(STATEID).i(1).hex());
        assertThatThrownBy(() -> Nfs4Compound.encodeOpenCreate(Unpooled.buffer(), List.of(), "a/b", 0, 0, owner,
                0644)).hasMessageContaining("a file name");
    }

    @Test
    void rfc8166Section3_4_5WriteLeavesItsDataOutAndSaysWhereItBelongs() {
        ByteBuf out = Unpooled.buffer();
        int position = Nfs4Compound.encodeWrite(out, FH, STATEID, 65536, Nfs4.UNSTABLE4, 3001);
        // PUTFH fh; WRITE4args {stateid4, offset4, stable_how4, opaque data<>}: the data's length word stays inline
        // and the octets (with their roundup) do not (RFC 8166 §3.4.5, §3.4.5.2): the position is the end.
        String expected = compound(2).i(22).o(FH).i(38).fixed(STATEID).l(65536).i(0).i(3001).hex();
        assertThat(position).isEqualTo(out.readableBytes()).isEqualTo(expected.length() / 2);
        assertThat(hex(out)).isEqualTo(expected);
        assertThatThrownBy(() -> Nfs4Compound.encodeWrite(Unpooled.buffer(), FH, new byte[4], 0, 0, 1))
                .hasMessageContaining("a stateid4 has 16 octets");
    }

    @Test
    void rfc7530CommitCloseAndReaddirArguments() {
        ByteBuf commit = Unpooled.buffer();
        Nfs4Compound.encodeCommit(commit, FH, 0, 0);
        assertThat(hex(commit)).isEqualTo(compound(2).i(22).o(FH).i(5).l(0).i(0).hex());
        ByteBuf close = Unpooled.buffer();
        Nfs4Compound.encodeClose(close, FH, 2, STATEID);
        assertThat(hex(close)).isEqualTo(compound(3).i(22).o(FH).i(4).i(2).fixed(STATEID).i(9).i(1, 1 << 1 | 1 << 4)
                .hex());
        ByteBuf readdir = Unpooled.buffer();
        Nfs4Compound.encodeReaddir(readdir, List.of("d"), 7, VERIFIER, 3584, 3584);
        assertThat(hex(readdir)).isEqualTo(compound(3).i(24).i(15).s("d").i(26).l(7).fixed(VERIFIER).i(3584, 3584)
                .i(1, 1 << 1 | 1 << 4).hex());
    }

    /** COMPOUND4res header: status, tag "", the count of results. */
    private static Xdr reply(int status, int results) {
        return new Xdr().i(status).s("").i(results);
    }

    private static Nfs4CompoundReply decode(Xdr x) {
        ByteBuf b = x.buf();
        try {
            return Nfs4CompoundReply.decode(b, false);
        } finally {
            b.release();
        }
    }

    @Test
    void setClientIdAndOpenResults() {
        Nfs4CompoundReply s = decode(reply(0, 1).i(35, 0).l(0x0f4f086be8d8303cL).fixed(VERIFIER));
        assertThat(s.clientId().clientId()).isEqualTo(0x0f4f086be8d8303cL);
        assertThat(s.clientId().confirm()).isEqualTo(VERIFIER);
        // OPEN4resok: stateid, change_info4 {atomic, before, after}, rflags, attrset, open_delegation4 NONE.
        Nfs4CompoundReply o = decode(reply(0, 3).i(24, 0).i(18, 0).fixed(STATEID).i(1).l(5).l(6).i(2 | 4)
                .i(2, 1 << 4, 1 << 1).i(0).i(10, 0).o(FH));
        assertThat(o.open().stateid()).isEqualTo(STATEID);
        assertThat(o.open().needsConfirm()).isTrue();
        assertThat(o.open().delegation()).isEqualTo(Nfs4.OPEN_DELEGATE_NONE);
        assertThat(o.fileHandle()).isEqualTo(FH);
        // A write delegation: stateid, recall, nfs_space_limit4 (by size), nfsace4.
        Nfs4CompoundReply w = decode(reply(0, 1).i(18, 0).fixed(STATEID).i(1).l(5).l(6).i(0).i(0).i(2)
                .fixed(STATEID).i(0).i(1).l(1 << 20).i(0, 0, 0).s("OWNER@"));
        assertThat(w.open().delegation()).isEqualTo(Nfs4.OPEN_DELEGATE_WRITE);
        assertThat(w.open().needsConfirm()).isFalse();
        Nfs4CompoundReply c = decode(reply(0, 2).i(22, 0).i(20, 0).fixed(STATEID));
        assertThat(c.stateid()).isEqualTo(STATEID);
    }

    @Test
    void writeCommitCloseResults() {
        Nfs4CompoundReply w = decode(reply(0, 2).i(22, 0).i(38, 0).i(65536, Nfs4.UNSTABLE4).fixed(VERIFIER));
        assertThat(w.write()).isNotNull();
        assertThat(w.write().count()).isEqualTo(65536);
        assertThat(w.write().committed()).isEqualTo(Nfs4.UNSTABLE4);
        assertThat(w.write().verifier()).isEqualTo(VERIFIER);
        Nfs4CompoundReply c = decode(reply(0, 2).i(22, 0).i(5, 0).fixed(VERIFIER));
        assertThat(c.commitVerifier()).isEqualTo(VERIFIER);
        // CLOSE's stateid, then GETATTR {type, size}.
        Nfs4CompoundReply close = decode(reply(0, 3).i(22, 0).i(4, 0).fixed(STATEID).i(9, 0).i(1, 1 << 1 | 1 << 4)
                .i(12).i(Nfs4.NF4REG).l(16 << 20));
        assertThat(close.stateid()).isEqualTo(STATEID);
        assertThat(close.attributes()).isEqualTo(new Nfs4CompoundReply.Attributes(Nfs4.NF4REG, 16 << 20));
        // A failed WRITE: the results stop there, and the exception names it.
        Nfs4CompoundReply rofs = decode(reply(Nfs4.NFS4ERR_ROFS, 2).i(22, 0).i(38, Nfs4.NFS4ERR_ROFS));
        assertThat(rofs.toException("WRITE /a", List.of())).hasMessage("WRITE /a: WRITE failed with NFS4ERR_ROFS"
                + " (30): the export is read-only");
    }

    @Test
    void readdirResultsAndATruncatedOne() {
        Nfs4CompoundReply d = decode(reply(0, 3).i(24, 0).i(15, 0).i(26, 0).fixed(VERIFIER)
                .i(1).l(3).s("data.bin").i(1, 1 << 1 | 1 << 4).i(12).i(Nfs4.NF4REG).l(1 << 20)
                .i(1).l(4).s("sub").i(1, 1 << 1 | 1 << 4).i(12).i(Nfs4.NF4DIR).l(60)
                .i(0).i(1));
        assertThat(d.directory().eof()).isTrue();
        assertThat(d.directory().cookieVerifier()).isEqualTo(VERIFIER);
        assertThat(d.directory().entries()).extracting(Nfs4CompoundReply.Entry::name).containsExactly("data.bin",
                "sub");
        assertThat(d.directory().entries().get(0).cookie()).isEqualTo(3);
        assertThat(d.directory().entries().get(1).attributes()).isEqualTo(new Nfs4CompoundReply.Attributes(
                Nfs4.NF4DIR, 60));
        assertThatThrownBy(() -> decode(reply(0, 1).i(26, 0).fixed(VERIFIER).i(1).l(3).s("data.bin")))
                .isInstanceOf(RpcRdmaProtocolException.class).hasMessageContaining("truncated");
        assertThatThrownBy(() -> decode(reply(0, 1).i(38, 0).i(1, 0).i(7)))
                .isInstanceOf(RpcRdmaProtocolException.class).hasMessageContaining("WRITE verifier");
    }
}
