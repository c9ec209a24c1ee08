package io.softrdma.interop;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;

/**
 * siw with its default parameters (MPA v2 "enhanced" with IRD/ORD, CRC not required, no P2P as
 * initiator): cases 1, 2, 4, 5 and 6 (Java client → siw {@code rping -s}) and 7 (siw
 * {@code rping -c} → Java server), all in one boot.
 */
@DisplayName("siw default parameters")
class SiwDefaultParamsInteropTest extends SiwInteropTestBase {
    @Override
    String vmName() {
        return "vm1-siw-defaults";
    }

    @Override
    List<String> siwParams() {
        return List.of();
    }

    @Override
    int hostToGuestCases() {
        return 6;
    }

    @Override
    int guestToHostCases() {
        return 2;
    }

    @Test
    @Order(1)
    @DisplayName("1. Java client → siw rping -s, MPA v2, CRC off")
    void javaClientMpaV2CrcOff() throws Exception {
        InteropCase c = InteropCase.javaClient(vm(), "case1", "Java client → siw rping -s, MPA v2, CRC off",
                List.of("--mpa-rev", "2", "--crc", "off"));
        verify(c, () -> {
            assertAllPingsVerified(c);
            assertCrc(c, false);
            // The Java client offered RFC 7306 in its private data; siw ignored it and answered none.
            assertThat(c.javaConnection()).as("the Java client's connection").contains("RFC 7306 agreed: none");
        });
    }

    @Test
    @Order(2)
    @DisplayName("2. Java client → siw rping -s, MPA v2, CRC on")
    void javaClientMpaV2CrcOn() throws Exception {
        InteropCase c = InteropCase.javaClient(vm(), "case2", "Java client → siw rping -s, MPA v2, CRC on",
                List.of("--mpa-rev", "2", "--crc", "on"));
        verify(c, () -> {
            assertAllPingsVerified(c);
            assertCrc(c, true);
        });
    }

    @Test
    @Order(4)
    @DisplayName("4. Java client → siw rping -s, MPA v2 peer-to-peer, Write RTR")
    void javaClientPeerToPeerWrite() throws Exception {
        InteropCase c = InteropCase.javaClient(vm(), "case4", "Java client → siw rping -s, P2P write RTR",
                List.of("--p2p", "write"));
        verify(c, () -> {
            assertAllPingsVerified(c);
            assertThat(c.javaConnection()).as("the Java client's connection").contains("RTR WRITE");
        });
    }

    @Test
    @Order(5)
    @DisplayName("5. Java client → siw rping -s, MPA v2 peer-to-peer, Read RTR")
    void javaClientPeerToPeerRead() throws Exception {
        InteropCase c = InteropCase.javaClient(vm(), "case5", "Java client → siw rping -s, P2P read RTR",
                List.of("--p2p", "read"));
        verify(c, () -> {
            assertAllPingsVerified(c);
            assertThat(c.javaConnection()).as("the Java client's connection").contains("RTR READ");
        });
    }

    /**
     * MPA revision 1 carries no IRD/ORD: siw's rping server ends up with IRD = ORD = 0, its RDMA Read
     * post fails and it disconnects. The Java client must say so and exit 1, well within its timeout.
     */
    @Test
    @Order(6)
    @DisplayName("6. Java client --mpa-rev 1 → siw rping -s: a clear error, no hang")
    void javaClientMpaRev1FailsClearly() throws Exception {
        InteropCase c = InteropCase.javaClient(vm(), "case6",
                "Java client --mpa-rev 1 → siw rping -s (expected failure)", List.of("--mpa-rev", "1"));
        verify(c, () -> {
            assertThat(c.javaRc).as("Java rping exit code (null: it hung and was killed)").isEqualTo(1);
            assertThat(c.java.err()).as("Java rping's stderr").containsPattern("(?m)^rping: error:");
            assertThat(c.java.err()).as("the error names MPA revision 1 as the cause")
                    .containsIgnoringCase("revision 1");
            assertThat(c.java.err()).as("the error explains IRD/ORD").containsPattern("IRD|ORD");
            assertThat(c.java.seconds()).as("seconds to fail, with --timeout %d", InteropCase.JAVA_TIMEOUT)
                    .isLessThan(InteropCase.JAVA_TIMEOUT / 3.0);
            assertThat(c.javaPings()).as("pings the Java client reports as completed").isEqualTo(-1);
            assertThat(c.siwRc).as("siw rping -s exit code (null: it was still running)").isNotNull().isNotZero();
            assertThat(c.siw.output() + c.siw.errors()).as("siw rping -s output").contains("post send error");
            assertThat(c.siwPings()).as("pings siw served").isZero();
            String conn = c.siwConnection();
            if (!conn.equals("?")) {
                assertThat(conn).as("siw's QP without IRD/ORD from MPA v1").endsWith("ord=0 ird=0");
            }
        });
    }

    @Test
    @Order(7)
    @DisplayName("7. siw rping -c → Java server, siw defaults (MPA v2 enhanced)")
    void siwClientDefaults() throws Exception {
        InteropCase c = InteropCase.javaServer(vm(), "case7", "siw rping -c → Java server, siw defaults", List.of());
        verify(c, () -> {
            assertAllPingsVerified(c);
            assertCrc(c, false);
            assertThat(c.javaConnection()).as("the Java server's connection").contains("RFC 7306 agreed: none");
        });
    }

    /**
     * Not in the matrix: the largest rping size, 65535 octets, so that every RDMA Read
     * Response and RDMA Write spans three DDP segments (MULPDU 32762 here), with CRC on. siw's rping
     * server reads into a buffer of its own -S size, so it gets -S 65535 too; it runs without -v (no
     * 64 KiB lines), so only the Java client counts the pings.
     */
    @Test
    @Order(11)
    @DisplayName("11 (extra). Java client -S 65535 --crc on → siw rping -s -S 65535: multi-segment Read and Write")
    void javaClientLargePings() throws Exception {
        InteropCase c = InteropCase.javaClient(vm(), "case11",
                "Java client -S 65535 --crc on → siw rping -s -S 65535", List.of("-S", "65535", "--crc", "on"),
                "-S 65535");
        verify(c, () -> {
            assertAllPingsVerified(c);
            assertCrc(c, true);
        });
    }

    /** Not in the matrix: the same size the other way round (siw's client checks the data, -V). */
    @Test
    @Order(12)
    @DisplayName("12 (extra). siw rping -c -S 65535 → Java server: multi-segment Read and Write")
    void siwClientLargePings() throws Exception {
        InteropCase c = InteropCase.javaServer(vm(), "case12", "siw rping -c -S 65535 → Java server", List.of(),
                "-S 65535 -V");
        verify(c, () -> assertAllPingsVerified(c));
    }
}
