package io.softrdma.samples.perf;

import java.io.PrintStream;
import java.util.List;
import java.util.Locale;

/** Prints results as a table (with each SoftRDMA row's ratio to raw TCP) or as JSON lines. */
final class ResultPrinter {
    private ResultPrinter() {
    }

    static void printJson(PrintStream out, PerfResult r, PerfOptions o) {
        out.println(String.format(Locale.ROOT,
                "{\"test\":\"%s\",\"size\":%d,\"iterations\":%d,\"MiBps\":%.2f,\"msgsPerSec\":%.1f,"
                        + "\"p50us\":%s,\"p99us\":%s,\"clientCpu\":%s,\"serverCpu\":%s,\"allocBytesPerOp\":%s,"
                        + "\"crc\":%b,\"markers\":%b,"
                        + "\"transport\":\"%s\"}",
                r.test(), r.size(), r.iterations(), r.mibPerSecond(), r.messagesPerSecond(), num(r.p50Micros()),
                num(r.p99Micros()), cpu(r.clientCpu()), cpu(r.serverCpu()), num(r.allocatedPerOperation()), o.crc(), o.markers(), o.transport().name().toLowerCase(Locale.ROOT)));
        out.flush();
    }

    private static String cpu(double v) {
        return Double.isNaN(v) ? "null" : String.format(Locale.ROOT, "%.2f", v);
    }

    private static String num(double v) {
        return Double.isNaN(v) ? "null" : String.format(Locale.ROOT, "%.1f", v);
    }

    static void printTable(PrintStream out, List<PerfResult> results, PerfOptions o) {
        out.printf(Locale.ROOT, "%nSoftRDMA perf (%s transport, MPA CRC %s, Markers %s, Java %s); bandwidth with"
                + " %d operations in flight, latency one at a time%n",
                o.transport().name().toLowerCase(Locale.ROOT), o.crc() ? "on" : "off", o.markers() ? "on" : "off",
                System.getProperty("java.version"), RdmaPerfClient.WINDOW);
        boolean reactive = results.stream().anyMatch(r -> isReactive(r.test()));
        String header = String.format(Locale.ROOT, "%-10s %9s %11s %10s %12s %9s %9s %9s %9s %11s %6s", "test",
                "size", "iterations", "MiB/s", "msgs/s", "p50 us", "p99 us", "bw/TCP", "lat/TCP", "cpu cli/srv",
                "B/op");
        if (reactive) {
            header = String.format(Locale.ROOT, "%-14s", "test") + header.substring(10)
                    + String.format(Locale.ROOT, " %9s %10s", "rx/verbs", "rx/RSocket");
        }
        out.println(header);
        out.println("-".repeat(header.length()));
        for (PerfResult r : results) {
            String bw = "";
            String lat = "";
            if (!r.test().startsWith("tcp-")) {
                PerfResult tcp = find(results, "tcp-" + r.test(), r.size());
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
                if (r.test().equals("rx-send")) {
                    vsVerbs = ratio(r, find(results, "send", r.size()));
                } else if (r.test().startsWith("rsocket-")) {
                    PerfResult rx = find(results, r.test().equals("rsocket-rr") ? "rx-request" : "rx-send", r.size());
                    vsRsocket = ratio(rx, r);
                }
                out.printf(Locale.ROOT, "%-14s %s %9s %10s%n", r.test(), row, vsVerbs, vsRsocket);
            } else {
                out.printf(Locale.ROOT, "%-10s %s%n", r.test(), row);
            }
        }
        if (reactive) {
            out.println();
            out.println("rx/verbs, rx/RSocket: messages per second of the reactive row (rx-send or rx-request) over"
                    + " this one's");
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

    /** Each reactive row and what it is compared with. */
    private static final String[][] REACTIVE_PAIRS = {{"rx-send", "send"}, {"rx-send", "rsocket-ff"},
        {"rx-send", "rsocket-stream"}, {"rx-request", "rsocket-rr"}};

    private static boolean isReactive(String test) {
        return test.startsWith("rx-") || test.startsWith("rsocket-");
    }

    private static String ratio(PerfResult r, PerfResult ref) {
        return r == null || ref == null ? ""
                : String.format(Locale.ROOT, "%.2fx", r.messagesPerSecond() / ref.messagesPerSecond());
    }

    /** One JSON line with the reactive rows' ratios (messages per second) to what they are compared with. */
    static void printReactiveRatiosJson(PrintStream out, List<PerfResult> results) {
        StringBuilder b = new StringBuilder("{\"ratios\":[");
        boolean any = false;
        for (String[] pair : REACTIVE_PAIRS) {
            for (PerfResult rx : results) {
                PerfResult ref = rx.test().equals(pair[0]) ? find(results, pair[1], rx.size()) : null;
                if (ref != null) {
                    b.append(any ? "," : "").append(String.format(Locale.ROOT,
                            "{\"test\":\"%s\",\"vs\":\"%s\",\"size\":%d,\"msgsPerSecRatio\":%.3f}", pair[0],
                            pair[1], rx.size(), rx.messagesPerSecond() / ref.messagesPerSecond()));
                    any = true;
                }
            }
        }
        out.println(b.append("]}"));
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
