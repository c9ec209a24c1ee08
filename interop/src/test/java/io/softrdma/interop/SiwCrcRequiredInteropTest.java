package io.softrdma.interop;

import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;

/**
 * siw with {@code mpa_crc_required=1}. As initiator siw asks for CRC (C=1) and the Java server
 * must use it (case 8). As responder (case 3) the parameter was expected to force CRC on, but siw
 * 6.1 does not: {@code siw_proc_mpareq()} sets the C bit for {@code mpa_crc_required} only inside
 * {@code if (req->params.bits & MPA_RR_FLAG_CRC)}, i.e. only when the initiator already asked for
 * CRC. An initiator that asks C=0 gets a C=0 reply and a connection without CRC (siw's debug log says
 * {@code crc=n}). The case pins that: both ends agree on CRC off, and every ping works.
 */
@DisplayName("siw mpa_crc_required=1")
class SiwCrcRequiredInteropTest extends SiwInteropTestBase {
    @Override
    String vmName() {
        return "vm2-siw-crc-required";
    }

    @Override
    List<String> siwParams() {
        return List.of("mpa_crc_required=1");
    }

    @Override
    int hostToGuestCases() {
        return 1;
    }

    @Override
    int guestToHostCases() {
        return 1;
    }

    @Test
    @Order(3)
    @DisplayName("3. Java client --crc off → siw rping -s with mpa_crc_required=1 (siw 6.1 leaves CRC off)")
    void javaClientCrcOffAgainstCrcRequired() throws Exception {
        InteropCase c = InteropCase.javaClient(vm(), "case3",
                "Java client --crc off → siw rping -s, siw mpa_crc_required=1", List.of("--crc", "off"));
        verify(c, () -> {
            assertAllPingsVerified(c);
            // siw's reply echoes C=0 despite mpa_crc_required (see the class comment): both ends without CRC.
            assertCrc(c, false);
        });
    }

    @Test
    @Order(8)
    @DisplayName("8. siw rping -c with mpa_crc_required=1 → Java server")
    void siwClientCrcRequired() throws Exception {
        InteropCase c = InteropCase.javaServer(vm(), "case8", "siw rping -c → Java server, siw mpa_crc_required=1",
                List.of());
        verify(c, () -> {
            assertAllPingsVerified(c);
            assertCrc(c, true);
        });
    }
}
