package io.softrdma.interop;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;

/**
 * siw with {@code mpa_version=1}: as initiator it sends an MPA revision 1 request, which carries no
 * IRD/ORD. Unlike case 6 this works: siw as initiator keeps the IRD/ORD that rping's
 * {@code rdma_connect()} asked for (its QP enters RTS with {@code ord=1, ird=1}), and the Java server,
 * which assumes IRD = ORD = 1 when revision 1 exchanged nothing, RDMA Reads the client's buffer
 * (IRD 1 on the siw side) without trouble. Observed and pinned: every ping, data verified, on both
 * sides.
 */
@DisplayName("siw mpa_version=1")
class SiwMpaVersion1InteropTest extends SiwInteropTestBase {
    @Override
    String vmName() {
        return "vm4-siw-mpa-v1";
    }

    @Override
    List<String> siwParams() {
        return List.of("mpa_version=1");
    }

    @Override
    int hostToGuestCases() {
        return 0;
    }

    @Override
    int guestToHostCases() {
        return 1;
    }

    @Test
    @Order(10)
    @DisplayName("10. siw rping -c with mpa_version=1 → Java server")
    void siwClientMpaRev1() throws Exception {
        InteropCase c = InteropCase.javaServer(vm(), "case10", "siw rping -c → Java server, siw mpa_version=1",
                List.of());
        verify(c, () -> {
            assertAllPingsVerified(c);
            assertThat(c.javaConnection()).as("the Java server's connection").startsWith("MPA revision 1");
            String conn = c.siwConnection();
            if (!conn.equals("?")) {
                assertThat(conn).as("siw's QP (IRD/ORD from rping's rdma_connect)").isEqualTo("crc=n ord=1 ird=1");
            }
        });
    }
}
