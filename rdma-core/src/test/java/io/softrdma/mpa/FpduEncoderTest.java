package io.softrdma.mpa;

import static io.softrdma.mpa.FpduTestSupport.oracleParse;
import static io.softrdma.mpa.FpduTestSupport.pattern;
import static io.softrdma.testing.Hex.bytes;
import static io.softrdma.testing.Hex.drainOutbound;
import static io.softrdma.testing.Hex.hex;
import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFuture;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.UnsupportedMessageTypeException;
import io.softrdma.internal.mpa.FpduCodec;
import io.softrdma.internal.mpa.FpduEncoder;
import io.softrdma.internal.mpa.GatheredUlpdu;
import java.nio.channels.ClosedChannelException;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class FpduEncoderTest {

    @Test
    void rfc5044Section4_1FpduIsLengthUlpduPadAndCrcLeastSignificantOctetFirst() {
        EmbeddedChannel ch = new EmbeddedChannel(new FpduEncoder(true, false, false));
        ch.writeOutbound(Unpooled.wrappedBuffer(bytes("010203")));
        byte[] wire = drainOutbound(ch);
        CRC32C crc = new CRC32C();
        crc.update(bytes("0003 010203 000000"));
        long v = crc.getValue();
        String crcLe = String.format("%02x%02x%02x%02x", v & 0xFF, (v >> 8) & 0xFF, (v >> 16) & 0xFF, (v >> 24) & 0xFF);
        assertThat(hex(wire)).isEqualTo("0003" + "010203" + "000000" + crcLe);
        assertThat(ch.finish()).isFalse();
    }

    @ParameterizedTest
    @ValueSource(ints = {0, 1, 2, 3, 4, 5, 6, 7, 126, 127})
    void rfc5044Section4_1PadMakesTheFpduAMultipleOfFour(int ulpduLength) {
        byte[] wire = FpduTestSupport.encode(true, false, List.of(pattern(ulpduLength, 1)));
        assertThat(wire.length % 4).isZero();
        assertThat(wire.length).isEqualTo(FpduCodec.fpduLength(ulpduLength));
        assertThat(oracleParse(wire, true, false)).containsExactly(pattern(ulpduLength, 1));
    }

    @Test
    void rfc5044Section4_1CrcFieldIsPresentAndZeroWhenCrcsAreOff() {
        EmbeddedChannel ch = new EmbeddedChannel(new FpduEncoder(false, false, false));
        ch.writeOutbound(Unpooled.wrappedBuffer(bytes("aabbccdd")));
        assertThat(hex(drainOutbound(ch))).isEqualTo("0004" + "aabbccdd" + "0000" + "00000000");
        assertThat(ch.finish()).isFalse();
    }

    @Test
    void payloadGoesOutAsTheSameBufferBetweenPrefixAndTrailerWithoutACopy() {
        EmbeddedChannel ch = new EmbeddedChannel(new FpduEncoder(true, false, false));
        ByteBuf payload = Unpooled.directBuffer(1000).writeBytes(pattern(1000, 2));
        ch.writeOutbound(payload);
        List<String> pieces = drainPieces(ch, payload);
        assertThat(pieces).containsExactly("03e8", "the payload itself", "0000" + pieces.get(2).substring(4));
        assertThat(pieces.get(2)).hasSize(2 * (2 + 4));
        assertThat(ch.finish()).isFalse();
    }

    @Test
    void gatheredUlpduCopiesOnlyTheHeaderAndFramesHeaderPlusPayloadAsOneUlpdu() {
        EmbeddedChannel ch = new EmbeddedChannel(new FpduEncoder(true, false, false));
        ByteBuf header = Unpooled.buffer().writeBytes(bytes("4143 00000000 00000000 00000001 00000000"));
        int length = FpduEncoder.COPY_LIMIT + 1;
        ByteBuf payload = Unpooled.directBuffer(length).writeZero(length);
        ChannelFuture f = ch.writeAndFlush(GatheredUlpdu.newInstance(header, payload));
        assertThat(f.isSuccess()).isTrue();
        assertThat(header.refCnt()).as("header released after being copied into the prefix").isZero();
        List<String> pieces = drainPieces(ch, payload);
        assertThat(pieces).hasSize(3);
        assertThat(pieces.get(0)).isEqualTo(String.format("%04x", 18 + length) + "4143000000000000000000000001"
                + "00000000");
        assertThat(pieces.get(1)).isEqualTo("the payload itself");
        assertThat(ch.finish()).isFalse();
    }

    @Test
    void shortPayloadsAreCopiedAndTheFpdusOfOneFlushLeaveAsOneBuffer() {
        EmbeddedChannel ch = new EmbeddedChannel(new FpduEncoder(true, false, false));
        List<byte[]> ulpdus = new ArrayList<>();
        List<ByteBuf> payloads = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            byte[] header = bytes("4143 00000000 00000000 0000000" + i + " 00000000");
            byte[] data = pattern(i == 2 ? FpduEncoder.COPY_LIMIT : 61 + i, i);
            ByteBuf payload = Unpooled.directBuffer(data.length).writeBytes(data);
            payloads.add(payload);
            ch.write(GatheredUlpdu.newInstance(Unpooled.wrappedBuffer(header), payload), ch.voidPromise());
            byte[] ulpdu = new byte[header.length + data.length];
            System.arraycopy(header, 0, ulpdu, 0, header.length);
            System.arraycopy(data, 0, ulpdu, header.length, data.length);
            ulpdus.add(ulpdu);
        }
        assertThat(payloads).as("each short payload released once copied").allMatch(b -> b.refCnt() == 0);
        assertThat((Object) ch.readOutbound()).as("nothing reaches the channel before the flush").isNull();
        ch.flush();
        ByteBuf wire = ch.readOutbound();
        assertThat((Object) ch.readOutbound()).as("one buffer for the whole flush").isNull();
        assertThat(hex(wire)).isEqualTo(FpduTestSupport.hex(FpduTestSupport.encode(true, false, ulpdus)));
        wire.release();
        assertThat(ch.finish()).isFalse();
    }

    @Test
    void aCallersPromiseCompletesWithItsFpduAndKeepsTheOrder() {
        EmbeddedChannel ch = new EmbeddedChannel(new FpduEncoder(false, false, false));
        ch.write(Unpooled.wrappedBuffer(bytes("aabbccdd")), ch.voidPromise());
        ChannelFuture second = ch.write(Unpooled.wrappedBuffer(bytes("11223344")));
        ch.write(Unpooled.wrappedBuffer(bytes("55667788")), ch.voidPromise());
        assertThat(second.isDone()).isFalse();
        ch.flush();
        assertThat(second.isSuccess()).isTrue();
        List<String> pieces = drainPieces(ch, null);
        assertThat(String.join("", pieces)).isEqualTo("0004aabbccdd0000" + "00000000" + "000411223344" + "0000"
                + "00000000" + "000455667788" + "0000" + "00000000");
        assertThat(ch.finish()).isFalse();
    }

    /** The hex of each written buffer, "the payload itself" for the very buffer given; all released. */
    private static List<String> drainPieces(EmbeddedChannel ch, ByteBuf payload) {
        List<String> pieces = new ArrayList<>();
        for (Object o; (o = ch.readOutbound()) != null; ) {
            ByteBuf b = (ByteBuf) o;
            pieces.add(b == payload ? "the payload itself" : hex(b));
            b.release();
        }
        return pieces;
    }

    @Test
    void rfc5044Section3UlpduLargerThan64768IsRefusedAndReleased() {
        EmbeddedChannel ch = new EmbeddedChannel(new FpduEncoder(true, false, false));
        ByteBuf big = Unpooled.buffer(64769).writeZero(64769);
        ChannelFuture f = ch.writeAndFlush(big);
        assertThat(f.cause()).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("64769 octets exceeds the maximum of 64768");
        assertThat(big.refCnt()).isZero();
        assertThat(ch.finish()).isFalse();
    }

    @Test
    void ulpduOfExactly64768IsFramed() {
        byte[] wire = FpduTestSupport.encode(true, false, List.of(pattern(64768, 3)));
        assertThat(oracleParse(wire, true, false)).containsExactly(pattern(64768, 3));
    }

    @Test
    void otherMessageTypesAreRefused() {
        EmbeddedChannel ch = new EmbeddedChannel(new FpduEncoder(true, false, false));
        ChannelFuture f = ch.writeAndFlush("not a ULPDU");
        assertThat(f.cause()).isInstanceOf(UnsupportedMessageTypeException.class);
        assertThat(ch.finish()).isFalse();
    }

    /**
     * The sender's array path frames what the holder's path frames, octet for octet: RFC 5044 §4.1's length, PAD and
     * CRC (on and off), §4.3's Markers (it falls back to the holder's path there), and a responder's held writes
     * (§7.1.2 rule 4: nothing before the first FPDU arrives, then in order).
     */
    @ParameterizedTest
    @CsvSource({"0, true, false, false", "1, true, false, false", "2, true, false, false", "3, true, false, false",
        "64, true, false, false", "64, false, false, false", "511, true, false, false", "512, true, false, false",
        "64, true, true, false", "500, true, true, false", "64, true, false, true", "7, false, true, true"})
    void writeInlineFramesTheOctetsAGatheredUlpduWould(int length, boolean crc, boolean markers, boolean held) {
        byte[] header = bytes("c141 12345678 0000000000000040");
        ByteBuf memory = Unpooled.directBuffer(1024).writeBytes(pattern(1024, 3));
        int index = 5;

        FpduEncoder viaHolder = new FpduEncoder(crc, markers, held);
        EmbeddedChannel a = new EmbeddedChannel(viaHolder);
        for (int i = 0; i < 3; i++) {
            GatheredUlpdu u = GatheredUlpdu.newInstance(Unpooled.EMPTY_BUFFER);
            u.header().writeBytes(header);
            if (length > 0) {
                u.appendPayload(memory, index, length);
            }
            a.write(u);
        }
        a.flush();
        viaHolder.releaseHeldWrites();

        FpduEncoder inline = new FpduEncoder(crc, markers, held);
        EmbeddedChannel b = new EmbeddedChannel(inline);
        for (int i = 0; i < 3; i++) {
            inline.writeInline(b.pipeline().context(inline), header, header.length, memory, index, length);
        }
        b.flush();
        if (held) {
            assertThat((Object) b.readOutbound()).as("held until an FPDU is received").isNull();
        }
        inline.releaseHeldWrites();

        byte[] expected = drainOutbound(a);
        assertThat(expected).hasSizeGreaterThanOrEqualTo(3 * FpduCodec.fpduLength(header.length + length));
        assertThat(hex(drainOutbound(b))).isEqualTo(hex(expected));
        assertThat(memory.refCnt()).as("the caller's memory is only read").isEqualTo(1);
        memory.release();
        assertThat(a.finish()).isFalse();
        assertThat(b.finish()).isFalse();
    }

    @Test
    void rfc5044Section7_1_2Rule4ResponderHoldsFpdusUntilOneIsReceived() {
        FpduEncoder encoder = new FpduEncoder(true, false, true);
        EmbeddedChannel ch = new EmbeddedChannel(encoder);
        ChannelFuture first = ch.writeAndFlush(Unpooled.wrappedBuffer(bytes("01")));
        ChannelFuture second = ch.writeAndFlush(Unpooled.wrappedBuffer(bytes("0203")));
        assertThat((Object) ch.readOutbound()).as("nothing sent before an FPDU was received").isNull();
        assertThat(first.isDone()).isFalse();
        assertThat(encoder.isHolding()).isTrue();

        encoder.releaseHeldWrites();
        assertThat(first.isSuccess()).isTrue();
        assertThat(second.isSuccess()).isTrue();
        assertThat(oracleParse(drainOutbound(ch), true, false)).containsExactly(bytes("01"), bytes("0203"));
        assertThat(encoder.isHolding()).isFalse();
        assertThat(ch.finish()).isFalse();
    }

    @Test
    void heldWritesFailAndAreReleasedWhenTheConnectionCloses() {
        EmbeddedChannel ch = new EmbeddedChannel(new FpduEncoder(true, false, true));
        ByteBuf data = Unpooled.wrappedBuffer(bytes("01"));
        ByteBuf header = Unpooled.wrappedBuffer(bytes("02"));
        ByteBuf payload = Unpooled.wrappedBuffer(bytes("03"));
        ChannelFuture f = ch.writeAndFlush(data);
        ChannelFuture g = ch.writeAndFlush(GatheredUlpdu.newInstance(header, payload));
        ch.close();
        assertThat(f.cause()).isInstanceOf(ClosedChannelException.class);
        assertThat(g.cause()).isInstanceOf(ClosedChannelException.class);
        assertThat(data.refCnt()).isZero();
        assertThat(header.refCnt()).isZero();
        assertThat(payload.refCnt()).isZero();
        assertThat(ch.finish()).isFalse();
    }

    @Test
    void aGatheredUlpduDroppedUnwrittenByNettyReleasesItsPayload() {
        EmbeddedChannel ch = new EmbeddedChannel(new FpduEncoder(true, false, false));
        ch.close();
        ByteBuf payload = Unpooled.directBuffer(8).writeZero(8);
        GatheredUlpdu u = GatheredUlpdu.newInstance(payload);
        u.header().writeInt(7);
        ChannelFuture f = ch.writeAndFlush(u);
        assertThat(f.cause()).isNotNull();
        assertThat(payload.refCnt()).as("Netty released the holder, and so the payload").isZero();
        assertThat(ch.finish()).isFalse();
    }

    @ParameterizedTest(name = "crc={0}")
    @ValueSource(booleans = {true, false})
    void rfc5044Section4_3MarkersEvery512OctetsPointBackToTheirFpdu(boolean crc) {
        List<byte[]> ulpdus = new ArrayList<>();
        int[] sizes = {0, 1, 18, 42, 482, 490, 506, 508, 510, 511, 512, 513, 1000, 1500, 4096, 64768, 3, 700};
        for (int i = 0; i < sizes.length; i++) {
            ulpdus.add(pattern(sizes[i], i));
        }
        byte[] wire = FpduTestSupport.encode(crc, true, ulpdus);
        assertThat(oracleParse(wire, crc, true)).containsExactlyElementsOf(ulpdus);
    }

    /**
     * The first FPDU starts with a Marker (stream octet 0) and its length field at octet 4, so its
     * ULPDU length decides where the Marker at octet 512 falls: 499..502 end the FPDU at octet 512
     * (Marker between FPDUs, FPDUPTR 0, in the next FPDU's CRC); 503..506 end the PAD at octet 512
     * (Marker before the CRC, inside this FPDU and its CRC, §4.4 rule 1); 498 puts it 4 octets into
     * the next FPDU.
     */
    @ParameterizedTest(name = "first ULPDU {0} octets")
    @ValueSource(ints = {498, 499, 500, 501, 502, 503, 504, 505, 506})
    void rfc5044Sections4_3And4_4MarkerBetweenFpdusOrAfterThePadIsPlacedAndCoveredByTheRightCrc(int firstUlpdu) {
        List<byte[]> ulpdus = List.of(pattern(firstUlpdu, 1), pattern(100, 2), pattern(400, 3));
        byte[] wire = FpduTestSupport.encode(true, true, ulpdus);
        assertThat(oracleParse(wire, true, true)).containsExactlyElementsOf(ulpdus);
        int firstEnd = 4 + FpduCodec.fpduLength(firstUlpdu);
        if (firstEnd == 512) {
            assertThat(hex(java.util.Arrays.copyOfRange(wire, 512, 516))).isEqualTo("00000000");
        } else if (firstEnd == 508) {
            assertThat(hex(java.util.Arrays.copyOfRange(wire, 512, 516))).isEqualTo("00000004");
        } else {
            assertThat(hex(java.util.Arrays.copyOfRange(wire, 512, 516)))
                    .as("Marker before the CRC points back to octet 4").isEqualTo("000001fc");
        }
    }
}
