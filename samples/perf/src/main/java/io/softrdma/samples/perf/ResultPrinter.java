package io.softrdma.samples.perf;

import java.io.PrintStream;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.List;
import java.util.Locale;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Prints results as a table (with each SoftRDMA row's ratio to raw TCP, and what the atomic rows checked) or
 * as JSON lines (Jackson: one object per line).
 */
final class ResultPrinter {
    private ResultPrinter() {
    }

    /** Writes the JSON lines: one object per line, compact, fields in the order they are put. */
    private static final JsonMapper JSON = JsonMapper.shared();

    /**
     * One result as one line of JSON: {@code test}, {@code size}, {@code iterations}, {@code MiBps} (2
     * decimals), {@code msgsPerSec}, {@code p50us}, {@code p99us} (1 decimal), {@code clientCpu},
     * {@code serverCpu} (2 decimals), {@code allocBytesPerOp} (1 decimal), {@code crc}, {@code markers},
     * {@code transport} and {@code check}; a figure that was not measured (or is not finite) is null.
     */
    static void printJson(PrintStream out, PerfResult r, PerfOptions o) {
        ObjectNode line = JSON.createObjectNode()
                .put("test", r.test())
                .put("size", r.size())
                .put("iterations", r.iterations())
                .put("MiBps", decimal(r.mibPerSecond(), 2))
                .put("msgsPerSec", decimal(r.messagesPerSecond(), 1))
                .put("p50us", decimal(r.p50Micros(), 1))
                .put("p99us", decimal(r.p99Micros(), 1))
                .put("clientCpu", decimal(r.clientCpu(), 2))
                .put("serverCpu", decimal(r.serverCpu(), 2))
                .put("allocBytesPerOp", decimal(r.allocatedPerOperation(), 1))
                .put("crc", o.crc())
                .put("markers", o.markers())
                .put("transport", o.transport().name().toLowerCase(Locale.ROOT))
                .put("check", r.check());
        ConnectionScale.Scale s = r.scale();
        if (s != null) {
            line.put("connections", s.connections())
                    .put("aggregateMsgsPerSec", decimal(r.messagesPerSecond(), 1))
                    .put("perConnectionMsgsPerSec", decimal(r.messagesPerSecond() / s.connections(), 1))
                    .put("serverHeapBytesPerConnectionIdle", decimal(s.idle().heapPerConnection(), 0))
                    .put("serverHeapBytesPerConnectionBusy", decimal(s.busy().heapPerConnection(), 0))
                    .put("serverDirectBytesPerConnectionIdle", decimal(s.idle().directPerConnection(), 0))
                    .put("serverDirectBytesPerConnectionBusy", decimal(s.busy().directPerConnection(), 0))
                    .put("serverRegisteredBytesPerConnectionIdle", decimal(s.idle().registeredPerConnection(), 0))
                    .put("serverRegisteredBytesPerConnectionBusy", decimal(s.busy().registeredPerConnection(), 0))
                    .put("memoryScope", s.memoryScope())
                    .put("receivePool", s.receivePool());
        }
        if (r.test().startsWith("tcp-")) {
            line.put("baseline", "framed");
        }
        if (r.test().startsWith("rsocket-")) {
            line.put("rounds", o.rounds()); // 1: each phase whole; more: in turns with the other transport
        }
        out.println(JSON.writeValueAsString(line));
        out.flush();
    }

    /** {@code v} rounded to {@code places} decimals as a JSON number, or null (NaN: not measured). */
    private static BigDecimal decimal(double v, int places) {
        return Double.isFinite(v) ? BigDecimal.valueOf(v).setScale(places, RoundingMode.HALF_UP) : null;
    }

    static void printTable(PrintStream out, List<PerfResult> results, PerfOptions o) {
        if (!o.connections().isEmpty()) {
            ConnectionScale.printTable(out, results, o);
            return;
        }
        out.printf(Locale.ROOT, "%nSoftRDMA perf (%s transport, MPA CRC %s, Markers %s, Java %s); bandwidth with"
                + " %d operations in flight, latency one at a time%n",
                o.transport().name().toLowerCase(Locale.ROOT), o.crc() ? "on" : "off", o.markers() ? "on" : "off",
                System.getProperty("java.version"), RdmaPerfClient.WINDOW);
        boolean reactive = results.stream().anyMatch(r -> isReactive(r.test()));
        // The test column fits the longest name (tcp-compare-swap), and is no narrower than it always was.
        int width = Math.max(reactive ? 14 : 10, results.stream().mapToInt(r -> r.test().length()).max().orElse(0));
        String testColumn = "%-" + width + "s";
        String header = String.format(Locale.ROOT, testColumn + " %9s %11s %10s %12s %9s %9s %9s %9s %11s %6s",
                "test", "size", "iterations", "MiB/s", "msgs/s", "p50 us", "p99 us", "bw/TCP", "lat/TCP",
                "cpu cli/srv", "B/op");
        if (reactive) {
            header += String.format(Locale.ROOT, " %9s %10s", "rx/verbs", "rx/RSocket");
        }
        out.println(header);
        out.println("-".repeat(header.length()));
        for (PerfResult r : results) {
            String bw = "";
            String lat = "";
            if (!r.test().startsWith("tcp-") && !(isTwin(r.test()) && r.test().endsWith("-tcp"))) {
                PerfResult tcp = find(results, tcpCounterpart(r.test()), r.size());
                if (tcp != null) {
                    bw = String.format(Locale.ROOT, "%.0f%%", 100 * r.mibPerSecond() / tcp.mibPerSecond());
                    lat = String.format(Locale.ROOT, "%.2fx", r.p50Micros() / tcp.p50Micros());
                }
            }
            String row = String.format(Locale.ROOT, "%9s %11d %10.1f %12.0f %9s %9s %9s %9s %11s %6s",
                    size(r.size()), r.iterations(), r.mibPerSecond(), r.messagesPerSecond(), cell(r.p50Micros()),
                    cell(r.p99Micros()), bw, lat, percent(r.clientCpu()) + "/" + percent(r.serverCpu()),
                    cell(r.allocatedPerOperation()));
            if (reactive) {
                String vsVerbs = "";
                String vsRsocket = "";
                if (r.test().equals("rx-send") || r.test().startsWith("rx-") && isAtomic(r.test())) {
                    vsVerbs = ratio(r, find(results, r.test().substring("rx-".length()), r.size()));
                } else if (r.test().startsWith("rsocket-")) {
                    PerfResult rx = find(results, r.test().equals("rsocket-rr") ? "rx-request" : "rx-send", r.size());
                    vsRsocket = ratio(rx, r);
                }
                out.printf(Locale.ROOT, testColumn + " %s %9s %10s%n", r.test(), row, vsVerbs, vsRsocket);
            } else {
                out.printf(Locale.ROOT, testColumn + " %s%n", r.test(), row);
            }
        }
        if (results.stream().anyMatch(r -> r.test().startsWith("tcp-"))) {
            out.println();
            out.println("tcp-*: raw TCP over Netty, same transport and allocator, one event loop per side;"
                    + " length-prefixed frames,\n  batched per flush and decoded in place");
        }
        if (results.stream().anyMatch(r -> isAtomic(r.test()))) {
            out.println();
            out.printf(Locale.ROOT, "fetch-add, compare-swap: RFC 7306 atomics on one 8-octet word (size); bandwidth"
                    + " with min(%d, ORD) in flight, compare-swap%n  expecting 0 and swapping in 0; latency one at a"
                    + " time, compare-swap a serial increment (each expects what the one%n  before returned, plus 1);"
                    + " raw TCP: 52-octet requests answered with 12 octets by a server's AtomicLong%n",
                    RdmaPerfClient.WINDOW);
            out.println("checked, the word after each phase:");
            for (PerfResult r : results) {
                if (r.check() != null) {
                    out.printf(Locale.ROOT, "  %s: %s%n", r.test(), r.check());
                }
            }
        }
        if (results.stream().anyMatch(r -> isTwin(r.test()))) {
            out.println();
            out.println("rsocket-<model>-rdma|tcp: one RSocket application over SoftRDMA's RSocket transport and over"
                    + " RSocket's TCP transport;");
            out.println("  bw/TCP, lat/TCP: the SoftRDMA row's MiB/s and p50 over its TCP twin's. p50/p99: rr one"
                    + " request-response at a time,");
            out.println("  stream one payload at a time (REQUEST_N of 1 to its arrival), ff one fire-and-forget at a"
                    + " time (the call to the");
            out.println("  responder's handler: one way). In flight: 128 requests, 8192 fire-and-forgets, stream"
                    + " demand 256 then 64,");
            out.printf(Locale.ROOT, "  each capped to %d MiB of payload (at 1 MiB: 32, 32, 32 then 8)%n",
                    RsocketLoad.Windows.IN_FLIGHT_BYTES >> 20);
        }
        if (reactive) {
            out.println();
            out.println("rx/verbs, rx/RSocket: messages per second of the reactive row (rx-send, rx-request,"
                    + " rx-fetch-add, rx-compare-swap) over this one's");
            for (String[] pair : REACTIVE_PAIRS) {
                for (PerfResult rx : results) {
                    PerfResult ref = rx.test().equals(pair[0]) ? find(results, pair[1], rx.size()) : null;
                    if (ref != null) {
                        String lat = Double.isNaN(rx.p50Micros()) || Double.isNaN(ref.p50Micros()) ? ""
                                : String.format(Locale.ROOT, ", p50 latency %.2fx", rx.p50Micros() / ref.p50Micros());
                        out.printf(Locale.ROOT, "  %s / %s at %s: %.2fx msgs/s%s%n", pair[0], pair[1],
                                size(rx.size()), rx.messagesPerSecond() / ref.messagesPerSecond(), lat);
                    }
                }
            }
        }
        out.flush();
    }

    /** Each reactive row and what it is compared with (atomics: the verbs and raw TCP; RSocket has none). */
    private static final String[][] REACTIVE_PAIRS = {{"rx-send", "send"}, {"rx-send", "rsocket-ff"},
        {"rx-send", "rsocket-stream"}, {"rx-request", "rsocket-rr"}, {"rx-fetch-add", "fetch-add"},
        {"rx-fetch-add", "tcp-fetch-add"}, {"rx-compare-swap", "compare-swap"},
        {"rx-compare-swap", "tcp-compare-swap"}};

    private static boolean isReactive(String test) {
        return test.startsWith("rx-") || test.startsWith("rsocket-") && !isTwin(test);
    }

    /** A row of {@code --api rsocket}: {@code rsocket-<model>-rdma} or its twin {@code rsocket-<model>-tcp}. */
    private static boolean isTwin(String test) {
        return test.startsWith("rsocket-") && (test.endsWith("-rdma") || test.endsWith("-tcp"));
    }

    /** An atomic row: SoftRDMA verbs, reactive or raw TCP. */
    private static boolean isAtomic(String test) {
        return test.endsWith("fetch-add") || test.endsWith("compare-swap");
    }

    /** The raw TCP row a row is compared with: the reactive atomics share the verbs rows' reference. */
    private static String tcpCounterpart(String test) {
        if (isTwin(test)) {
            return test.substring(0, test.length() - "rdma".length()) + "tcp";
        }
        return "tcp-" + (isAtomic(test) && test.startsWith("rx-") ? test.substring("rx-".length()) : test);
    }

    private static String ratio(PerfResult r, PerfResult ref) {
        return r == null || ref == null ? ""
                : String.format(Locale.ROOT, "%.2fx", r.messagesPerSecond() / ref.messagesPerSecond());
    }

    /** One JSON line with the reactive rows' ratios (messages per second) to what they are compared with. */
    static void printReactiveRatiosJson(PrintStream out, List<PerfResult> results) {
        ObjectNode line = JSON.createObjectNode();
        ArrayNode ratios = line.putArray("ratios");
        for (String[] pair : REACTIVE_PAIRS) {
            for (PerfResult rx : results) {
                PerfResult ref = rx.test().equals(pair[0]) ? find(results, pair[1], rx.size()) : null;
                if (ref != null) {
                    ratios.addObject().put("test", pair[0]).put("vs", pair[1]).put("size", rx.size())
                            .put("msgsPerSecRatio", decimal(rx.messagesPerSecond() / ref.messagesPerSecond(), 3));
                }
            }
        }
        out.println(JSON.writeValueAsString(line));
        out.flush();
    }

    /**
     * One JSON line with each {@code --api rsocket} row over SoftRDMA next to its TCP twin: messages (and MiB) per
     * second over the twin's, and p50 latency over the twin's.
     */
    static void printRsocketRatiosJson(PrintStream out, List<PerfResult> results) {
        ObjectNode line = JSON.createObjectNode();
        ArrayNode ratios = line.putArray("ratios");
        for (PerfResult rdma : results) {
            PerfResult tcp = isTwin(rdma.test()) && rdma.test().endsWith("-rdma")
                    ? find(results, tcpCounterpart(rdma.test()), rdma.size()) : null;
            if (tcp != null) {
                ratios.addObject().put("test", rdma.test()).put("vs", tcp.test()).put("size", rdma.size())
                        .put("msgsPerSecRatio", decimal(rdma.messagesPerSecond() / tcp.messagesPerSecond(), 3))
                        .put("p50Ratio", decimal(rdma.p50Micros() / tcp.p50Micros(), 3));
            }
        }
        out.println(JSON.writeValueAsString(line));
        out.flush();
    }

    private static PerfResult find(List<PerfResult> results, String test, int size) {
        for (PerfResult r : results) {
            if (r.test().equals(test) && r.size() == size) {
                return r;
            }
        }
        return null;
    }

    private static String percent(double v) {
        return Double.isNaN(v) ? "-" : String.format(Locale.ROOT, "%.0f%%", 100 * v);
    }

    private static String cell(double v) {
        return Double.isNaN(v) ? "-" : String.format(Locale.ROOT, "%.1f", v);
    }

    static String size(int n) {
        if (n >= 1024 * 1024 && n % (1024 * 1024) == 0) {
            return n / (1024 * 1024) + " MiB";
        }
        if (n >= 1024 && n % 1024 == 0) {
            return n / 1024 + " KiB";
        }
        return n + " B";
    }
}
