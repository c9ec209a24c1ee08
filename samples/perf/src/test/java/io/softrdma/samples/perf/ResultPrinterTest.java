package io.softrdma.samples.perf;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/** The {@code --json} lines, read back by a JSON parser: one object per line, the fields and types scripts use. */
class ResultPrinterTest {
    private static final JsonMapper JSON = JsonMapper.shared();

    @Test
    void eachResultIsOneLineOfOneObjectWithEveryField() {
        PerfOptions options = PerfOptions.parse(new String[] {"--transport", "nio", "--crc", "off", "--markers", "on"});
        List<String> lines = print(out -> {
            ResultPrinter.printJson(out, new PerfResult("write", 4096, 300, 1234.567, 315_949.12, 12.34, 56.78, 0.987,
                    0.5, 0.04, null), options);
            ResultPrinter.printJson(out, new PerfResult("tcp-fetch-add", 8, 200, 1.5, 196_608, 20, 30, 1, Double.NaN,
                    Double.NaN, "bandwidth: word 200 after 200 fetch-adds of 1"), options);
        });
        assertThat(lines).hasSize(2);
        JsonNode write = object(lines.get(0));
        assertThat(fieldNames(write)).containsExactly("test", "size", "iterations", "MiBps", "msgsPerSec", "p50us",
                "p99us", "clientCpu", "serverCpu", "allocBytesPerOp", "crc", "markers", "transport", "check");
        assertThat(write.get("test").isString()).isTrue();
        assertThat(write.get("test").asString()).isEqualTo("write");
        assertThat(write.get("size").isInt()).isTrue();
        assertThat(write.get("size").asInt()).isEqualTo(4096);
        assertThat(write.get("iterations").asLong()).isEqualTo(300);
        // The same precision as the hand-written lines had: MiB/s and CPU 2 decimals, the rest 1.
        assertThat(lines.get(0)).contains("\"MiBps\":1234.57,", "\"msgsPerSec\":315949.1,", "\"p50us\":12.3,",
                "\"p99us\":56.8,", "\"clientCpu\":0.99,", "\"serverCpu\":0.50,", "\"allocBytesPerOp\":0.0,");
        for (String number : List.of("MiBps", "msgsPerSec", "p50us", "p99us", "clientCpu", "serverCpu",
                "allocBytesPerOp")) {
            assertThat(write.get(number).isNumber()).as(number).isTrue();
        }
        assertThat(write.get("crc").isBoolean()).isTrue();
        assertThat(write.get("crc").asBoolean()).isFalse();
        assertThat(write.get("markers").asBoolean()).isTrue();
        assertThat(write.get("transport").asString()).isEqualTo("nio");
        assertThat(write.get("check").isNull()).isTrue();

        JsonNode atomic = object(lines.get(1));
        assertThat(atomic.get("serverCpu").isNull()).as("not measured: null, as before").isTrue();
        assertThat(atomic.get("allocBytesPerOp").isNull()).isTrue();
        assertThat(atomic.get("check").asString()).isEqualTo("bandwidth: word 200 after 200 fetch-adds of 1");
        assertThat(atomic.get("baseline").asString()).as("raw TCP rows say which reference").isEqualTo("framed");
        assertThat(write.has("baseline")).isFalse();
    }

    @Test
    void anyStringRoundTrips() {
        // Control characters, quotes, backslashes, non-ASCII and a line separator: the hand-written JSON escaped
        // only backslashes and quotes, so a control character made an invalid line.
        String nasty = "say \"hi\"\\ \u0000\u0001\t\r\n\u001f\u007f é ü 漢字 \uD83D\uDE00 \u2028 </script>";
        PerfOptions options = PerfOptions.parse(new String[0]);
        List<String> lines = print(out -> ResultPrinter.printJson(out, new PerfResult(nasty, 64, 1, 1, 1, 1, 1, 1, 1, 1,
                nasty), options));
        assertThat(lines).as("still one line").hasSize(1);
        JsonNode line = object(lines.get(0));
        assertThat(line.get("test").asString()).isEqualTo(nasty);
        assertThat(line.get("check").asString()).isEqualTo(nasty);
    }

    @Test
    void theRatiosLineIsOneObjectWithAnArray() {
        List<PerfResult> results = List.of(result("rx-send", 64, 300), result("rsocket-ff", 64, 200),
                result("rx-request", 64, 100), result("rsocket-rr", 64, 400), result("write", 64, 1));
        List<String> lines = print(out -> ResultPrinter.printReactiveRatiosJson(out, results));
        assertThat(lines).hasSize(1);
        assertThat(lines.get(0)).startsWith("{\"ratios\":[").contains("\"test\":\"rx-send\",\"vs\":\"rsocket-ff\"",
                "\"msgsPerSecRatio\":1.500", "\"msgsPerSecRatio\":0.250");
        JsonNode ratios = object(lines.get(0)).get("ratios");
        assertThat(ratios.isArray()).isTrue();
        assertThat(ratios).hasSize(2);
        JsonNode first = ratios.get(0);
        assertThat(fieldNames(first)).containsExactly("test", "vs", "size", "msgsPerSecRatio");
        assertThat(first.get("size").asInt()).isEqualTo(64);
        assertThat(first.get("msgsPerSecRatio").asDouble()).isEqualTo(1.5);

        assertThat(object(print(out -> ResultPrinter.printReactiveRatiosJson(out, List.of())).get(0)).get("ratios"))
                .as("nothing to compare: an empty array").isEmpty();
    }

    private static PerfResult result(String test, int size, double messagesPerSecond) {
        return new PerfResult(test, size, 1, 1, messagesPerSecond, Double.NaN, Double.NaN, 1, 1, 1, null);
    }

    private static JsonNode object(String line) {
        JsonNode node = JSON.readTree(line);
        assertThat(node.isObject()).as(line).isTrue();
        return node;
    }

    private static List<String> fieldNames(JsonNode node) {
        List<String> names = new ArrayList<>();
        node.propertyNames().forEach(names::add);
        return names;
    }

    private interface Printing {
        void print(PrintStream out);
    }

    private static List<String> print(Printing printing) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8)) {
            printing.print(out);
        }
        return bytes.toString(StandardCharsets.UTF_8).lines().toList();
    }
}
