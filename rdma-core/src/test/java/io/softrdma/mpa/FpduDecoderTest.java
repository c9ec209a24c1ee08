package io.softrdma.mpa;

import static io.softrdma.mpa.FpduTestSupport.decode;
import static io.softrdma.mpa.FpduTestSupport.encode;
import static io.softrdma.mpa.FpduTestSupport.pattern;
import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.embedded.EmbeddedChannel;
import io.softrdma.internal.mpa.FpduCodec;
import io.softrdma.internal.mpa.FpduDecoder;
import io.softrdma.internal.mpa.FpduException;
import io.softrdma.testing.Hex;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class FpduDecoderTest {

    private static List<byte[]> sample() {
        return List.of(pattern(0, 1), pattern(42, 2), pattern(510, 3), pattern(1, 4), pattern(1100, 5),
                pattern(7, 6));
    }

    @ParameterizedTest(name = "crc={0} markers={1}")
    @CsvSource({"true,false", "false,false", "true,true", "false,true"})
    void rfc5044Section6ManyFpdusInOneReadAreEachPassedOn(boolean crc, boolean markers) {
        byte[] wire = encode(crc, markers, sample());
        assertThat(decode(wire, crc, markers)).containsExactlyElementsOf(sample());
    }

    @ParameterizedTest(name = "crc={0} markers={1}")
    @CsvSource({"true,false", "true,true", "false,true"})
    void rfc5044Section6FpdusSplitAtEveryPointDecodeTheSame(boolean crc, boolean markers) {
        byte[] wire = encode(crc, markers, sample());
        for (int cut = 1; cut < wire.length; cut++) {
            assertThat(decode(wire, crc, markers, cut)).as("split at %d", cut).containsExactlyElementsOf(sample());
        }
    }

    @ParameterizedTest(name = "crc={0} markers={1}")
    @CsvSource({"true,false", "true,true"})
    void rfc5044Section6OneOctetAtATime(boolean crc, boolean markers) {
        byte[] wire = encode(crc, markers, sample());
        int[] cuts = new int[wire.length - 1];
        for (int i = 0; i < cuts.length; i++) {
            cuts[i] = i + 1;
        }
        assertThat(decode(wire, crc, markers, cuts)).containsExactlyElementsOf(sample());
    }

    @Test
    void ulpduIsASliceOfTheReadBufferNotACopy() {
        byte[] wire = encode(true, false, List.of(pattern(100, 1)));
        ByteBuf read = Unpooled.wrappedBuffer(wire);
        EmbeddedChannel ch = new EmbeddedChannel(new FpduDecoder(true, false));
        ch.writeInbound(read);
        ByteBuf ulpdu = ch.readInbound();
        try {
            assertThat(ulpdu.hasArray()).isTrue();
            assertThat(ulpdu.array()).isSameAs(wire);
            assertThat(ulpdu.arrayOffset() + ulpdu.readerIndex()).isEqualTo(2);
        } finally {
            ulpdu.release();
        }
        assertThat(ch.finish()).isFalse();
    }

    @Test
    void rfc5044Section4_1CrcIsNotCheckedWhenCrcsAreOff() {
        byte[] wire = encode(false, false, List.of(pattern(10, 1)));
        wire[wire.length - 1] = 0x5A; // "may contain any value, and MUST NOT be checked"
        assertThat(decode(wire, false, false)).containsExactly(pattern(10, 1));
    }

    @Test
    void rfc5044Section8Code2BadCrcIsReportedAfterEarlierUlpdusAndNothingIsPassedOnAfterIt() {
        byte[] wire = encode(true, false, List.of(pattern(10, 1), pattern(20, 2), pattern(30, 3)));
        int second = FpduCodec.fpduLength(10);
        wire[second + 5] ^= 0x01; // corrupt the second ULPDU
        Recorder r = new Recorder();
        EmbeddedChannel ch = new EmbeddedChannel(new FpduDecoder(true, false), r);
        ch.writeInbound(Unpooled.wrappedBuffer(wire));
        ch.writeInbound(Unpooled.wrappedBuffer(encode(true, false, List.of(pattern(5, 9)))));

        assertThat(r.events).containsExactly("ULPDU " + Hex.hex(pattern(10, 1)), "error CRC_ERROR");
        assertThat(r.error.getMessage()).contains("CRC32c received").contains("RFC 5044 §4.4")
                .as("a second computation over a copy tells a corrupt FPDU from a misread one")
                .contains("over a heap copy").endsWith("the octets read hold that CRC");
        assertThat(ch.isOpen()).as("MPA does not close on code 2 (RFC 5044 §8)").isTrue();
        assertThat(ch.config().isAutoRead()).as("the stream is not read further").isFalse();
        assertThat(ch.finish()).isFalse();
    }

    @Test
    void rfc5044Section3UlpduLengthAbove64768IsReportedAsCode3() {
        Recorder r = new Recorder();
        EmbeddedChannel ch = new EmbeddedChannel(new FpduDecoder(true, false), r);
        ch.writeInbound(Unpooled.wrappedBuffer(Hex.bytes("fd01 0000")));
        assertThat(r.events).containsExactly("error MARKER_AND_ULPDU_LENGTH_MISMATCH");
        assertThat(r.error.getMessage()).contains("ULPDU_Length 64769 exceeds");
        assertThat(ch.finish()).isFalse();
    }

    @Test
    void rfc5044Section8Code3MarkerInsideAnFpduPointingElsewhere() {
        byte[] wire = encode(true, true, List.of(pattern(600, 1)));
        // Leading Marker at 0, length field at 4, a Marker at 512 must hold 508.
        assertThat(wire[514] & 0xFF).isEqualTo(0x01);
        assertThat(wire[515] & 0xFF).isEqualTo(0xFC);
        wire[515] = (byte) 0xF8; // 504: off by 4, with a CRC made valid again
        recomputeCrc(wire, 0, wire.length - 4);
        Recorder r = expectError(wire, true, true);
        assertThat(r.events).containsExactly("error MARKER_AND_ULPDU_LENGTH_MISMATCH");
        assertThat(r.error.getMessage()).contains("FPDUPTR 504").contains("508 octets back");
    }

    @Test
    void rfc5044Section4_3MarkerBetweenFpdusMustHoldZero() {
        byte[] wire = encode(false, true, List.of(pattern(4, 1)));
        wire[3] = 0x08;
        Recorder r = expectError(wire, false, true);
        assertThat(r.events).containsExactly("error MARKER_AND_ULPDU_LENGTH_MISMATCH");
        assertThat(r.error.getMessage()).contains("must hold FPDUPTR 0, received 8");
    }

    @Test
    void rfc5044Section4_3MarkerBetweenFpdusLaterInTheStreamMustHoldZeroToo() {
        // 4 (leading Marker) + FPDU of a 502-octet ULPDU = 512: the Marker at 512 falls between FPDUs.
        byte[] wire = encode(true, true, List.of(pattern(502, 1), pattern(40, 2)));
        assertThat(wire[515]).isZero();
        wire[515] = 0x04;
        recomputeCrc(wire, 512, wire.length - 4); // the Marker belongs to (and is in the CRC of) the second FPDU
        Recorder r = expectError(wire, true, true);
        assertThat(r.events).containsExactly("ULPDU " + Hex.hex(pattern(502, 1)), "error MARKER_AND_ULPDU_LENGTH_MISMATCH");
        assertThat(r.error.getMessage()).contains("stream octet 512").contains("must hold FPDUPTR 0");
    }

    @Test
    void rfc5044Section4_2MarkerReservedFieldAndLowPointerBitsAreIgnored() {
        byte[] wire = encode(true, true, List.of(pattern(600, 1)));
        wire[512] = 0x12; // RESERVED: ignored on receive except for the CRC
        wire[515] |= 0x03; // the two low bits of FPDUPTR are treated as zero
        recomputeCrc(wire, 0, wire.length - 4);
        assertThat(decode(wire, true, true)).containsExactly(pattern(600, 1));
    }

    @Test
    void rfc5044Section4_3MarkersAreStrippedFromUlpdusThatSpanThem() {
        List<byte[]> ulpdus = List.of(pattern(3000, 1), pattern(64768, 2));
        assertThat(decode(encode(true, true, ulpdus), true, true)).containsExactlyElementsOf(ulpdus);
    }

    @Test
    void firstFpduListenerRunsOnceAfterTheFirstValidFpdu() {
        FpduDecoder decoder = new FpduDecoder(true, false);
        AtomicInteger calls = new AtomicInteger();
        decoder.onFirstFpdu(calls::incrementAndGet);
        EmbeddedChannel ch = new EmbeddedChannel(decoder);
        byte[] wire = encode(true, false, List.of(pattern(3, 1), pattern(4, 2)));
        ch.writeInbound(Unpooled.wrappedBuffer(wire, 0, 5));
        assertThat(calls).hasValue(0);
        ch.writeInbound(Unpooled.wrappedBuffer(wire, 5, wire.length - 5));
        assertThat(calls).hasValue(1);
        assertThat(decoder.fpdusReceived()).isEqualTo(2);
        Hex.releaseToBytes(ch.readInbound());
        Hex.releaseToBytes(ch.readInbound());
        assertThat(ch.finish()).isFalse();
    }

    @Test
    void firstFpduListenerDoesNotRunForAnInvalidFpdu() {
        FpduDecoder decoder = new FpduDecoder(true, false);
        AtomicInteger calls = new AtomicInteger();
        decoder.onFirstFpdu(calls::incrementAndGet);
        byte[] wire = encode(true, false, List.of(pattern(3, 1)));
        wire[wire.length - 1] ^= 1;
        EmbeddedChannel ch = new EmbeddedChannel(decoder, new Recorder());
        ch.writeInbound(Unpooled.wrappedBuffer(wire));
        assertThat(calls).hasValue(0);
        assertThat(ch.finish()).isFalse();
    }

    private static Recorder expectError(byte[] wire, boolean crc, boolean markers) {
        Recorder r = new Recorder();
        EmbeddedChannel ch = new EmbeddedChannel(new FpduDecoder(crc, markers), r);
        ch.writeInbound(Unpooled.wrappedBuffer(wire));
        assertThat(ch.finish()).isFalse();
        return r;
    }

    /** With a sink, each ULPDU is lent to it in order, however the reads cut the stream; none is left behind. */
    @ParameterizedTest(name = "crc={0} markers={1}")
    @CsvSource({"true,false", "false,false", "true,true"})
    void rfc5044Section6ASinkIsLentEachUlpduInOrderWhereverTheReadsSplitTheStream(boolean crc, boolean markers) {
        byte[] wire = encode(crc, markers, sample());
        for (int cut = 0; cut < wire.length; cut += 7) {
            FpduDecoder decoder = new FpduDecoder(crc, markers);
            EmbeddedChannel ch = new EmbeddedChannel(decoder);
            List<byte[]> lent = new ArrayList<>();
            decoder.deliverTo(u -> {
                int refCnt = u.refCnt();
                lent.add(io.netty.buffer.ByteBufUtil.getBytes(u, u.readerIndex(), u.readableBytes()));
                assertThat(u.refCnt()).isEqualTo(refCnt);
            });
            if (cut > 0) {
                ch.writeInbound(Unpooled.wrappedBuffer(wire, 0, cut));
            }
            ch.writeInbound(Unpooled.wrappedBuffer(wire, cut, wire.length - cut));
            assertThat(lent).as("split at %d", cut).containsExactlyElementsOf(sample());
            assertThat((Object) ch.readInbound()).as("nothing through the pipeline").isNull();
            assertThat(ch.finish()).isFalse();
        }
    }

    @Test
    void rfc5044Section8ASinkSeesTheUlpdusBeforeABadCrcAndNothingAfterIt() {
        byte[] wire = encode(true, false, List.of(pattern(10, 1), pattern(20, 2), pattern(30, 3)));
        wire[FpduCodec.fpduLength(10) + 5] ^= 0x01;
        FpduDecoder decoder = new FpduDecoder(true, false);
        Recorder r = new Recorder();
        EmbeddedChannel ch = new EmbeddedChannel(decoder, r);
        decoder.deliverTo(u -> r.events.add("lent " + Hex.hex(io.netty.buffer.ByteBufUtil.getBytes(u))));
        ch.writeInbound(Unpooled.wrappedBuffer(wire));
        assertThat(r.events).containsExactly("lent " + Hex.hex(pattern(10, 1)), "error CRC_ERROR");
        assertThat(ch.finish()).isFalse();
    }

    @Test
    void rfc5044Section7_1_2Rule4TheFirstFpduListenerRunsBeforeTheSinkSeesTheFirstUlpdu() {
        FpduDecoder decoder = new FpduDecoder(true, false);
        EmbeddedChannel ch = new EmbeddedChannel(decoder);
        List<String> events = new ArrayList<>();
        decoder.onFirstFpdu(() -> events.add("first FPDU"));
        decoder.deliverTo(u -> events.add("ULPDU of " + u.readableBytes()));
        ch.writeInbound(Unpooled.wrappedBuffer(encode(true, false, List.of(pattern(3, 1), pattern(4, 2)))));
        assertThat(events).containsExactly("first FPDU", "ULPDU of 3", "ULPDU of 4");
        decoder.deliverTo(null);
        ch.writeInbound(Unpooled.wrappedBuffer(encode(true, false, List.of(pattern(5, 3)))));
        assertThat(Hex.releaseToBytes(ch.readInbound())).as("back to the pipeline").isEqualTo(pattern(5, 3));
        assertThat(ch.finish()).isFalse();
    }

    private static void recomputeCrc(byte[] wire, int from, int crcAt) {
        CRC32C c = new CRC32C();
        c.update(wire, from, crcAt - from);
        int v = (int) c.getValue();
        wire[crcAt] = (byte) v;
        wire[crcAt + 1] = (byte) (v >> 8);
        wire[crcAt + 2] = (byte) (v >> 16);
        wire[crcAt + 3] = (byte) (v >> 24);
    }

    /** Records ULPDUs and errors in arrival order, releasing the ULPDUs. */
    static final class Recorder extends ChannelInboundHandlerAdapter {
        final List<String> events = new ArrayList<>();
        FpduException error;

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            events.add("ULPDU " + Hex.hex(Hex.releaseToBytes((ByteBuf) msg)));
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            error = (FpduException) cause;
            events.add("error " + error.code());
        }
    }
}
