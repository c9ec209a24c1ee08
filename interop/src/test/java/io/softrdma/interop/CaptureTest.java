package io.softrdma.interop;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * {@link Capture} on traffic whose faults are known: wire-check's own generator ({@code wire-check-selftest gen})
 * plays an MPA initiator and responder on loopback and, in its {@code bad-crc} case, the initiator sends one FPDU
 * (an RDMA Write) with a corrupted CRC32c (RFC 5044 §4.4). The capture must find that FPDU and lay it at the
 * initiator's door, not the responder's.
 */
@Tag("interop")
class CaptureTest {
    @Test
    void aWrongCrcOnTheWireIsFoundAndLaidAtTheSendersDoor() throws Exception {
        Capture capture = capture("bad-crc");
        assertThat(capture.verdict()).as(capture.describe()).contains("bad CRC32c");
        int responder = capture.port;
        assertThat(capture.badCrcSourcePorts()).as("the source port of the one FPDU with a wrong CRC").singleElement()
                .satisfies(port -> assertThat(port).isPositive().isNotEqualTo(responder));
        assertThat(capture.badCrcOnlyFrom(port -> port != responder)).as("sent by the initiator: " + capture.describe())
                .isTrue();
        assertThat(capture.badCrcOnlyFrom(port -> port == responder)).as("not by the responder").isFalse();
        assertThat(capture.describe()).contains("bad CRCs sent from TCP port(s)");
    }

    @Test
    void rightCrcsAreNobodysFault() throws Exception {
        Capture capture = capture("good");
        assertThat(capture.verdict()).as(capture.describe()).startsWith("wire-check: OK");
        assertThat(capture.badCrcOnlyFrom(port -> true)).isFalse();
        capture.discard();
        assertThat(capture.file).doesNotExist();
    }

    private static Capture capture(String generatorCase) throws Exception {
        Path selftest = Harness.wireCheck().resolveSibling("wire-check-selftest");
        Assumptions.assumeTrue(Files.isExecutable(selftest), () -> "wire-check-selftest not found at " + selftest);
        Assumptions.assumeTrue(Harness.onPath("dumpcap") && Harness.onPath("tshark"),
                "dumpcap or tshark is not installed (.ci/run installs tshark)");
        int port = Ports.free();
        Path dir = Harness.LOG_DIR.resolve("capture-test");
        Files.createDirectories(dir);
        Capture capture = Capture.start(dir.resolve(generatorCase + ".pcapng"), port);
        assertThat(capture.skipped).isNull();
        Harness.Run gen = Harness.run(dir.resolve(generatorCase + ".gen.txt"), 60, selftest.toString(), "gen",
                "--port", Integer.toString(port), "--case", generatorCase);
        assertThat(gen.status()).as("wire-check-selftest gen: %s", gen.output()).isZero();
        capture.stop();
        return capture;
    }
}
