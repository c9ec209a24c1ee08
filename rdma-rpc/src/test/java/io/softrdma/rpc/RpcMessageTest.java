package io.softrdma.rpc;

import static io.softrdma.rpc.NfsRdmaCaptures.NULL_HEADER_LENGTH;
import static io.softrdma.rpc.NfsRdmaCaptures.NULL_XID;
import static io.softrdma.rpc.NfsRdmaCaptures.READ_HEADER_LENGTH;
import static io.softrdma.rpc.NfsRdmaCaptures.READ_XID;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.softrdma.testing.Hex;
import java.util.Arrays;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/** ONC RPC call and reply headers and credentials (RFC 5531) against what Linux nfsd sent and accepted. */
class RpcMessageTest {
    private static final int NFS = 100003;
    private static final int NULL_CALL_LENGTH = 40;
    private static final int READ_CALL_HEADER_LENGTH = 68;

    static String encoded(Consumer<ByteBuf> writer) {
        ByteBuf out = Unpooled.buffer();
        try {
            writer.accept(out);
            return ByteBufUtil.hexDump(out);
        } finally {
            out.release();
        }
    }

    static String hex(String words) {
        return Hex.hex(Hex.bytes(words));
    }

    /** The octets of a capture from {@code from} to {@code to}, as hex. */
    static String slice(String capture, int from, int to) {
        return Hex.hex(Arrays.copyOfRange(Hex.bytes(capture), from, to));
    }

    /** A capture's buffer with the reader index past its RPC-over-RDMA header. */
    static ByteBuf rpcOf(String capture, int headerLength) {
        return Hex.buf(capture).skipBytes(headerLength);
    }

    static ByteBuf words(int... w) {
        ByteBuf b = Unpooled.buffer(4 * w.length);
        for (int x : w) {
            b.writeInt(x);
        }
        return b;
    }

    static RpcAuth siwhost() {
        return RpcAuth.sys(0x5157ad00, "siwhost", 0, 0);
    }

    // ---- calls ----------------------------------------------------------------------------------------------------

    @Test
    void linuxAcceptedTheNfsV4NullCallWithAuthNone() {
        // v4_null_pd1k.txt, the call after its 28-octet RPC-over-RDMA header
        ByteBuf in = rpcOf(NfsRdmaCaptures.V4_NULL_CALL, NULL_HEADER_LENGTH);
        RpcCallHeader c = RpcCallHeader.decode(in);
        assertThat(c.xid()).isEqualTo(NULL_XID);
        assertThat(c.rpcVersion()).isEqualTo(RpcCallHeader.RPC_VERSION).isEqualTo(2);
        assertThat(c.program()).isEqualTo(NFS);
        assertThat(c.version()).isEqualTo(4);
        assertThat(c.procedure()).isZero();
        assertThat(c.credential()).isEqualTo(RpcAuth.none());
        assertThat(c.credential().flavor()).isEqualTo(RpcAuth.AUTH_NONE);
        assertThat(c.credential().body()).isEmpty();
        assertThat(c.verifier()).isEqualTo(RpcAuth.none());
        assertThat(in.readableBytes()).as("NULL has no arguments").isZero();

        RpcCallHeader built = RpcCallHeader.of(NULL_XID, NFS, 4, 0, RpcAuth.none());
        assertThat(built).isEqualTo(c);
        assertThat(built.encodedLength()).isEqualTo(NULL_CALL_LENGTH);
        assertThat(encoded(built::encode)).isEqualTo(slice(NfsRdmaCaptures.V4_NULL_CALL, NULL_HEADER_LENGTH,
                NULL_HEADER_LENGTH + NULL_CALL_LENGTH));
    }

    @ParameterizedTest(name = "NFSv{0} NULL")
    @ValueSource(ints = {2, 3})
    void theNfsV3AndV2NullCallsDifferOnlyInTheVersion(int version) {
        // v3_null_v3_disabled.txt and v2_null_prog_mismatch.txt, the calls
        String capture = version == 3 ? NfsRdmaCaptures.V3_NULL_RPC_CALL : NfsRdmaCaptures.V2_NULL_RPC_CALL;
        assertThat(encoded(RpcCallHeader.of(NULL_XID, NFS, version, 0, RpcAuth.none())::encode))
                .isEqualTo(hex(capture));
        RpcCallHeader c = RpcCallHeader.decode(Hex.buf(capture));
        assertThat(c.version()).isEqualTo(version);
        assertThat(c.program()).isEqualTo(NFS);
    }

    @Test
    void rfc5531AppendixAAuthSysCallHeaderEncodesExactlyAsTheReadCapture() {
        // v4_read64k_wchunk_inv1.txt, the call after its 52-octet RPC-over-RDMA header
        ByteBuf in = rpcOf(NfsRdmaCaptures.V4_READ64K_CALL, READ_HEADER_LENGTH);
        RpcCallHeader c = RpcCallHeader.decode(in);
        assertThat(c.xid()).isEqualTo(READ_XID);
        assertThat(c.rpcVersion()).isEqualTo(2);
        assertThat(c.program()).isEqualTo(NFS);
        assertThat(c.version()).isEqualTo(4);
        assertThat(c.procedure()).as("COMPOUND").isEqualTo(1);
        assertThat(c.credential().flavor()).isEqualTo(RpcAuth.AUTH_SYS);
        assertThat(Hex.hex(c.credential().body()))
                .isEqualTo(hex("5157ad00 00000007 73697768 6f737400 00000000 00000000 00000000"));
        assertThat(c.credential()).isEqualTo(siwhost());
        assertThat(c.verifier()).isEqualTo(RpcAuth.none());
        assertThat(in.readerIndex()).as("left on the COMPOUND arguments")
                .isEqualTo(READ_HEADER_LENGTH + READ_CALL_HEADER_LENGTH);
        assertThat(in.readableBytes()).isEqualTo(68);

        RpcCallHeader built = RpcCallHeader.of(READ_XID, NFS, 4, 1, RpcAuth.sys(0x5157ad00, "siwhost", 0, 0));
        assertThat(built).isEqualTo(c);
        assertThat(built.credential().encodedLength()).isEqualTo(36);
        assertThat(built.encodedLength()).isEqualTo(READ_CALL_HEADER_LENGTH);
        assertThat(encoded(built::encode)).isEqualTo(slice(NfsRdmaCaptures.V4_READ64K_CALL, READ_HEADER_LENGTH,
                READ_HEADER_LENGTH + READ_CALL_HEADER_LENGTH));
    }

    @Test
    void rfc5531Section9ACallHeaderWithAnotherRpcVersionIsKeptSoItCanBeDenied() {
        RpcCallHeader c = RpcCallHeader.decode(words(5, 0, 3, NFS, 4, 0, 0, 0, 0, 0));
        assertThat(c.rpcVersion()).isEqualTo(3);
        assertThat(encoded(c::encode)).isEqualTo(hex("00000005 00000000 00000003 000186a3 00000004 00000000"
                + "00000000 00000000 00000000 00000000"));
    }

    @Test
    void rfc5531Section9ACallDecoderRejectsAReply() {
        // v4_null_pd1k.txt, the reply
        assertThatThrownBy(() -> RpcCallHeader.decode(rpcOf(NfsRdmaCaptures.V4_NULL_REPLY, NULL_HEADER_LENGTH)))
                .isInstanceOf(RpcRdmaProtocolException.class)
                .hasMessage("msg_type 1 where a CALL (0) belongs (RFC 5531 §9)");
    }

    @Test
    void rfc5531Section9ATruncatedCallHeaderIsRejectedAtEveryLength() {
        for (String rpc : new String[] {slice(NfsRdmaCaptures.V4_NULL_CALL, NULL_HEADER_LENGTH, 68),
                slice(NfsRdmaCaptures.V4_READ64K_CALL, READ_HEADER_LENGTH, READ_HEADER_LENGTH + 68)}) {
            byte[] all = Hex.bytes(rpc);
            RpcCallHeader.decode(Unpooled.wrappedBuffer(all));
            for (int n = 0; n < all.length; n++) {
                ByteBuf cut = Unpooled.wrappedBuffer(all, 0, n);
                int len = n;
                assertThatThrownBy(() -> RpcCallHeader.decode(cut)).as("%d of %d octets", len, all.length)
                        .isInstanceOf(RpcRdmaProtocolException.class).hasMessageStartingWith("truncated: ");
            }
        }
    }

    @Test
    void aCallHeaderNeedsACredentialAndAVerifier() {
        assertThatThrownBy(() -> new RpcCallHeader(1, 2, 3, 4, 5, null, RpcAuth.none()))
                .isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> new RpcCallHeader(1, 2, 3, 4, 5, RpcAuth.none(), null))
                .isInstanceOf(NullPointerException.class);
    }

    // ---- replies --------------------------------------------------------------------------------------------------

    @Test
    void linuxNullReplyIsMsgAcceptedSuccessWithAnAuthNoneVerifier() {
        // v4_null_pd1k.txt, the reply after its 28-octet RPC-over-RDMA header
        ByteBuf in = rpcOf(NfsRdmaCaptures.V4_NULL_REPLY, NULL_HEADER_LENGTH);
        RpcReplyHeader r = RpcReplyHeader.decode(in);
        assertThat(r.xid()).isEqualTo(NULL_XID);
        assertThat(r.accepted()).isTrue();
        assertThat(r.verifier()).isEqualTo(RpcAuth.none());
        assertThat(r.acceptStat()).isEqualTo(RpcReplyHeader.AcceptStat.SUCCESS);
        assertThat(r.isSuccess()).isTrue();
        assertThat(r.toException(NFS, 4, 0)).isNull();
        assertThat(in.readableBytes()).as("NULL has no results").isZero();

        RpcReplyHeader built = RpcReplyHeader.accepted(NULL_XID, RpcReplyHeader.AcceptStat.SUCCESS);
        assertThat(built).isEqualTo(r);
        assertThat(built.encodedLength()).isEqualTo(24);
        assertThat(encoded(built::encode)).isEqualTo(slice(NfsRdmaCaptures.V4_NULL_REPLY, NULL_HEADER_LENGTH, 52));
    }

    static Stream<Arguments> readReplies() {
        return Stream.of(
                // v4_read64k_wchunk_inv1.txt: NFS4_OK, READ eof 0, data length 65536 (data in the Write chunk)
                Arguments.of("v4_read64k_wchunk_inv1", NfsRdmaCaptures.V4_READ64K_REPLY, 0, 76, 0x00010000),
                // v4_read_eof_short1001.txt: NFS4_OK, eof 1, data length 1001
                Arguments.of("v4_read_eof_short1001", NfsRdmaCaptures.V4_READ_EOF_SHORT_REPLY, 0, 76, 1001),
                // v4_read_zerostateid_in_grace_NFS4ERR_GRACE.txt: COMPOUND and READ status 10013
                Arguments.of("NFS4ERR_GRACE", NfsRdmaCaptures.V4_READ_GRACE_REPLY, 10013, 68, 10013),
                // v4_read_chunk_too_small.txt: COMPOUND and READ status 27
                Arguments.of("NFS4ERR_FBIG", NfsRdmaCaptures.V4_READ_FBIG_REPLY, 27, 68, 27));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("readReplies")
    void nfsErrorsAreInTheResultsOfAnRpcSuccess(String name, String capture, int compoundStatus, int resultOctets,
            int lastWord) {
        ByteBuf in = rpcOf(capture, READ_HEADER_LENGTH);
        RpcReplyHeader r = RpcReplyHeader.decode(in);
        assertThat(r.xid()).isEqualTo(READ_XID);
        assertThat(r.accepted()).isTrue();
        assertThat(r.verifier()).isEqualTo(RpcAuth.none());
        assertThat(r.isSuccess()).isTrue();
        assertThat(r.toException(NFS, 4, 1)).isNull();
        assertThat(in.readerIndex()).as("left on the results").isEqualTo(READ_HEADER_LENGTH + 24);
        assertThat(in.readableBytes()).isEqualTo(resultOctets);
        assertThat(in.getInt(in.readerIndex())).as("COMPOUND status").isEqualTo(compoundStatus);
        assertThat(in.getInt(in.writerIndex() - 4)).isEqualTo(lastWord);
        assertThat(encoded(RpcReplyHeader.accepted(READ_XID, RpcReplyHeader.AcceptStat.SUCCESS)::encode))
                .isEqualTo(slice(capture, READ_HEADER_LENGTH, READ_HEADER_LENGTH + 24));
    }

    static Stream<Arguments> programMismatches() {
        return Stream.of(
                // v3_null_v3_disabled.txt: NFSv3 NULL to a v4-only server
                Arguments.of("v3_null_v3_disabled", NfsRdmaCaptures.V3_NULL_PROG_MISMATCH_REPLY, 3, 4, 4),
                // v2_null_prog_mismatch.txt: NFSv2 NULL to a v3+v4 server
                Arguments.of("v2_null_prog_mismatch", NfsRdmaCaptures.V2_NULL_PROG_MISMATCH_REPLY, 2, 3, 4));
    }

    @ParameterizedTest(name = "{0}: {3}..{4}")
    @MethodSource("programMismatches")
    void rfc5531Section9ProgMismatchCarriesTheVersionsAndBecomesRpcProgramMismatchException(String name,
            String capture, int calledVersion, int low, int high) {
        ByteBuf in = rpcOf(capture, NULL_HEADER_LENGTH);
        RpcReplyHeader r = RpcReplyHeader.decode(in);
        assertThat(r.xid()).isEqualTo(NULL_XID);
        assertThat(r.accepted()).isTrue();
        assertThat(r.verifier()).isEqualTo(RpcAuth.none());
        assertThat(r.acceptStat()).isEqualTo(RpcReplyHeader.AcceptStat.PROG_MISMATCH);
        assertThat(r.low()).isEqualTo(low);
        assertThat(r.high()).isEqualTo(high);
        assertThat(r.isSuccess()).isFalse();
        assertThat(in.readableBytes()).isZero();

        RpcException e = r.toException(NFS, calledVersion, 0);
        assertThat(e).isInstanceOf(RpcProgramMismatchException.class).isInstanceOf(RpcAcceptedException.class);
        RpcProgramMismatchException pm = (RpcProgramMismatchException) e;
        assertThat(pm.low()).isEqualTo(low);
        assertThat(pm.high()).isEqualTo(high);
        assertThat(pm.stat()).isEqualTo(RpcReplyHeader.AcceptStat.PROG_MISMATCH);
        assertThat(pm).hasMessageContaining("program 100003 version " + calledVersion + " procedure 0")
                .hasMessageContaining("versions " + low + " to " + high);

        RpcReplyHeader built = RpcReplyHeader.programMismatch(NULL_XID, low, high);
        assertThat(built).isEqualTo(r);
        assertThat(built.encodedLength()).isEqualTo(32);
        assertThat(encoded(built::encode)).isEqualTo(slice(capture, NULL_HEADER_LENGTH, 60));
    }

    @Test
    void rfc5531Section9RpcMismatchIsDeniedWithTheRpcVersions() {
        RpcReplyHeader r = RpcReplyHeader.rpcMismatch(7);
        String hex = encoded(r::encode);
        assertThat(hex).isEqualTo(hex("00000007 00000001 00000001 00000000 00000002 00000002"));
        assertThat(r.encodedLength()).isEqualTo(24);
        RpcReplyHeader back = RpcReplyHeader.decode(Hex.buf(hex));
        assertThat(back).isEqualTo(r);
        assertThat(back.accepted()).isFalse();
        assertThat(back.isSuccess()).isFalse();
        assertThat(back.rejectStat()).isEqualTo(RpcReplyHeader.RPC_MISMATCH);
        RpcException e = back.toException(NFS, 4, 0);
        assertThat(e).isInstanceOf(RpcDeniedException.class);
        RpcDeniedException d = (RpcDeniedException) e;
        assertThat(d.rejectStat()).isEqualTo(RpcReplyHeader.RPC_MISMATCH);
        assertThat(d.low()).isEqualTo(2);
        assertThat(d.high()).isEqualTo(2);
        assertThat(d).hasMessageContaining("RPC version mismatch").hasMessageContaining("2 to 2");
    }

    @Test
    void rfc5531Section9AuthErrorIsDeniedWithTheAuthStat() {
        RpcReplyHeader r = RpcReplyHeader.authError(8, 5); // AUTH_TOOWEAK
        String hex = encoded(r::encode);
        assertThat(hex).isEqualTo(hex("00000008 00000001 00000001 00000001 00000005"));
        assertThat(r.encodedLength()).isEqualTo(20);
        RpcReplyHeader back = RpcReplyHeader.decode(Hex.buf(hex));
        assertThat(back).isEqualTo(r);
        RpcDeniedException d = (RpcDeniedException) back.toException(NFS, 4, 1);
        assertThat(d.rejectStat()).isEqualTo(RpcReplyHeader.AUTH_ERROR);
        assertThat(d.authStat()).isEqualTo(5);
        assertThat(d).hasMessageContaining("auth_stat 5");
    }

    @ParameterizedTest
    @EnumSource(value = RpcReplyHeader.AcceptStat.class, names = {"PROG_UNAVAIL", "PROC_UNAVAIL", "GARBAGE_ARGS",
            "SYSTEM_ERR"})
    void rfc5531Section9OtherAcceptStatsBecomeRpcAcceptedException(RpcReplyHeader.AcceptStat stat) {
        RpcReplyHeader r = RpcReplyHeader.accepted(3, stat);
        String hex = encoded(r::encode);
        assertThat(hex).isEqualTo(hex("00000003 00000001 00000000 00000000 00000000 0000000" + stat.ordinal()));
        RpcReplyHeader back = RpcReplyHeader.decode(Hex.buf(hex));
        assertThat(back).isEqualTo(r);
        RpcException e = back.toException(NFS, 4, 9);
        assertThat(e).isExactlyInstanceOf(RpcAcceptedException.class);
        assertThat(((RpcAcceptedException) e).stat()).isEqualTo(stat);
        assertThat(e).hasMessageContaining(stat.name());
    }

    @Test
    void rfc5531Section9AReplyDecoderRejectsACall() {
        // v4_null_pd1k.txt, the call
        assertThatThrownBy(() -> RpcReplyHeader.decode(rpcOf(NfsRdmaCaptures.V4_NULL_CALL, NULL_HEADER_LENGTH)))
                .isInstanceOf(RpcRdmaProtocolException.class)
                .hasMessage("msg_type 0 where a REPLY (1) belongs (RFC 5531 §9)");
        assertThatThrownBy(() -> RpcReplyHeader.decode(words(1, 2, 0, 0, 0, 0)))
                .isInstanceOf(RpcRdmaProtocolException.class).hasMessageContaining("msg_type 2");
    }

    @Test
    void rfc5531Section9UnknownStatusesAreRejected() {
        assertThatThrownBy(() -> RpcReplyHeader.decode(words(1, 1, 2, 0, 0, 0)))
                .isInstanceOf(RpcRdmaProtocolException.class).hasMessageContaining("unknown reply_stat 2");
        assertThatThrownBy(() -> RpcReplyHeader.decode(words(1, 1, 0, 0, 0, 6)))
                .isInstanceOf(RpcRdmaProtocolException.class).hasMessageContaining("unknown accept_stat 6");
        assertThatThrownBy(() -> RpcReplyHeader.decode(words(1, 1, 0, 0, 0, -1)))
                .isInstanceOf(RpcRdmaProtocolException.class).hasMessageContaining("unknown accept_stat -1");
        assertThatThrownBy(() -> RpcReplyHeader.decode(words(1, 1, 1, 2, 0)))
                .isInstanceOf(RpcRdmaProtocolException.class).hasMessageContaining("unknown reject_stat 2");
    }

    @Test
    void rfc5531Section9ATruncatedReplyHeaderIsRejectedAtEveryLength() {
        String[] replies = {slice(NfsRdmaCaptures.V4_NULL_REPLY, NULL_HEADER_LENGTH, 52),
                slice(NfsRdmaCaptures.V3_NULL_PROG_MISMATCH_REPLY, NULL_HEADER_LENGTH, 60),
                hex("00000007 00000001 00000001 00000000 00000002 00000002"),
                hex("00000008 00000001 00000001 00000001 00000005"),
                hex("00000009 00000001 00000000 00000001 00000005 0102030405000000 00000000")};
        for (String rpc : replies) {
            byte[] all = Hex.bytes(rpc);
            ByteBuf whole = Unpooled.wrappedBuffer(all);
            RpcReplyHeader.decode(whole);
            assertThat(whole.readableBytes()).isZero();
            for (int n = 0; n < all.length; n++) {
                ByteBuf cut = Unpooled.wrappedBuffer(all, 0, n);
                int len = n;
                assertThatThrownBy(() -> RpcReplyHeader.decode(cut)).as("%s cut to %d", rpc, len)
                        .isInstanceOf(RpcRdmaProtocolException.class).hasMessageStartingWith("truncated: ");
            }
        }
    }

    // ---- credentials and verifiers -------------------------------------------------------------------------------

    @Test
    void rfc5531Section8_2AnAuthBodyOf400OctetsIsAcceptedAnd401Rejected() {
        RpcAuth max = new RpcAuth(7, new byte[RpcAuth.MAX_BODY]);
        assertThat(max.encodedLength()).isEqualTo(408);
        ByteBuf b = Unpooled.buffer();
        max.encode(b);
        assertThat(RpcAuth.decode(b, "cred")).isEqualTo(max);

        assertThatThrownBy(() -> new RpcAuth(7, new byte[401])).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("401 octets exceeds RFC 5531's 400");

        ByteBuf over = Unpooled.buffer().writeInt(7).writeInt(401).writeZero(404);
        assertThatThrownBy(() -> RpcAuth.decode(over, "cred")).isInstanceOf(RpcRdmaProtocolException.class)
                .hasMessage("cred body of 401 octets exceeds its maximum of 400");
    }

    @Test
    void rfc5531Section8_2AHugeAuthLengthIsRejectedBeforeAnythingIsAllocated() {
        assertThatThrownBy(() -> RpcAuth.decode(words(1, 0xffffffff), "verf"))
                .isInstanceOf(RpcRdmaProtocolException.class)
                .hasMessage("verf body of 4294967295 octets exceeds its maximum of 400");
        assertThatThrownBy(() -> RpcCallHeader.decode(words(1, 0, 2, NFS, 4, 0, 1, 0x80000000)))
                .isInstanceOf(RpcRdmaProtocolException.class)
                .hasMessage("cred body of 2147483648 octets exceeds its maximum of 400");
    }

    @Test
    void rfc5531AppendixAAuthSysLayoutIsStampMachineUidGidGids() {
        RpcAuth a = RpcAuth.sys(1, "ab", 1000, 100, 4, 5);
        assertThat(a.flavor()).isEqualTo(RpcAuth.AUTH_SYS);
        assertThat(Hex.hex(a.body()))
                .isEqualTo(hex("00000001 00000002 61620000 000003e8 00000064 00000002 00000004 00000005"));
        assertThat(encoded(a::encode)).isEqualTo(hex("00000001 00000020 00000001 00000002 61620000 000003e8"
                + "00000064 00000002 00000004 00000005"));
        assertThat(a.encodedLength()).isEqualTo(40);
        assertThat(a.toString()).isEqualTo("AUTH_SYS(32 octets)");
    }

    @Test
    void rfc5531AppendixAAuthSysMachineNameOf255OctetsIsAcceptedAnd256Rejected() {
        RpcAuth a = RpcAuth.sys(0, "m".repeat(255), 0, 0, new int[16]);
        assertThat(a.body()).hasSize(4 + 4 + 256 + 12 + 64);
        ByteBuf b = Unpooled.buffer();
        a.encode(b);
        assertThat(RpcAuth.decode(b, "cred")).isEqualTo(a);

        assertThatThrownBy(() -> RpcAuth.sys(0, "m".repeat(256), 0, 0)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("AUTH_SYS machine name of 256 octets exceeds 255");
        // octets, not characters: 128 two-octet characters
        assertThatThrownBy(() -> RpcAuth.sys(0, "\u00e9".repeat(128), 0, 0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("AUTH_SYS machine name of 256 octets exceeds 255");
    }

    @Test
    void rfc5531AppendixAAuthSysCarriesAtMost16Gids() {
        assertThat(RpcAuth.sys(0, "h", 0, 0, new int[16]).body()).hasSize(4 + 8 + 12 + 64);
        assertThatThrownBy(() -> RpcAuth.sys(0, "h", 0, 0, new int[17])).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("AUTH_SYS carries at most 16 gids, not 17");
    }

    @Test
    void rfc4506Section4_10AnAuthBodyIsPaddedToFourOctets() {
        RpcAuth a = new RpcAuth(9, new byte[] {1, 2, 3, 4, 5});
        assertThat(a.encodedLength()).isEqualTo(16);
        String hex = encoded(a::encode);
        assertThat(hex).isEqualTo(hex("00000009 00000005 01020304 05000000"));
        ByteBuf in = Hex.buf(hex + "ffffffff");
        assertThat(RpcAuth.decode(in, "verf")).isEqualTo(a);
        assertThat(in.readableBytes()).isEqualTo(4);
        assertThat(a.toString()).isEqualTo("auth flavor 9");
        assertThat(RpcAuth.none().toString()).isEqualTo("AUTH_NONE");
    }

    @Test
    void anAuthIsImmutableAndComparedByContent() {
        byte[] body = {1, 2, 3};
        RpcAuth a = new RpcAuth(1, body);
        body[0] = 9;
        assertThat(a.body()).containsExactly(1, 2, 3);
        a.body()[1] = 9;
        assertThat(a.body()).containsExactly(1, 2, 3);
        RpcAuth b = new RpcAuth(1, new byte[] {1, 2, 3});
        assertThat(a).isEqualTo(b).hasSameHashCodeAs(b);
        assertThat(a).isNotEqualTo(new RpcAuth(2, new byte[] {1, 2, 3}));
        assertThat(a).isNotEqualTo(new RpcAuth(1, new byte[] {1, 2, 4}));
        assertThat(RpcAuth.none().flavor()).isEqualTo(RpcAuth.AUTH_NONE);
        assertThat(RpcAuth.none().body()).isEmpty();
        assertThat(RpcAuth.none().encodedLength()).isEqualTo(8);
        assertThatThrownBy(() -> new RpcAuth(0, null)).isInstanceOf(NullPointerException.class);
    }
}
