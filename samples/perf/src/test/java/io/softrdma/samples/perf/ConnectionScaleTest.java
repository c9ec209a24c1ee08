package io.softrdma.samples.perf;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

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
 * {@code perf --connections} end to end, briefly: a few connections at once, verbs and reactive, with the JSON
 * fields a script reads. Speed is not judged here (docs/benchmarks.md's job); that every connection's operations
 * are counted into the aggregate, and that the memory figures are there and plausible, is.
 */
class ConnectionScaleTest {
    @Test
    @Timeout(120)
    void everyConnectionCountsAndEachRowCarriesItsMemory() throws Exception {
        PerfOptions options = PerfOptions.parse(new String[] {"--connections", "1,3", "--api", "all", "--duration",
            "0.3", "--warmup", "0.2", "--json", "--no-progress"});
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        List<PerfResult> results;
        try (PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8)) {
            results = PerfMain.run(options, out);
        }
        assertThat(results).extracting(r -> r.test() + "×" + r.scale().connections()).containsExactly("send×1",
                "send×3", "read×1", "read×3", "rx-send×1", "rx-send×3", "rx-request×1", "rx-request×3");
        List<JsonNode> lines = new ArrayList<>();
        for (String line : bytes.toString(StandardCharsets.UTF_8).strip().split("\n")) {
            lines.add(JsonMapper.shared().readTree(line));
        }
        assertThat(lines).hasSize(results.size());
        for (JsonNode row : lines) {
            String what = row.toString();
            int n = row.get("connections").asInt();
            assertThat(row.get("size").asInt()).as(what).isEqualTo(64);
            double aggregate = row.get("aggregateMsgsPerSec").asDouble();
            assertThat(aggregate).as(what).isPositive().isEqualTo(row.get("msgsPerSec").asDouble());
            assertThat(row.get("perConnectionMsgsPerSec").asDouble()).as(what).isCloseTo(aggregate / n,
                    org.assertj.core.data.Offset.offset(0.1));
            assertThat(row.get("iterations").asLong()).as(what).isPositive();
            for (String field : List.of("serverHeapBytesPerConnectionIdle", "serverHeapBytesPerConnectionBusy",
                    "serverDirectBytesPerConnectionIdle", "serverDirectBytesPerConnectionBusy")) {
                assertThat(row.get(field).isNumber()).as(field + " in " + what).isTrue();
            }
            assertThat(row.get("memoryScope").asString()).isEqualTo("process: the server and its clients");
            // What the server's sessions registered is exact: at least their receive buffers.
            double idle = row.get("serverRegisteredBytesPerConnectionIdle").asDouble();
            double busy = row.get("serverRegisteredBytesPerConnectionBusy").asDouble();
            if (row.get("test").asString().startsWith("rx-")) {
                // Three dedicated 4 KiB receive buffers and a chunk of 8 send slots, plus what the pool lends.
                assertThat(idle).as(what).isEqualTo((3 + 8) * 4096.0);
                assertThat(busy).as(what).isBetween(idle, (128 + 64) * 4096.0);
                assertThat(row.get("receivePool").asString()).isEqualTo(Long.toString(64L << 20));
            } else {
                assertThat(idle).as(what).isPositive().isEqualTo(busy);
                assertThat(row.get("receivePool").isNull()).isTrue();
            }
        }
        ByteArrayOutputStream table = new ByteArrayOutputStream();
        try (PrintStream out = new PrintStream(table, true, StandardCharsets.UTF_8)) {
            ResultPrinter.printTable(out, results, options);
        }
        assertThat(table.toString(StandardCharsets.UTF_8)).contains("perf --connections", "rx-request", "1.00x",
                "the server's receive pool of 64.0M");
    }

    @Test
    @Timeout(60)
    void withoutAPoolEachSessionRegistersItsWholeReceiveQueue() throws Exception {
        PerfOptions options = PerfOptions.parse(new String[] {"--connections", "2", "--api", "reactive", "--test",
            "send", "--receive-pool", "off", "--duration", "0.2", "--warmup", "0", "--json", "--no-progress"});
        List<PerfResult> results = PerfMain.run(options, new PrintStream(new ByteArrayOutputStream(), true,
                StandardCharsets.UTF_8));
        assertThat(results).hasSize(1);
        ConnectionScale.Scale s = results.get(0).scale();
        assertThat(s.receivePool()).isEqualTo("off");
        assertThat(s.idle().registeredPerConnection()).isEqualTo((128 + 8) * 4096.0);
    }

    @Test
    void tooFewFileDescriptorsSayWhatToRaise() {
        assertThatThrownBy(() -> ConnectionScale.checkDescriptors(10_000_000, 2))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("--connections 10000000 needs about 20000064 more file descriptors")
                .hasMessageContaining("ulimit -n").hasMessageContaining("perf changes no system setting");
        ConnectionScale.checkDescriptors(4, 2); // a few always fit
    }

    @Test
    void optionsSayWhatConnectionsCanRun() {
        PerfOptions o = PerfOptions.parse(new String[] {"--connections", "1,64,1024", "--api", "all"});
        assertThat(o.connections()).containsExactly(1, 64, 1024);
        assertThat(o.tests()).containsExactly(PerfProtocol.Test.SEND, PerfProtocol.Test.READ);
        assertThat(o.reactiveTests()).containsExactly(PerfOptions.ReactiveTest.SEND, PerfOptions.ReactiveTest.REQUEST);
        assertThat(o.sizes()).containsExactly(64);
        assertThat(o.baseline()).isFalse();
        assertThat(o.receivePool()).isEqualTo(-1);
        assertThat(PerfOptions.parse(new String[] {"--connections", "8", "--api", "reactive", "--receive-pool", "8M"})
                .receivePool()).isEqualTo(8L << 20);
        assertThatThrownBy(() -> PerfOptions.parse(new String[] {"--connections", "0"}))
                .hasMessageContaining("must be 1 to 4096");
        assertThatThrownBy(() -> PerfOptions.parse(new String[] {"--connections", "4", "--test", "atomic"}))
                .hasMessageContaining("drop atomic from --test");
        assertThatThrownBy(() -> PerfOptions.parse(new String[] {"--connections", "4", "--iterations", "10"}))
                .hasMessageContaining("drop --iterations");
        assertThatThrownBy(() -> PerfOptions.parse(new String[] {"--receive-pool", "8M"}))
                .hasMessageContaining("add --connections N --api reactive");
        assertThatThrownBy(() -> PerfOptions.parse(new String[] {"--connections", "4", "--receive-pool", "8M"}))
                .hasMessageContaining("add --api reactive");
    }
}
