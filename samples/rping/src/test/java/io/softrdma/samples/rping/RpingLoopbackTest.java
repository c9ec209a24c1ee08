package io.softrdma.samples.rping;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Client and server in one JVM on 127.0.0.1, as two rping processes would run: every MPA variant the
 * options offer, many pings, a large size; the summary lines and the connection parameters (-d) are
 * what a harness would read.
 */
class RpingLoopbackTest {
    private static final Duration EXIT = Duration.ofSeconds(20);

    static Stream<Arguments> variants() {
        return Stream.of(
                Arguments.of("MPA revision 2 (default)", List.of(), List.of(), 3, 64,
                        List.of("MPA revision 2 enhanced", "CRC off", "IRD 1 ORD 1", "RTR NONE")),
                Arguments.of("MPA revision 1", List.of("--mpa-rev", "1"), List.of("--mpa-rev", "1"), 3, 64,
                        List.of("MPA revision 1 (no IRD/ORD exchanged)", "queue pair IRD 1 ORD 1")),
                Arguments.of("client on rev 1, server on rev 2", List.of("--mpa-rev", "1"), List.of(), 2, 64,
                        List.of("MPA revision 1")),
                Arguments.of("CRC on", List.of("--crc", "on"), List.of(), 3, 64, List.of("CRC on")),
                Arguments.of("CRC asked by the server", List.of(), List.of("--crc", "on"), 3, 64, List.of("CRC on")),
                Arguments.of("peer-to-peer, Write RTR", List.of("--p2p", "write"), List.of(), 3, 64,
                        List.of("RTR WRITE")),
                Arguments.of("peer-to-peer, Read RTR", List.of("--p2p", "read"), List.of("--p2p", "read"), 3, 64,
                        List.of("RTR READ")),
                Arguments.of("peer-to-peer, any", List.of("--p2p", "any"), List.of("--p2p", "any"), 3, 64,
                        List.of("RTR WRITE")),
                Arguments.of("100 pings", List.of(), List.of(), 100, 64, List.of()),
                Arguments.of("4096 octets", List.of("-S", "4096"), List.of(), 20, 4096, List.of()),
                Arguments.of("smallest size", List.of("-S", "26"), List.of("-S", "26"), 60, 26, List.of()));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("variants")
    void pingsAreServedAndVerified(String name, List<String> clientExtra, List<String> serverExtra, int count,
            int size, List<String> negotiated) throws Exception {
        List<String> serverArgs = new ArrayList<>(List.of("-V", "-v"));
        serverArgs.addAll(serverExtra);
        RpingRun server = RpingRun.server(serverArgs.toArray(String[]::new));
        List<String> clientArgs = new ArrayList<>(List.of("-c", "-a", "127.0.0.1", "-p",
                Integer.toString(server.port()), "-C", Integer.toString(count), "-v", "-V", "-d", "--timeout", "10"));
        clientArgs.addAll(clientExtra);
        RpingRun client = RpingRun.start(clientArgs.toArray(String[]::new));

        assertThat(client.exitCode(EXIT)).as("%s", client).isZero();
        assertThat(server.exitCode(EXIT)).as("the server ends with the client's connection: %s", server).isZero();
        assertThat(client.err()).as("%s", client).isEmpty();
        assertThat(server.err()).as("%s", server).isEmpty();
        assertThat(client.out()).as("%s", client).contains("rping: " + count + " pings completed, data verified\n");
        assertThat(server.out()).as("%s", server)
                .contains("rping: connection from 127.0.0.1: " + count + " pings served, data verified\n");
        String last = new String(RpingPattern.bytes(count - 1, size), 0, size - 1,
                java.nio.charset.StandardCharsets.US_ASCII);
        assertThat(client.out()).contains("ping data: " + last + "\n");
        assertThat(server.out()).contains("server ping data: " + last + "\n");
        assertThat(client.out().lines().filter(l -> l.startsWith("ping data: "))).hasSize(count);
        String connected = client.out().lines().filter(l -> l.startsWith("rping: debug: connected ")).findFirst()
                .orElseThrow();
        for (String n : negotiated) {
            assertThat(connected).contains(n);
        }
    }

    @Test
    void withoutValidationTheSummarySaysSo() throws Exception {
        RpingRun server = RpingRun.server();
        RpingRun client = RpingRun.start("-c", "-a", "127.0.0.1", "-p", Integer.toString(server.port()), "-C", "2");
        assertThat(client.exitCode(EXIT)).as("%s", client).isZero();
        assertThat(server.exitCode(EXIT)).as("%s", server).isZero();
        assertThat(client.out()).isEqualTo("rping: 2 pings completed\n");
        assertThat(server.out()).endsWith("rping: connection from 127.0.0.1: 2 pings served\n");
    }

    @Test
    void aPersistentServerServesOneClientAfterAnother() throws Exception {
        RpingRun server = RpingRun.server("-P", "-V");
        for (int i = 1; i <= 2; i++) {
            RpingRun client = RpingRun.start("-c", "-a", "127.0.0.1", "-p", Integer.toString(server.port()), "-C",
                    Integer.toString(i), "-V");
            assertThat(client.exitCode(EXIT)).as("%s", client).isZero();
        }
        await().atMost(EXIT).untilAsserted(() -> assertThat(server.out()).as("%s", server).contains(
                "rping: connection from 127.0.0.1: 1 pings served, data verified\n",
                "rping: connection from 127.0.0.1: 2 pings served, data verified\n"));
        assertThat(server.finished()).as("-P keeps serving").isFalse();
        server.interrupt();
        assertThat(server.exitCode(EXIT)).isZero();
        assertThat(server.err()).isEmpty();
    }
}
