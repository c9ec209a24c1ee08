package io.softrdma.mpa;

import static io.softrdma.testing.Hex.bytes;
import static io.softrdma.testing.Hex.drainOutbound;
import static io.softrdma.testing.Hex.hex;
import static io.softrdma.testing.Hex.releaseToBytes;
import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.softrdma.internal.mpa.Crc32c;
import io.softrdma.internal.mpa.FpduDecoder;
import io.softrdma.internal.mpa.FpduEncoder;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

/** RFC 5044 §4.4 Figures 5 and 6, reproduced byte for byte by the encoder and decoded back. */
class RfcFigureVectorsTest {

    /** Figure 5's ULPDU: a DDP Send with L=1, QN 0, MSN 1, MO 0 and 24 octets of zeros. */
    private static final String FIGURE_5_ULPDU = "4143 00000000 00000000 00000001 00000000" + "00".repeat(24);

    private static final String FIGURE_5_FPDU = "0000 0000" // Marker: Reserved, FPDUPTR
            + "002a" + FIGURE_5_ULPDU
            + "52239983"; // CRC32c

    /** Figure 6's ULPDU: a Send with MSN 2 and 24 octets of zeros. */
    private static final String FIGURE_6_ULPDU = "4143 00000000 00000000 00000002 00000000" + "00".repeat(24);

    /** Figure 6's FPDU at stream octet 0x1ec: a Send with MSN 2, a Marker at 0x200 with FPDUPTR 0x14. */
    private static final String FIGURE_6_FPDU = "002a 4143 00000000 00000000 00000002 00000000"
            + "0000 0014" // Marker at 0x200
            + "00".repeat(24)
            + "84925898";

    @Test
    void figure5FirstFpduStartsWithMarkerAndHasReferenceCrc() {
        EmbeddedChannel ch = new EmbeddedChannel(new FpduEncoder(true, true, false));
        ch.writeOutbound(Unpooled.wrappedBuffer(bytes(FIGURE_5_ULPDU)));
        assertThat(hex(drainOutbound(ch))).isEqualTo(hex(bytes(FIGURE_5_FPDU)));
        assertThat(ch.finish()).isFalse();
    }

    @Test
    void figure6SecondFpduCarriesMarkerPointingBackToUlpduLength() {
        EmbeddedChannel ch = new EmbeddedChannel(new FpduEncoder(true, true, false));
        // "the first FPDU (which is not shown here) had a length of 492 octets and was also a Send to
        // Queue 0 with Last Flag set": a leading Marker, then a 482-octet ULPDU.
        ch.writeOutbound(Unpooled.wrappedBuffer(firstFpduOfFigure6Ulpdu()));
        ch.writeOutbound(Unpooled.wrappedBuffer(bytes(FIGURE_6_ULPDU)));
        byte[] wire = drainOutbound(ch);
        assertThat(wire).hasSize(0x1ec + 52);
        assertThat(hex(Arrays.copyOfRange(wire, 0x1ec, wire.length))).isEqualTo(hex(bytes(FIGURE_6_FPDU)));
        assertThat(ch.finish()).isFalse();
    }

    @Test
    void figures5And6DecodeBackToTheirUlpdus() {
        EmbeddedChannel encoder = new EmbeddedChannel(new FpduEncoder(true, true, false));
        encoder.writeOutbound(Unpooled.wrappedBuffer(firstFpduOfFigure6Ulpdu()));
        encoder.writeOutbound(Unpooled.wrappedBuffer(bytes(FIGURE_6_ULPDU)));
        byte[] wire = drainOutbound(encoder);

        EmbeddedChannel decoder = new EmbeddedChannel(new FpduDecoder(true, true));
        decoder.writeInbound(Unpooled.wrappedBuffer(wire));
        assertThat(releaseToBytes(decoder.readInbound())).isEqualTo(firstFpduOfFigure6Ulpdu());
        assertThat(hex(releaseToBytes(decoder.readInbound())))
                .isEqualTo(hex(bytes(FIGURE_6_ULPDU)));
        assertThat((Object) decoder.readInbound()).isNull();
        assertThat(decoder.finish()).isFalse();
    }

    @Test
    void figure5DecodesWithCrcChecked() {
        EmbeddedChannel decoder = new EmbeddedChannel(new FpduDecoder(true, true));
        decoder.writeInbound(Unpooled.wrappedBuffer(bytes(FIGURE_5_FPDU)));
        ByteBuf ulpdu = decoder.readInbound();
        assertThat(hex(releaseToBytes(ulpdu))).isEqualTo(hex(bytes(FIGURE_5_ULPDU)));
        assertThat(decoder.finish()).isFalse();
    }

    @Test
    void crcTrailerIsTheStandardCrc32cLeastSignificantOctetFirst() {
        // RFC 5044 §4.4: the CRC covers the Marker, ULPDU_Length and ULPDU of Figure 5.
        byte[] covered = bytes("00000000 002a" + FIGURE_5_ULPDU);
        java.util.zip.CRC32C crc = new java.util.zip.CRC32C();
        crc.update(covered);
        assertThat(crc.getValue()).isEqualTo(0x83992352L);
        assertThat(Crc32c.compute(Unpooled.wrappedBuffer(covered), 0, covered.length)).isEqualTo(0x83992352);
    }

    private static byte[] firstFpduOfFigure6Ulpdu() {
        return bytes("4143 00000000 00000000 00000001 00000000" + "00".repeat(482 - 18));
    }
}
