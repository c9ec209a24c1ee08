package io.softrdma.rpc;

import static io.softrdma.rpc.NfsRdmaCaptures.NULL_HEADER_LENGTH;
import static io.softrdma.rpc.NfsRdmaCaptures.NULL_XID;
import static io.softrdma.rpc.NfsRdmaCaptures.READ_HEADER_LENGTH;
import static io.softrdma.rpc.NfsRdmaCaptures.READ_XID;
import static io.softrdma.rpc.NfsRdmaCaptures.STAG;
import static io.softrdma.rpc.NfsRdmaCaptures.TO;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.softrdma.testing.Hex;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/** The RPC-over-RDMA version 1 transport header (RFC 8166 §4.2) against what Linux svcrdma sent and accepted. */
class RpcRdmaHeaderTest {

    // ---- helpers ------------------------------------------------------------------------------------------------

    /** What {@code writer} writes, as hex; the buffer is released. */
    static String encoded(Consumer<ByteBuf> writer) {
        ByteBuf out = Unpooled.buffer();
        try {
            writer.accept(out);
            return ByteBufUtil.hexDump(out);
        } finally {
            out.release();
        }
    }

    static String encoded(RpcRdmaHeader h) {
        return encoded(h::encode);
    }

    /** The first {@code octets} of a capture, as hex without spaces. */
    static String prefix(String capture, int octets) {
        return Hex.hex(Hex.bytes(capture)).substring(0, 2 * octets);
    }

    static String hex(String words) {
        return Hex.hex(Hex.bytes(words));
    }

    /** Builds XDR words (big-endian 32-bit) into a heap buffer. */
    static ByteBuf words(int... w) {
        ByteBuf b = Unpooled.buffer(4 * w.length);
        for (int x : w) {
            b.writeInt(x);
        }
        return b;
    }

    static RpcRdmaHeader decode(ByteBuf in) {
        try {
            return RpcRdmaHeader.decode(in);
        } finally {
            in.release();
        }
    }

    /** A header's fixed part: xid 1, version 1, credits 32, the procedure. */
    static ByteBuf fixed(int proc) {
        return words(1, RpcRdmaHeader.VERSION_1, 32, proc);
    }

    // ---- the captures: decode, check every field, encode byte for byte ------------------------------------------

    @Test
    void linuxNullCallHeaderIsRdmaMsgWith32CreditsAskedAndThreeEmptyLists() {
        // v4_null_pd1k.txt, the call
        ByteBuf in = Hex.buf(NfsRdmaCaptures.V4_NULL_CALL);
        RpcRdmaHeader h = RpcRdmaHeader.decode(in);
        assertThat(h.xid()).isEqualTo(NULL_XID);
        assertThat(h.version()).isEqualTo(RpcRdmaHeader.VERSION_1);
        assertThat(h.credits()).isEqualTo(32);
        assertThat(h.procedure()).isEqualTo(RpcRdmaProcedure.RDMA_MSG);
        assertThat(h.readList()).isEmpty();
        assertThat(h.writeList()).isEmpty();
        assertThat(h.replyChunk()).isNull();
        assertThat(h.error()).isNull();
        assertThat(in.readerIndex()).as("left on the RPC call").isEqualTo(NULL_HEADER_LENGTH);
        assertThat(h.encodedLength()).isEqualTo(NULL_HEADER_LENGTH).isEqualTo(RpcRdmaHeader.MIN_MSG_LENGTH);

        RpcRdmaHeader built = RpcRdmaHeader.message(NULL_XID, 32, List.of(), List.of(), null);
        assertThat(built).isEqualTo(h);
        assertThat(encoded(built)).isEqualTo(prefix(NfsRdmaCaptures.V4_NULL_CALL, NULL_HEADER_LENGTH));
    }

    @Test
    void linuxNullReplyHeaderGrants64Credits() {
        // v4_null_pd1k.txt, the reply
        ByteBuf in = Hex.buf(NfsRdmaCaptures.V4_NULL_REPLY);
        RpcRdmaHeader h = RpcRdmaHeader.decode(in);
        assertThat(h.xid()).isEqualTo(NULL_XID);
        assertThat(h.version()).isEqualTo(1);
        assertThat(h.credits()).isEqualTo(64);
        assertThat(h.procedure()).isEqualTo(RpcRdmaProcedure.RDMA_MSG);
        assertThat(h.readList()).isEmpty();
        assertThat(h.writeList()).isEmpty();
        assertThat(h.replyChunk()).isNull();
        assertThat(h.error()).isNull();
        assertThat(in.readerIndex()).isEqualTo(NULL_HEADER_LENGTH);
        assertThat(encoded(RpcRdmaHeader.message(NULL_XID, 64, List.of(), List.of(), null)))
                .isEqualTo(prefix(NfsRdmaCaptures.V4_NULL_REPLY, NULL_HEADER_LENGTH));
    }

    @Test
    void rfc8166Section4_1_2AReadCallCarriesAWriteListOfOneChunkOfOneSegment() {
        // v4_read64k_wchunk_inv1.txt, the call
        ByteBuf in = Hex.buf(NfsRdmaCaptures.V4_READ64K_CALL);
        RpcRdmaHeader h = RpcRdmaHeader.decode(in);
        assertThat(h.xid()).isEqualTo(READ_XID);
        assertThat(h.version()).isEqualTo(1);
        assertThat(h.credits()).isEqualTo(32);
        assertThat(h.procedure()).isEqualTo(RpcRdmaProcedure.RDMA_MSG);
        assertThat(h.readList()).isEmpty();
        assertThat(h.writeList()).hasSize(1);
        WriteChunk chunk = h.writeList().get(0);
        assertThat(chunk.segments()).containsExactly(new RdmaSegment(STAG, 65536, TO));
        assertThat(chunk.segments().get(0).handle()).isEqualTo(0x5a5a0101);
        assertThat(chunk.segments().get(0).length()).isEqualTo(65536);
        assertThat(chunk.segments().get(0).offset()).isEqualTo(0x00007f0012340000L);
        assertThat(chunk.length()).isEqualTo(65536);
        assertThat(h.replyChunk()).isNull();
        assertThat(h.error()).isNull();
        assertThat(in.readerIndex()).isEqualTo(READ_HEADER_LENGTH);
        assertThat(h.encodedLength()).isEqualTo(READ_HEADER_LENGTH);

        RpcRdmaHeader built = RpcRdmaHeader.message(READ_XID, 32, List.of(),
                List.of(WriteChunk.of(0x5a5a0101, 65536, 0x00007f0012340000L)), null);
        assertThat(built).isEqualTo(h);
        assertThat(built.encodedLength()).isEqualTo(READ_HEADER_LENGTH);
        assertThat(encoded(built)).isEqualTo(prefix(NfsRdmaCaptures.V4_READ64K_CALL, READ_HEADER_LENGTH));
    }

    @Test
    void rfc8166Section4_3TheReplyEchoesTheWriteListWithTheOctetsWritten() {
        // v4_read64k_wchunk_inv1.txt, the reply: 65536 written
        ByteBuf in = Hex.buf(NfsRdmaCaptures.V4_READ64K_REPLY);
        RpcRdmaHeader h = RpcRdmaHeader.decode(in);
        assertThat(h.xid()).isEqualTo(READ_XID);
        assertThat(h.version()).isEqualTo(1);
        assertThat(h.credits()).isEqualTo(64);
        assertThat(h.procedure()).isEqualTo(RpcRdmaProcedure.RDMA_MSG);
        assertThat(h.readList()).isEmpty();
        assertThat(h.writeList()).containsExactly(WriteChunk.of(STAG, 65536, TO));
        assertThat(h.writeList().get(0).length()).isEqualTo(65536);
        assertThat(h.replyChunk()).isNull();
        assertThat(h.error()).isNull();
        assertThat(in.readerIndex()).isEqualTo(READ_HEADER_LENGTH);
        RpcRdmaHeader built = RpcRdmaHeader.message(READ_XID, 64, List.of(),
                List.of(WriteChunk.of(0x5a5a0101, 65536, 0x00007f0012340000L)), null);
        assertThat(encoded(built)).isEqualTo(prefix(NfsRdmaCaptures.V4_READ64K_REPLY, READ_HEADER_LENGTH));
    }

    static Stream<Arguments> echoes() {
        return Stream.of(
                // v4_read_eof_short1001.txt: 1001 octets at EOF
                Arguments.of("v4_read_eof_short1001", NfsRdmaCaptures.V4_READ_EOF_SHORT_REPLY, 1001),
                // v4_read_zerostateid_in_grace_NFS4ERR_GRACE.txt: nothing written
                Arguments.of("NFS4ERR_GRACE", NfsRdmaCaptures.V4_READ_GRACE_REPLY, 0),
                // v4_read_chunk_too_small.txt: NFS4ERR_FBIG, nothing written
                Arguments.of("NFS4ERR_FBIG", NfsRdmaCaptures.V4_READ_FBIG_REPLY, 0));
    }

    @ParameterizedTest(name = "{0}: echo length {2}")
    @MethodSource("echoes")
    void rfc8166Section4_3AShortOrFailedReadEchoesTheChunkWithWhatWasWritten(String name, String capture,
            int written) {
        ByteBuf in = Hex.buf(capture);
        RpcRdmaHeader h = RpcRdmaHeader.decode(in);
        assertThat(h.xid()).isEqualTo(READ_XID);
        assertThat(h.credits()).isEqualTo(64);
        assertThat(h.procedure()).isEqualTo(RpcRdmaProcedure.RDMA_MSG);
        assertThat(h.readList()).isEmpty();
        assertThat(h.writeList()).containsExactly(WriteChunk.of(STAG, written, TO));
        assertThat(h.writeList().get(0).length()).isEqualTo(written);
        assertThat(h.replyChunk()).isNull();
        assertThat(in.readerIndex()).isEqualTo(READ_HEADER_LENGTH);
        assertThat(encoded(RpcRdmaHeader.message(READ_XID, 64, List.of(), List.of(WriteChunk.of(STAG, written, TO)),
                null))).isEqualTo(prefix(capture, READ_HEADER_LENGTH));
    }

    @Test
    void aWriteChunkSegmentSmallerThanTheReadIsCarriedAsGiven() {
        // v4_read_chunk_too_small.txt, the call: a 32768-octet segment
        RpcRdmaHeader h = decode(Hex.buf(NfsRdmaCaptures.V4_READ_CHUNK_TOO_SMALL_CALL));
        assertThat(h.writeList()).containsExactly(WriteChunk.of(STAG, 32768, TO));
        assertThat(encoded(RpcRdmaHeader.message(READ_XID, 32, List.of(), List.of(WriteChunk.of(STAG, 32768, TO)),
                null))).isEqualTo(prefix(NfsRdmaCaptures.V4_READ_CHUNK_TOO_SMALL_CALL, READ_HEADER_LENGTH));
    }

    @Test
    void rfc8166Section4_5LinuxErrVersEchoesVersion2AndStillDecodesAsTheErrorWithLow1High1() {
        // neg_rdma_vers2.txt, the reply
        ByteBuf in = Hex.buf(NfsRdmaCaptures.NEG_VERS2_ERROR_REPLY);
        RpcRdmaHeader h = RpcRdmaHeader.decode(in);
        assertThat(h.xid()).isEqualTo(NULL_XID);
        assertThat(h.version()).as("Linux echoes the call's rdma_vers").isEqualTo(2);
        assertThat(h.credits()).isEqualTo(64);
        assertThat(h.procedure()).isEqualTo(RpcRdmaProcedure.RDMA_ERROR);
        assertThat(h.error()).isEqualTo(RpcRdmaError.versions(1, 1));
        assertThat(h.error().code()).isEqualTo(RpcRdmaError.ERR_VERS);
        assertThat(h.error().low()).isEqualTo(1);
        assertThat(h.error().high()).isEqualTo(1);
        assertThat(h.readList()).isEmpty();
        assertThat(h.writeList()).isEmpty();
        assertThat(h.replyChunk()).isNull();
        assertThat(in.readableBytes()).isZero();
        assertThat(h.encodedLength()).isEqualTo(28);

        RpcRdmaHeader built = RpcRdmaHeader.error(NULL_XID, 2, 64, RpcRdmaError.versions(1, 1));
        assertThat(built).isEqualTo(h);
        assertThat(encoded(built)).isEqualTo(hex(NfsRdmaCaptures.NEG_VERS2_ERROR_REPLY));
    }

    @Test
    void rfc8166Section4_2_1AnotherVersionIsReturnedWithItsBodyUnreadSoThatErrVersCanBeAnswered() {
        // neg_rdma_vers2.txt, the call: rdma_vers 2, RDMA_MSG
        ByteBuf in = Hex.buf(NfsRdmaCaptures.NEG_VERS2_CALL);
        RpcRdmaHeader h = RpcRdmaHeader.decode(in);
        assertThat(h.xid()).isEqualTo(NULL_XID);
        assertThat(h.version()).isEqualTo(2);
        assertThat(h.credits()).isEqualTo(32);
        assertThat(h.procedure()).isEqualTo(RpcRdmaProcedure.RDMA_MSG);
        assertThat(h.readList()).isEmpty();
        assertThat(h.writeList()).isEmpty();
        assertThat(h.replyChunk()).isNull();
        assertThat(h.error()).isNull();
        assertThat(in.readerIndex()).as("only the fixed part is read").isEqualTo(RpcRdmaHeader.FIXED_LENGTH);
        // and the answer Linux gives to it, built from the decoded header
        assertThat(encoded(RpcRdmaHeader.error(h.xid(), h.version(), 64, RpcRdmaError.versions(1, 1))))
                .isEqualTo(hex(NfsRdmaCaptures.NEG_VERS2_ERROR_REPLY));
    }

    @Test
    void anotherVersionWithAnUnknownProcedureIsNotRejected() {
        // its layout is unknown, so nothing past the fixed part is judged
        ByteBuf in = words(7, 3, 1, 99, 0xdeadbeef);
        RpcRdmaHeader h = RpcRdmaHeader.decode(in);
        assertThat(h.xid()).isEqualTo(7);
        assertThat(h.version()).isEqualTo(3);
        assertThat(h.credits()).isEqualTo(1);
        assertThat(h.error()).isNull();
        assertThat(in.readableBytes()).isEqualTo(4);
    }

    @Test
    void rfc8166Section4_2_3ErrChunkIsTheErrorCodeAlone() {
        RpcRdmaHeader h = RpcRdmaHeader.error(0x01020304, 1, 16, RpcRdmaError.chunk());
        assertThat(h.encodedLength()).isEqualTo(20);
        String hex = encoded(h);
        assertThat(hex).isEqualTo(hex("01020304 00000001 00000010 00000004 00000002"));
        ByteBuf in = Hex.buf(hex);
        RpcRdmaHeader back = RpcRdmaHeader.decode(in);
        assertThat(back).isEqualTo(h);
        assertThat(back.error().code()).isEqualTo(RpcRdmaError.ERR_CHUNK);
        assertThat(in.readableBytes()).isZero();
        assertThat(RpcRdmaError.chunk().toString()).isEqualTo("ERR_CHUNK");
        assertThat(RpcRdmaError.versions(1, 1).toString()).isEqualTo("ERR_VERS (versions 1 to 1)");
    }

    // ---- round trips --------------------------------------------------------------------------------------------

    @Test
    void rfc8166Section4_2AllListsRoundTripAndEncodedLengthIsExact() {
        RpcRdmaHeader h = RpcRdmaHeader.message(0xcafef00d, 128,
                List.of(new ReadSegment(0, new RdmaSegment(1, 100, 0x1000)),
                        new ReadSegment(124, new RdmaSegment(0xffffffff, 0xffffffff, -1L))),
                List.of(WriteChunk.of(2, 65536, 0x2000),
                        new WriteChunk(List.of(new RdmaSegment(3, 4096, 0), new RdmaSegment(4, 4096, 4096),
                                new RdmaSegment(5, 0, Long.MIN_VALUE)))),
                new WriteChunk(List.of(new RdmaSegment(6, 1024, 0x6000), new RdmaSegment(7, 1024, 0x7000))));
        int expected = 16 + (2 * 24 + 4) + ((8 + 16) + (8 + 3 * 16) + 4) + (4 + 4 + 2 * 16);
        assertThat(h.encodedLength()).isEqualTo(expected);
        String hex = encoded(h);
        assertThat(hex).hasSize(2 * expected);
        assertThat(hex).isEqualTo(hex("cafef00d 00000001 00000080 00000000"
                + "00000001 00000000 00000001 00000064 00000000 00001000"
                + "00000001 0000007c ffffffff ffffffff ffffffff ffffffff"
                + "00000000"
                + "00000001 00000001 00000002 00010000 00000000 00002000"
                + "00000001 00000003 00000003 00001000 00000000 00000000 00000004 00001000 00000000 00001000"
                + "00000005 00000000 80000000 00000000"
                + "00000000"
                + "00000001 00000002 00000006 00000400 00000000 00006000 00000007 00000400 00000000 00007000"));
        ByteBuf in = Hex.buf(hex + "abcdef01");
        RpcRdmaHeader back = RpcRdmaHeader.decode(in);
        assertThat(back).isEqualTo(h);
        assertThat(in.readableBytes()).as("the RPC message is left").isEqualTo(4);
        assertThat(back.readList().get(1).segment().unsignedLength()).isEqualTo(0xffffffffL);
    }

    @Test
    void rfc8166Section3_5_3ALongCallIsRdmaNomsgWithAPositionZeroReadChunk() {
        RpcRdmaHeader h = RpcRdmaHeader.noMessage(9, 8,
                List.of(new ReadSegment(0, new RdmaSegment(0x11, 6000, 0x8000))), List.of(),
                WriteChunk.of(0x22, 8192, 0x9000));
        String hex = encoded(h);
        assertThat(hex).isEqualTo(hex("00000009 00000001 00000008 00000001"
                + "00000001 00000000 00000011 00001770 00000000 00008000 00000000"
                + "00000000"
                + "00000001 00000001 00000022 00002000 00000000 00009000"));
        assertThat(h.encodedLength()).isEqualTo(hex.length() / 2);
        assertThat(decode(Hex.buf(hex))).isEqualTo(h);
    }

    // ---- what is rejected ---------------------------------------------------------------------------------------

    @ParameterizedTest(name = "rdma_proc {0}")
    @ValueSource(ints = {2, 3})
    void rfc8166Section4_2_4RdmaMsgpAndRdmaDoneAreNotUsedInVersion1(int proc) {
        ByteBuf in = words(1, 1, 32, proc, 0, 0, 0, 0, 0, 0);
        assertThatThrownBy(() -> decode(in)).isInstanceOf(RpcRdmaProtocolException.class)
                .hasMessageContaining(proc == 2 ? "RDMA_MSGP" : "RDMA_DONE")
                .hasMessageContaining("not used in RPC-over-RDMA version 1");
    }

    @ParameterizedTest(name = "rdma_proc {0}")
    @ValueSource(ints = {5, 6, 0x7fffffff, -1})
    void rfc8166Section4_2_2AnUnknownProcedureIsRejected(int proc) {
        assertThatThrownBy(() -> decode(words(1, 1, 32, proc, 0, 0, 0)))
                .isInstanceOf(RpcRdmaProtocolException.class)
                .hasMessageContaining("unknown rdma_proc " + Integer.toUnsignedString(proc));
    }

    @ParameterizedTest(name = "rdma_err {0}")
    @ValueSource(ints = {0, 3, 4, -1})
    void rfc8166Section4_2_3AnUnknownErrorIsRejected(int err) {
        assertThatThrownBy(() -> decode(words(1, 1, 32, 4, err, 1, 1)))
                .isInstanceOf(RpcRdmaProtocolException.class)
                .hasMessageContaining("unknown rdma_err " + Integer.toUnsignedString(err));
        // the same with the version Linux echoes
        assertThatThrownBy(() -> decode(words(1, 2, 32, 4, err, 1, 1)))
                .isInstanceOf(RpcRdmaProtocolException.class).hasMessageContaining("unknown rdma_err");
    }

    static Stream<Arguments> badDiscriminators() {
        List<Arguments> a = new ArrayList<>();
        for (int v : new int[] {2, -1, 0x100, 0x80000000}) {
            a.add(Arguments.of("read list", new int[] {v, 0, 0}, v));
            a.add(Arguments.of("write list", new int[] {0, v, 0}, v));
            a.add(Arguments.of("reply chunk", new int[] {0, 0, v}, v));
        }
        // after a well-formed entry
        a.add(Arguments.of("read list", new int[] {1, 0, 1, 2, 0, 3, 5}, 5));
        a.add(Arguments.of("write list", new int[] {0, 1, 1, 1, 2, 0, 3, 2}, 2));
        return a.stream();
    }

    @ParameterizedTest(name = "{0} discriminator {2}")
    @MethodSource("badDiscriminators")
    void rfc4506Section4_4AListDiscriminatorThatIsNotAnXdrBoolIsRejected(String list, int[] body, int value) {
        ByteBuf in = fixed(0);
        for (int w : body) {
            in.writeInt(w);
        }
        assertThatThrownBy(() -> decode(in)).isInstanceOf(RpcRdmaProtocolException.class)
                .hasMessage(list + " discriminator is " + value + ", not an XDR bool (0 or 1)");
    }

    static Stream<Arguments> wellFormed() {
        return Stream.of(
                Arguments.of("NULL call", NfsRdmaCaptures.V4_NULL_CALL, NULL_HEADER_LENGTH),
                Arguments.of("NULL reply", NfsRdmaCaptures.V4_NULL_REPLY, NULL_HEADER_LENGTH),
                Arguments.of("READ call", NfsRdmaCaptures.V4_READ64K_CALL, READ_HEADER_LENGTH),
                Arguments.of("READ reply", NfsRdmaCaptures.V4_READ64K_REPLY, READ_HEADER_LENGTH),
                Arguments.of("ERR_VERS", NfsRdmaCaptures.NEG_VERS2_ERROR_REPLY, 28),
                Arguments.of("ERR_VERS v1", "4e554c4c 00000001 00000040 00000004 00000001 00000001 00000001", 28),
                Arguments.of("ERR_CHUNK", "4e554c4c 00000001 00000040 00000004 00000002", 20),
                Arguments.of("all lists", "00000009 00000001 00000008 00000001"
                        + "00000001 00000000 00000011 00001770 00000000 00008000 00000000"
                        + "00000001 00000002 00000033 00000010 00000000 00000001 00000034 00000010 00000000 00000002"
                        + "00000000"
                        + "00000001 00000001 00000022 00002000 00000000 00009000", 112));
    }

    @ParameterizedTest(name = "{0} cut at every length")
    @MethodSource("wellFormed")
    void rfc8166Section4_2ATruncatedHeaderIsRejectedAtEveryLength(String name, String capture, int headerLength) {
        byte[] all = Hex.bytes(capture);
        assertThat(all.length).isGreaterThanOrEqualTo(headerLength);
        {
            ByteBuf whole = Unpooled.wrappedBuffer(all, 0, headerLength);
            RpcRdmaHeader.decode(whole);
            assertThat(whole.readableBytes()).as("the whole header decodes, all of it").isZero();
        }
        for (int n = 0; n < headerLength; n++) {
            ByteBuf cut = Unpooled.wrappedBuffer(all, 0, n);
            int len = n;
            assertThatThrownBy(() -> RpcRdmaHeader.decode(cut)).as("%d of %d octets", len, headerLength)
                    .isInstanceOf(RpcRdmaProtocolException.class)
                    .hasMessageStartingWith("truncated: ")
                    .hasMessageContaining("left");
        }
    }

    @Test
    void rfc8166Section4_1_2AWriteChunkOfZeroSegmentsIsRejected() {
        assertThatThrownBy(() -> decode(words(1, 1, 32, 0, 0, 1, 0, 0, 0)))
                .isInstanceOf(RpcRdmaProtocolException.class)
                .hasMessage("Write chunk of 0 segments (1 to 64 accepted)");
    }

    @Test
    void rfc8166Section4_1_2AReplyChunkOfZeroSegmentsIsRejected() {
        assertThatThrownBy(() -> decode(words(1, 1, 32, 0, 0, 0, 1, 0)))
                .isInstanceOf(RpcRdmaProtocolException.class)
                .hasMessage("Reply chunk of 0 segments (1 to 64 accepted)");
    }

    @Test
    void aWriteChunkMayNotBeBuiltWithoutSegments() {
        assertThatThrownBy(() -> new WriteChunk(List.of())).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("at least one segment");
    }

    /** A header of {@code reads} Read segments, {@code chunks} Write chunks of {@code segs} segments each. */
    static ByteBuf listed(int reads, int chunks, int segs, boolean replyChunk) {
        ByteBuf b = fixed(0);
        for (int i = 0; i < reads; i++) {
            b.writeInt(1).writeInt(0).writeInt(i).writeInt(8).writeLong(i * 8L);
        }
        b.writeInt(0);
        for (int c = 0; c < chunks; c++) {
            b.writeInt(1).writeInt(segs);
            for (int i = 0; i < segs; i++) {
                b.writeInt(c).writeInt(8).writeLong(i * 8L);
            }
        }
        b.writeInt(0);
        if (replyChunk) {
            b.writeInt(1).writeInt(segs);
            for (int i = 0; i < segs; i++) {
                b.writeInt(99).writeInt(8).writeLong(i * 8L);
            }
        } else {
            b.writeInt(0);
        }
        return b;
    }

    @Test
    void maxReadSegmentsAreAcceptedAndOneMoreIsRejected() {
        RpcRdmaHeader h = decode(listed(RpcRdmaHeader.MAX_READ_SEGMENTS, 0, 0, false));
        assertThat(h.readList()).hasSize(64);
        assertThatThrownBy(() -> decode(listed(RpcRdmaHeader.MAX_READ_SEGMENTS + 1, 0, 0, false)))
                .isInstanceOf(RpcRdmaProtocolException.class).hasMessage("more than 64 Read segments");
    }

    @Test
    void maxWriteChunksAreAcceptedAndOneMoreIsRejected() {
        RpcRdmaHeader h = decode(listed(0, RpcRdmaHeader.MAX_WRITE_CHUNKS, 1, false));
        assertThat(h.writeList()).hasSize(16);
        assertThatThrownBy(() -> decode(listed(0, RpcRdmaHeader.MAX_WRITE_CHUNKS + 1, 1, false)))
                .isInstanceOf(RpcRdmaProtocolException.class).hasMessage("more than 16 Write chunks");
    }

    @Test
    void maxSegmentsPerChunkAreAcceptedAndOneMoreIsRejected() {
        RpcRdmaHeader h = decode(listed(0, 1, RpcRdmaHeader.MAX_SEGMENTS_PER_CHUNK, true));
        assertThat(h.writeList().get(0).segments()).hasSize(64);
        assertThat(h.replyChunk().segments()).hasSize(64);
        assertThat(h.replyChunk().length()).isEqualTo(64 * 8);
        assertThatThrownBy(() -> decode(listed(0, 1, RpcRdmaHeader.MAX_SEGMENTS_PER_CHUNK + 1, false)))
                .isInstanceOf(RpcRdmaProtocolException.class)
                .hasMessage("Write chunk of 65 segments (1 to 64 accepted)");
        assertThatThrownBy(() -> decode(listed(0, 0, RpcRdmaHeader.MAX_SEGMENTS_PER_CHUNK + 1, true)))
                .isInstanceOf(RpcRdmaProtocolException.class)
                .hasMessage("Reply chunk of 65 segments (1 to 64 accepted)");
    }

    @Test
    void aHugeSegmentCountIsReadUnsignedAndRejectedBeforeAnythingIsAllocated() {
        assertThatThrownBy(() -> decode(words(1, 1, 32, 0, 0, 1, 0xffffffff)))
                .isInstanceOf(RpcRdmaProtocolException.class)
                .hasMessage("Write chunk of 4294967295 segments (1 to 64 accepted)");
        assertThatThrownBy(() -> decode(words(1, 1, 32, 0, 0, 0, 1, 0x80000000)))
                .isInstanceOf(RpcRdmaProtocolException.class)
                .hasMessage("Reply chunk of 2147483648 segments (1 to 64 accepted)");
    }

    // ---- the value types ----------------------------------------------------------------------------------------

    @Test
    void onlyAnRdmaErrorHeaderCarriesAnError() {
        assertThatThrownBy(() -> new RpcRdmaHeader(1, 1, 1, RpcRdmaProcedure.RDMA_ERROR, List.of(), List.of(), null,
                null)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new RpcRdmaHeader(1, 1, 1, RpcRdmaProcedure.RDMA_MSG, List.of(), List.of(), null,
                RpcRdmaError.chunk())).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new RpcRdmaHeader(1, 1, 1, null, List.of(), List.of(), null, null))
                .isInstanceOf(NullPointerException.class);
    }

    @Test
    void theListsAreCopied() {
        List<WriteChunk> writes = new ArrayList<>(List.of(WriteChunk.of(1, 2, 3)));
        List<RdmaSegment> segs = new ArrayList<>(List.of(new RdmaSegment(1, 2, 3)));
        WriteChunk chunk = new WriteChunk(segs);
        RpcRdmaHeader h = RpcRdmaHeader.message(1, 1, List.of(), writes, chunk);
        writes.clear();
        segs.clear();
        assertThat(h.writeList()).hasSize(1);
        assertThat(h.replyChunk().segments()).hasSize(1);
        assertThatThrownBy(() -> h.writeList().add(WriteChunk.of(1, 1, 1)))
                .isInstanceOf(UnsupportedOperationException.class);
    }

    @Test
    void rfc8166Section4_2_2TheProcedureCodesAreTheWireValues() {
        assertThat(RpcRdmaProcedure.values()).extracting(RpcRdmaProcedure::code).containsExactly(0, 1, 2, 3, 4);
        assertThat(RpcRdmaProcedure.values()).extracting(RpcRdmaProcedure::name)
                .containsExactly("RDMA_MSG", "RDMA_NOMSG", "RDMA_MSGP", "RDMA_DONE", "RDMA_ERROR");
        for (RpcRdmaProcedure p : RpcRdmaProcedure.values()) {
            assertThat(RpcRdmaProcedure.fromCode(p.code())).isSameAs(p);
        }
        for (int code : new int[] {-1, 5, 6, Integer.MAX_VALUE, Integer.MIN_VALUE}) {
            assertThat(RpcRdmaProcedure.fromCode(code)).as("code %d", code).isNull();
        }
        assertThat(RpcRdmaError.ERR_VERS).isEqualTo(1);
        assertThat(RpcRdmaError.ERR_CHUNK).isEqualTo(2);
    }

    @Test
    void segmentLengthsAreUnsigned() {
        RdmaSegment s = new RdmaSegment(0x5a5a0101, 0xffffffff, 0x00007f0012340000L);
        assertThat(s.unsignedLength()).isEqualTo(4294967295L);
        assertThat(s.toString()).isEqualTo("segment{handle=0x5a5a0101 length=4294967295 offset=0x7f0012340000}");
        WriteChunk c = new WriteChunk(List.of(s, s, new RdmaSegment(1, 10, 0)));
        assertThat(c.length()).isEqualTo(2 * 4294967295L + 10);
        assertThat(RdmaSegment.LENGTH).isEqualTo(16);
        assertThat(ReadSegment.LENGTH).isEqualTo(20);
    }
}
