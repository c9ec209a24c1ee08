package io.softrdma.interop;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;

/**
 * siw with {@code peer_to_peer=1}: as initiator it asks for MPA v2 peer-to-peer mode, offering both
 * the Write and the Read RTR; the Java server picks one, and siw sends it before the first Send.
 */
@DisplayName("siw peer_to_peer=1")
class SiwPeerToPeerInteropTest extends SiwInteropTestBase {
    @Override
    String vmName() {
        return "vm3-siw-peer-to-peer";
    }

    @Override
    List<String> siwParams() {
        return List.of("peer_to_peer=1");
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
    @Order(9)
    @DisplayName("9. siw rping -c with peer_to_peer=1 → Java server")
    void siwClientPeerToPeer() throws Exception {
        InteropCase c = InteropCase.javaServer(vm(), "case9", "siw rping -c → Java server, siw peer_to_peer=1",
                List.of());
        verify(c, () -> {
            assertAllPingsVerified(c);
            // siw offers both RTRs; the Java server picks one (WRITE when both are offered).
            assertThat(c.javaConnection()).as("the Java server's connection").containsPattern("RTR (WRITE|READ)");
        });
    }
}
