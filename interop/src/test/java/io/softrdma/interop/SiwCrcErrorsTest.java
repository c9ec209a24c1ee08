package io.softrdma.interop;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** {@link SiwCrcErrors} on the lines the siw guest logged, and on lines a wrong CRC would give. */
@Tag("interop")
class SiwCrcErrorsTest {
    @Test
    void theLinesSeenShowTheSplitTrailerBug() {
        // From four boots of the NFS guest (Linux 6.1 siw, NFS WRITE of 16 MiB with CRC on); captures of such a run
        // on the host found every FPDU's CRC right.
        for (String line : new String[] {"[   29.706283] siw: crc error. in: ebc4ad9b, own 9bc4adfa, op 2",
            "siw: crc error. in: 171b7396, own 961b735d, op 2", "siw: crc error. in: 48580129, own 295801b9, op 2",
            "siw: crc error. in: 9e1904f7, own f71904fc, op 2"}) {
            assertThat(SiwCrcErrors.isSplitTrailer(line)).as(line).isTrue();
        }
    }

    @Test
    void otherMismatchesDoNot() {
        assertThat(SiwCrcErrors.isSplitTrailer("siw: crc error. in: 12345678, own 9abcdef0, op 2")).isFalse();
        assertThat(SiwCrcErrors.isSplitTrailer("siw: crc error. in: 9bc4adfa, own 9bc4adfa, op 2")).isFalse();
        assertThat(SiwCrcErrors.isSplitTrailer("siw: something else")).isFalse();
        assertThat(SiwCrcErrors.find("a\nsiw: crc error. in: 171b7396, own 961b735d, op 2\nb")).hasSize(1);
    }
}
