package io.softrdma.samples.perftest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import org.junit.jupiter.api.Test;

/** perftest's wire formats and command line, octet for octet and flag for flag. */
class PerftestFormatsTest {
    @Test
    void pingpongDestIsFiftySixBigEndianOctetsWithPaddingBeforeVaddr() {
        byte[] gid = new byte[16];
        gid[15] = 9;
        byte[] m = new PingpongDest(1, 128, 0x11, 0xABCDEF, 0x1234_5678, 0x7F00_0000_1000L, gid, 5, 6).encode();
        assertThat(m).hasSize(56);
        ByteBuffer b = ByteBuffer.wrap(m);
        assertThat(b.getInt(0)).isEqualTo(1);
        assertThat(b.getInt(4)).isEqualTo(128);
        assertThat(b.getInt(8)).isEqualTo(0x11);
        assertThat(b.getInt(12)).isEqualTo(0xABCDEF);
        assertThat(b.getInt(16)).isEqualTo(0x1234_5678);
        assertThat(b.getInt(20)).as("padding: vaddr is 8-aligned in the C struct").isZero();
        assertThat(b.getLong(24)).isEqualTo(0x7F00_0000_1000L);
        assertThat(m[47]).isEqualTo((byte) 9);
        assertThat(b.getInt(48)).isEqualTo(5);
        assertThat(b.getInt(52)).isEqualTo(6);
        PingpongDest back = PingpongDest.decode(m);
        assertThat(back.rkey()).isEqualTo(0x1234_5678);
        assertThat(back.vaddr()).isEqualTo(0x7F00_0000_1000L);
        assertThatThrownBy(() -> PingpongDest.decode(new byte[55])).hasMessageContaining("56 octets");
    }

    @Test
    void bandwidthLineIsPerftestsReportFormat() {
        String l = new Reports.Bw(65536, 5000, 1076.76, 232.06, 0.003713).line();
        assertThat(l).isEqualTo(" 65536      5000             1076.76            232.06 \t\t   0.003713");
    }

    @Test
    void optionsHavePerftestsDefaults() {
        PerftestOptions w = PerftestOptions.parse(new String[] {"ib_write_bw", "-R"});
        assertThat(w.client()).isFalse();
        assertThat(w.port()).isEqualTo(18515);
        assertThat(w.size()).isEqualTo(65536);
        assertThat(w.iterations()).isEqualTo(5000);
        assertThat(w.txDepth()).isEqualTo(128);
        PerftestOptions l = PerftestOptions.parse(new String[] {"send_lat", "-R", "-n", "300", "host"});
        assertThat(l.client()).isTrue();
        assertThat(l.size()).isEqualTo(2);
        assertThat(l.rxDepth()).as("perftest: no deeper than the iterations").isEqualTo(300);
        PerftestOptions a = PerftestOptions.parse(new String[] {"ib_read_bw", "-R", "-a", "--report_gbits", "-q", "2"});
        assertThat(a.sizes()).hasSize(23).startsWith(2).endsWith(8388608);
        assertThat(a.gbits()).isTrue();
        assertThat(a.qps()).isEqualTo(2);
    }

    @Test
    void wrongCommandLinesAreRefusedWithTheReason() {
        assertThatThrownBy(() -> PerftestOptions.parse(new String[] {"ib_write_bw"})).hasMessageContaining("-R");
        assertThatThrownBy(() -> PerftestOptions.parse(new String[] {"ib_foo_bw", "-R"}))
                .hasMessageContaining("ib_send_bw");
        assertThatThrownBy(() -> PerftestOptions.parse(new String[] {"ib_write_bw", "-R", "-s", "64", "-a"}))
                .hasMessageContaining("-a");
        assertThatThrownBy(() -> PerftestOptions.parse(new String[] {"ib_write_bw", "-R", "-n", "2"}))
                .hasMessageContaining("-n");
        assertThatThrownBy(() -> PerftestOptions.parse(new String[] {"ib_write_bw", "-R", "-p", "0", "h"}))
                .hasMessageContaining("-p 0");
    }
}
