package io.softrdma.samples.rping;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

/** The ping data: the capture's ping 0, and rping's loop transliterated for every other case. */
class RpingPatternTest {
    @Test
    void pingZeroIsWhatLinuxRpingSent() {
        // The Read Response in captures/g2h_default_rping.txt: 64 octets, the last one NUL.
        byte[] expected = ("rdma-ping-0: ABCDEFGHIJKLMNOPQRSTUVWXYZ[\\]^_`abcdefghijklmnopqr" + "\0")
                .getBytes(StandardCharsets.US_ASCII);
        assertThat(expected).hasSize(64);
        assertThat(RpingPattern.bytes(0, 64)).containsExactly(expected);
    }

    @Test
    void eachPingStartsOneCharacterLaterAndWrapsFromZToA() {
        assertThat(RpingPattern.startChar(0)).isEqualTo('A');
        assertThat(RpingPattern.startChar(1)).isEqualTo('B');
        assertThat(RpingPattern.startChar(57)).isEqualTo('z');
        assertThat(RpingPattern.startChar(58)).isEqualTo('A');
        assertThat(new String(RpingPattern.bytes(57, 64), StandardCharsets.US_ASCII))
                .startsWith("rdma-ping-57: zABC");
    }

    @Test
    void theRunWrapsWithinABuffer() {
        byte[] b = RpingPattern.bytes(0, 200);
        String s = new String(b, 0, 199, StandardCharsets.US_ASCII);
        // 13 octets of prefix, then 'A'..'z' (58), then 'A' again.
        assertThat(s.substring(13, 13 + 58)).startsWith("ABC").endsWith("xyz");
        assertThat(s.charAt(13 + 58)).isEqualTo('A');
        assertThat(b[199]).isZero();
    }

    @Test
    void theSmallestSizeHoldsTheLargestPingNumber() {
        byte[] b = RpingPattern.bytes(Integer.MAX_VALUE, RpingOptions.MIN_SIZE);
        String prefix = "rdma-ping-2147483647: ";
        assertThat(new String(b, 0, prefix.length(), StandardCharsets.US_ASCII)).isEqualTo(prefix);
        assertThat(b[RpingOptions.MIN_SIZE - 1]).isZero();
        assertThat(Arrays.copyOfRange(b, 0, RpingOptions.MIN_SIZE - 1)).doesNotContain((byte) 0);
    }

    @Test
    void matchesRpingsLoopForManyPingsAndSizes() {
        for (int size : new int[] {26, 27, 64, 100, 4096}) {
            // rping_test_client, line by line: start carries over from ping to ping.
            int start = 65;
            for (int ping = 0; ping < 300; ping++) {
                byte[] buf = new byte[size];
                byte[] text = ("rdma-ping-" + ping + ": ").getBytes(StandardCharsets.US_ASCII);
                int cc = text.length;
                System.arraycopy(text, 0, buf, 0, Math.min(cc, size - 1));
                int c = start;
                for (int i = cc; i < size; i++) {
                    buf[i] = (byte) c;
                    c = (c + 1) & 0xFF;
                    if (c > 122) {
                        c = 65;
                    }
                }
                start++;
                if (start > 122) {
                    start = 65;
                }
                buf[size - 1] = 0;
                assertThat(RpingPattern.bytes(ping, size)).as("ping %d, size %d", ping, size).containsExactly(buf);
            }
        }
    }
}
