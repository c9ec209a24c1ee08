package io.softrdma.samples.perf;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@code --api reactive} end to end, briefly: the reactive send/receive stream and request/response,
 * each next to RSocket over TCP, with their rows in the table and in JSON. Speed is not judged here.
 */
class ReactivePerfLoopbackTest {
    @Test
    @Timeout(30)
    void reactiveRowsStandNextToRsocketRows() throws Exception {
        PerfOptions options = PerfOptions.parse(new String[] {"--api", "reactive", "--size", "64", "--iterations",
            "300", "--warmup", "0", "--json", "--no-progress"});
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        List<PerfResult> results;
        try (PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8)) {
            results = PerfMain.run(options, out);
        }
        assertThat(results).extracting(PerfResult::test).containsExactly("rx-send", "rsocket-ff", "rsocket-stream",
                "rx-request", "rsocket-rr");
        for (PerfResult r : results) {
            assertThat(r.iterations()).as("%s", r).isGreaterThanOrEqualTo(300);
            assertThat(r.messagesPerSecond()).as("%s", r).isPositive();
            assertThat(r.mibPerSecond()).as("%s", r).isPositive();
            if (r.test().endsWith("-request") || r.test().endsWith("-rr")) {
                assertThat(r.p50Micros()).as("%s", r).isPositive().isLessThanOrEqualTo(r.p99Micros());
            } else {
                assertThat(r.p50Micros()).as("one-way streams have no round trip: %s", r).isNaN();
            }
        }
        String[] lines = bytes.toString(StandardCharsets.UTF_8).strip().split("\n");
        assertThat(lines).hasSize(results.size() + 1);
        assertThat(lines[0]).startsWith("{\"test\":\"rx-send\"");
        assertThat(lines[lines.length - 1]).startsWith("{\"ratios\":[")
                .contains("\"test\":\"rx-send\",\"vs\":\"rsocket-ff\"", "\"test\":\"rx-request\",\"vs\":\"rsocket-rr\"");

        ByteArrayOutputStream table = new ByteArrayOutputStream();
        try (PrintStream out = new PrintStream(table, true, StandardCharsets.UTF_8)) {
            ResultPrinter.printTable(out, results, options);
        }
        assertThat(table.toString(StandardCharsets.UTF_8)).contains("rx-send", "rsocket-ff", "rsocket-stream",
                "rx-request", "rsocket-rr", "rx/RSocket", "rx-send / rsocket-ff at 64 B");
    }
}
