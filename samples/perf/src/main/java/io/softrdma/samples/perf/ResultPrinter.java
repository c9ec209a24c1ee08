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
                        + "\"p50us\":%s,\"p99us\":%s,\"crc\":%b,\"markers\":%b,\"transport\":\"%s\"}",
                r.test(), r.size(), r.iterations(), r.mibPerSecond(), r.messagesPerSecond(), num(r.p50Micros()),
                num(r.p99Micros()), o.crc(), o.markers(), o.transport().name().toLowerCase(Locale.ROOT)));
        out.flush();
    }

    private static String num(double v) {
        return Double.isNaN(v) ? "null" : String.format(Locale.ROOT, "%.1f", v);
    }

    static void printTable(PrintStream out, List<PerfResult> results, PerfOptions o) {
        out.printf(Locale.ROOT, "%nSoftRDMA perf on loopback (%s transport, MPA CRC %s, Markers %s, Java %s)%n",
                o.transport().name().toLowerCase(Locale.ROOT), o.crc() ? "on" : "off", o.markers() ? "on" : "off",
                System.getProperty("java.version"));
        String header = String.format(Locale.ROOT, "%-14s %9s %11s %10s %12s %9s %9s %8s", "test", "size",
                "iterations", "MiB/s", "msgs/s", "p50 us", "p99 us", "vs TCP");
        out.println(header);
        out.println("-".repeat(header.length()));
        for (PerfResult r : results) {
            String ratio = "";
            if (r.test().startsWith("mpa-")) {
                PerfResult tcp = find(results, "tcp-" + r.test().substring(4), r.size());
                if (tcp != null) {
                    ratio = r.test().endsWith("pingpong")
                            ? String.format(Locale.ROOT, "%.2fx lat", r.p50Micros() / tcp.p50Micros())
                            : String.format(Locale.ROOT, "%.0f%%", 100 * r.mibPerSecond() / tcp.mibPerSecond());
                }
            }
            out.printf(Locale.ROOT, "%-14s %9s %11d %10.1f %12.0f %9s %9s %8s%n", r.test(), size(r.size()),
                    r.iterations(), r.mibPerSecond(), r.messagesPerSecond(), cell(r.p50Micros()),
                    cell(r.p99Micros()), ratio);
        }
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
