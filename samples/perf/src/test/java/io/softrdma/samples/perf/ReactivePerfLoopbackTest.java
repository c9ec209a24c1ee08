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
 * each next to RSocket over TCP, and the atomics next to raw TCP, with their rows in the table and in
 * JSON. Speed is not judged here; that the atomics' word holds what they imply is.
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
                "rx-request", "rsocket-rr", "rx-fetch-add", "tcp-fetch-add", "rx-compare-swap", "tcp-compare-swap");
        for (PerfResult r : results) {
            assertThat(r.iterations()).as("%s", r).isGreaterThanOrEqualTo(300);
            assertThat(r.messagesPerSecond()).as("%s", r).isPositive();
            assertThat(r.mibPerSecond()).as("%s", r).isPositive();
            if (r.test().endsWith("fetch-add") || r.test().endsWith("compare-swap")) {
                assertThat(r.size()).isEqualTo(8);
                assertThat(r.p50Micros()).as("%s", r).isPositive().isLessThanOrEqualTo(r.p99Micros());
                // 300 in the bandwidth phase; 300 warm-up round trips and 300 measured in the latency phase.
                assertThat(r.check()).as("%s", r).isEqualTo(r.test().endsWith("fetch-add")
                        ? "bandwidth: word 300 after 300 fetch-adds of 1; latency: word 600 after 600 fetch-adds of 1"
                        : "bandwidth: word 0 after 300 compare-swaps of 0 for 0, each finding 0; latency: word 600"
                                + " after 600 serial compare-swaps of v for v+1, each swapping");
            } else if (r.test().endsWith("-request") || r.test().endsWith("-rr")) {
                assertThat(r.p50Micros()).as("%s", r).isPositive().isLessThanOrEqualTo(r.p99Micros());
            } else {
                assertThat(r.p50Micros()).as("one-way streams have no round trip: %s", r).isNaN();
            }
        }
        String[] lines = bytes.toString(StandardCharsets.UTF_8).strip().split("\n");
        assertThat(lines).hasSize(results.size() + 1);
        assertThat(lines[0]).startsWith("{\"test\":\"rx-send\"");
        assertThat(lines[lines.length - 1]).startsWith("{\"ratios\":[")
                .contains("\"test\":\"rx-send\",\"vs\":\"rsocket-ff\"",
                        "\"test\":\"rx-request\",\"vs\":\"rsocket-rr\"",
                        "\"test\":\"rx-fetch-add\",\"vs\":\"tcp-fetch-add\"");

        ByteArrayOutputStream table = new ByteArrayOutputStream();
        try (PrintStream out = new PrintStream(table, true, StandardCharsets.UTF_8)) {
            ResultPrinter.printTable(out, results, options);
        }
        assertThat(table.toString(StandardCharsets.UTF_8)).contains("rx-send", "rsocket-ff", "rsocket-stream",
                "rx-request", "rsocket-rr", "rx/RSocket", "rx-send / rsocket-ff at 64 B",
                "rx-compare-swap / tcp-compare-swap at 8 B", "  rx-fetch-add: bandwidth: word 300");
    }
}
