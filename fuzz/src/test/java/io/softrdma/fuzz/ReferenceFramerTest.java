package io.softrdma.fuzz;

import static io.softrdma.testing.Hex.bytes;
import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.extension.ExtendWith;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** The fuzz targets' oracle, checked against RFC 5044 §4.4 Figures 5 and 6 before it judges anything. */
@ExtendWith(ClassLeakCheck.class)
class ReferenceFramerTest {
    /** Figure 5's ULPDU: a DDP Send with L=1, QN 0, MSN 1, MO 0 and 24 octets of zeros. */
    static final String FIGURE_5_ULPDU = "4143 00000000 00000000 00000001 00000000" + "00".repeat(24);
    /** Figure 5: a leading Marker, ULPDU_Length 0x2a, the ULPDU, the CRC32c. */
    static final String FIGURE_5_FPDU = "0000 0000 002a" + FIGURE_5_ULPDU + "52239983";
    /** Figure 6's ULPDU: a Send with MSN 2. */
    static final String FIGURE_6_ULPDU = "4143 00000000 00000000 00000002 00000000" + "00".repeat(24);
    /** Figure 6's FPDU at stream octet 0x1ec, with a Marker at 0x200 whose FPDUPTR is 0x14. */
    static final String FIGURE_6_FPDU = "002a 4143 00000000 00000000 00000002 00000000" + "0000 0014"
            + "00".repeat(24) + "84925898";

    static byte[] figure6FirstUlpdu() {
        return bytes("4143 00000000 00000000 00000001 00000000" + "00".repeat(482 - 18));
    }

    @Test
    void framesFigure5ByteForByte() {
        assertThat(ReferenceFramer.frame(List.of(bytes(FIGURE_5_ULPDU)), true, true))
                .isEqualTo(bytes(FIGURE_5_FPDU));
    }

    @Test
    void framesFigure6ByteForByte() {
        byte[] wire = ReferenceFramer.frame(List.of(figure6FirstUlpdu(), bytes(FIGURE_6_ULPDU)), true, true);
        assertThat(wire).hasSize(0x1ec + 52);
        assertThat(java.util.Arrays.copyOfRange(wire, 0x1ec, wire.length)).isEqualTo(bytes(FIGURE_6_FPDU));
    }

    @Test
    void parsesFigures5And6Back() {
        byte[] wire = ReferenceFramer.frame(List.of(figure6FirstUlpdu(), bytes(FIGURE_6_ULPDU)), true, true);
        ReferenceFramer.Parsed p = ReferenceFramer.parse(wire, true, true);
        assertThat(p.errorCode()).isZero();
        assertThat(p.ulpdus()).containsExactly(figure6FirstUlpdu(), bytes(FIGURE_6_ULPDU));
    }

    @Test
    void roundTripsRandomUlpdusInEveryMode() {
        Random r = new Random(5044);
        for (int mode = 0; mode < 4; mode++) {
            boolean crc = (mode & 1) != 0;
            boolean markers = (mode & 2) != 0;
            for (int round = 0; round < 50; round++) {
                List<byte[]> ulpdus = new ArrayList<>();
                for (int n = r.nextInt(6); n > 0; n--) {
                    byte[] u = new byte[r.nextInt(r.nextBoolean() ? 40 : 3000)];
                    r.nextBytes(u);
                    ulpdus.add(u);
                }
                byte[] wire = ReferenceFramer.frame(ulpdus, crc, markers);
                ReferenceFramer.Parsed p = ReferenceFramer.parse(wire, crc, markers);
                assertThat(p.errorCode()).isZero();
                assertThat(p.ulpdus()).containsExactlyElementsOf(ulpdus);
            }
        }
    }

    @Test
    void reportsACorruptedCrcAndAMisplacedMarker() {
        byte[] wire = bytes(FIGURE_5_FPDU);
        wire[wire.length - 1] ^= 1;
        assertThat(ReferenceFramer.parse(wire, true, true).errorCode()).isEqualTo(ReferenceFramer.CRC_ERROR);
        byte[] marker = bytes(FIGURE_5_FPDU);
        marker[3] = 4;
        assertThat(ReferenceFramer.parse(marker, false, true).errorCode())
                .isEqualTo(ReferenceFramer.MARKER_OR_LENGTH_ERROR);
    }

    @Test
    void chunksCoverTheStreamExactly() {
        for (int spec = 0; spec < 256; spec++) {
            int[] c = FuzzSupport.chunks(spec, 1000);
            assertThat(java.util.Arrays.stream(c).sum()).isEqualTo(1000);
            assertThat(java.util.Arrays.stream(c).allMatch(n -> n > 0)).isTrue();
        }
    }
}
