package io.softrdma.samples.perf;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The perf sample end to end in one process, briefly: every test at a small and a multi-segment size,
 * over SoftRDMA and raw TCP, with the JSON lines a script would read. Speed is not judged here (that
 * is docs/benchmarks.md's job); that every operation completes and is counted is.
 */
class PerfLoopbackTest {
    @Test
    void everyTestCompletesAndReportsJsonLines() throws Exception {
        PerfOptions options = PerfOptions.parse(new String[] {"--size", "64,100000", "--iterations", "300",
            "--warmup", "0", "--json", "--no-progress"});
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        List<PerfResult> results;
        try (PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8)) {
            results = PerfMain.run(options, out);
        }
        assertThat(results).extracting(PerfResult::test).containsExactly("write", "tcp-write", "write",
                "tcp-write", "read", "tcp-read", "read", "tcp-read", "send", "tcp-send", "send", "tcp-send");
        for (PerfResult r : results) {
            assertThat(r.iterations()).as("%s", r).isGreaterThanOrEqualTo(300);
            assertThat(r.mibPerSecond()).as("%s", r).isPositive();
            assertThat(r.messagesPerSecond()).as("%s", r).isPositive();
            assertThat(r.p50Micros()).as("%s", r).isPositive().isLessThanOrEqualTo(r.p99Micros());
        }
        String[] lines = bytes.toString(StandardCharsets.UTF_8).strip().split("\n");
        assertThat(lines).hasSize(results.size());
        for (String line : lines) {
            assertThat(line).startsWith("{\"test\":\"").endsWith("}")
                    .contains("\"size\":", "\"iterations\":", "\"MiBps\":", "\"msgsPerSec\":", "\"p50us\":",
                            "\"p99us\":");
        }
    }

    @Test
    void twoProcessModeServesAClient() throws Exception {
        // The server runs until its process ends (or, here, its thread is interrupted).
        int port = freePort();
        Thread server = new Thread(() -> {
            try {
                PerfMain.run(PerfOptions.parse(new String[] {"--server", "--port", Integer.toString(port)}),
                        new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        }, "perf-test-server");
        server.setDaemon(true);
        server.start();
        PerfOptions client = PerfOptions.parse(new String[] {"--connect", "127.0.0.1:" + port, "--test", "write,send",
            "--size", "4K", "--iterations", "200", "--warmup", "0", "--json", "--no-progress"});
        List<PerfResult> results = null;
        for (int attempt = 0; results == null; attempt++) {
            try {
                results = PerfMain.run(client, new PrintStream(new ByteArrayOutputStream(), true,
                        StandardCharsets.UTF_8));
            } catch (Exception e) {
                if (attempt > 50) {
                    throw e;
                }
                Thread.sleep(100); // the server thread is still binding
            }
        }
        assertThat(results).extracting(PerfResult::test).containsExactly("write", "send");
        assertThat(results).allSatisfy(r -> assertThat(Double.isNaN(r.serverCpu())).isTrue());
        server.interrupt();
        server.join(10_000);
        assertThat(server.isAlive()).as("the server stops when interrupted").isFalse();
    }

    private static int freePort() throws Exception {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }
}
