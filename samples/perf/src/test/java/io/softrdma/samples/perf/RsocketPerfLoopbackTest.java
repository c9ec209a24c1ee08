package io.softrdma.samples.perf;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * {@code --api rsocket} end to end, briefly: one RSocket application over SoftRDMA and over TCP, every interaction
 * model at an inline size and at one that goes by RDMA Read (and as a slice of the shared payload), with the JSON
 * lines a script reads to compare each row with its TCP twin. Speed is not judged here (docs/benchmarks.md does);
 * that every row is there, named as the issue says, with every figure measured, is. Every payload is released:
 * the leak detector runs at PARANOID and fails the test otherwise.
 */
class RsocketPerfLoopbackTest {
    private static final List<String> FIELDS = List.of("size", "iterations", "msgsPerSec", "MiBps", "p50us", "p99us",
            "allocBytesPerOp");

    @Test
    @Timeout(120)
    void everyModelRunsOverSoftRdmaNextToItsTcpTwin() throws Exception {
        PerfOptions options = PerfOptions.parse(new String[] {"--api", "rsocket", "--size", "64,100000",
            "--iterations", "100", "--rounds", "1", "--warmup", "0", "--json", "--no-progress"});
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8)) {
            PerfMain.run(options, out);
        }
        List<JsonNode> lines = new ArrayList<>();
        for (String line : bytes.toString(StandardCharsets.UTF_8).strip().split("\n")) {
            lines.add(JsonMapper.shared().readTree(line));
        }
        List<String> expected = new ArrayList<>();
        for (String model : List.of("ff", "rr", "stream")) {
            for (int size : List.of(64, 100000)) {
                expected.add("rsocket-" + model + "-rdma " + size);
                expected.add("rsocket-" + model + "-tcp " + size);
            }
        }
        List<JsonNode> rows = lines.subList(0, lines.size() - 1);
        assertThat(rows).extracting(r -> r.path("test").asString() + " " + r.path("size").asInt())
                .containsExactlyElementsOf(expected);
        for (JsonNode row : rows) {
            for (String field : FIELDS) {
                assertThat(row.path(field).isNumber()).as("%s in %s", field, row).isTrue();
                assertThat(row.path(field).asDouble()).as("%s in %s", field, row).isPositive();
            }
            assertThat(row.path("iterations").asLong()).as("%s", row).isGreaterThanOrEqualTo(100);
            assertThat(row.path("p50us").asDouble()).as("%s", row).isLessThanOrEqualTo(row.path("p99us").asDouble());
            // MiB/s has two decimals: a 64-octet row of a few thousand messages a second shows 0.1 or so.
            assertThat(row.path("MiBps").asDouble()).as("MiB/s and messages/s agree in %s", row).isCloseTo(
                    row.path("msgsPerSec").asDouble() * row.path("size").asDouble() / (1024 * 1024),
                    org.assertj.core.data.Offset.offset(0.01));
        }
        JsonNode ratios = lines.get(lines.size() - 1).path("ratios");
        assertThat(ratios.size()).isEqualTo(6);
        for (JsonNode ratio : ratios) {
            assertThat(ratio.path("test").asString()).endsWith("-rdma");
            assertThat(ratio.path("vs").asString()).isEqualTo(ratio.path("test").asString().replace("-rdma", "-tcp"));
            assertThat(ratio.path("msgsPerSecRatio").asDouble()).as("%s", ratio).isPositive();
            assertThat(ratio.path("p50Ratio").asDouble()).as("%s", ratio).isPositive();
        }
    }

    /** {@code --rounds} (4 by default, 3 here): each phase in turns with the other transport, every one counted. */
    @Test
    @Timeout(120)
    void inTurnsEachRowStillCountsItsIterationsAndSaysItWasInTurns() throws Exception {
        PerfOptions options = PerfOptions.parse(new String[] {"--api", "rsocket", "--test", "rr,stream", "--size",
            "64,100000", "--iterations", "101", "--rounds", "3", "--warmup", "0", "--json", "--no-progress"});
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8)) {
            PerfMain.run(options, out);
        }
        String[] lines = bytes.toString(StandardCharsets.UTF_8).strip().split("\n");
        List<JsonNode> rows = new ArrayList<>();
        for (int i = 0; i < lines.length - 1; i++) {
            rows.add(JsonMapper.shared().readTree(lines[i]));
        }
        List<String> expected = new ArrayList<>();
        for (String model : List.of("rr", "stream")) {
            for (int size : List.of(64, 100000)) {
                expected.add("rsocket-" + model + "-rdma " + size);
                expected.add("rsocket-" + model + "-tcp " + size);
            }
        }
        assertThat(rows).extracting(r -> r.path("test").asString() + " " + r.path("size").asInt())
                .containsExactlyElementsOf(expected);
        for (JsonNode row : rows) {
            assertThat(row.path("rounds").asInt()).as("%s", row).isEqualTo(3);
            assertThat(row.path("iterations").asLong()).as("34 + 34 + 33 in %s", row).isGreaterThanOrEqualTo(101);
            for (String field : FIELDS) {
                assertThat(row.path(field).asDouble()).as("%s in %s", field, row).isPositive();
            }
            assertThat(row.path("p50us").asDouble()).as("%s", row).isLessThanOrEqualTo(row.path("p99us").asDouble());
        }
        assertThat(JsonMapper.shared().readTree(lines[lines.length - 1]).path("ratios").size()).isEqualTo(4);
    }

    @Test
    void inFlightWindowsAreTheOtherRowsUpToFourKibAndCappedBeyond() {
        assertThat(RsocketLoad.Windows.capped(64)).isEqualTo(RsocketLoad.Windows.FIXED);
        assertThat(RsocketLoad.Windows.capped(4096)).isEqualTo(RsocketLoad.Windows.FIXED);
        assertThat(RsocketLoad.Windows.capped(1024 * 1024)).isEqualTo(new RsocketLoad.Windows(32, 32, 8, 32));
        assertThat(RsocketLoad.Windows.capped(16 * 1024 * 1024)).isEqualTo(new RsocketLoad.Windows(4, 4, 1, 4));
    }
}
