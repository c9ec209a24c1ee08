package io.softrdma.interop;

import java.io.IOException;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.IntPredicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The packets of one case's TCP port on {@code lo}, captured with {@code dumpcap} while the case runs, so that an
 * MPA CRC error can be laid at the right door: the capture holds the octets as the kernel carried them between the
 * Java rping and qemu's slirp, that is as siw sent them or as the Java side did. When a case fails,
 * {@code ../shared/tools/wire-check analyze} judges the capture with Wireshark's dissectors and names the frames
 * whose CRC is wrong on the wire; {@link #badCrcOnlyFrom} says which end sent them. A case that passes deletes its
 * capture (a 64 KiB case writes some 30 MB).
 *
 * <p>Where {@code dumpcap} is missing (.ci/run installs it with tshark) or does not start, the case runs without a
 * capture and says so in its summary.
 *
 * <p>Thread safety: one case's, used by its test thread.
 */
final class Capture {
    private static final Pattern BAD_CRC_FRAME = Pattern.compile("frame (\\d+): .*Bad CRC");
    private static final Pattern PACKETS = Pattern.compile("Packets(?: captured)?: (\\d+)");
    private static final Pattern DROPPED = Pattern.compile("received/dropped on interface '[^']*': (\\d+)/(\\d+)");

    final Path file;
    final int port;
    /** A UDP port nobody listens on, whose datagrams tell when dumpcap is capturing. */
    private final int probePort;
    private final Process dumpcap;
    private final Path log;
    /** Why there is no capture, or null. */
    final String skipped;
    private boolean discarded;
    private String verdict;
    private List<Integer> badCrcSourcePorts;

    private Capture(Path file, int port, int probePort, Process dumpcap, Path log, String skipped) {
        this.file = file;
        this.port = port;
        this.probePort = probePort;
        this.dumpcap = dumpcap;
        this.log = log;
        this.skipped = skipped;
    }

    /** Starts capturing {@code tcp port <port>} on lo into {@code file}, and returns once dumpcap sees packets. */
    static Capture start(Path file, int port) throws IOException {
        if (!Harness.onPath("dumpcap")) {
            return new Capture(file, port, 0, null, null, "no capture: dumpcap is not installed (.ci/run installs"
                    + " tshark)");
        }
        Files.createDirectories(file.getParent());
        Files.deleteIfExists(file);
        Path log = file.resolveSibling(file.getFileName() + ".dumpcap.log");
        int probePort = Ports.free();
        // Without -q dumpcap prints "Packets: N" as it goes: with a datagram of our own to a port nobody uses, that
        // tells when it is capturing, and when it has taken in everything sent before a last datagram.
        Process p = new ProcessBuilder("dumpcap", "-i", "lo", "-f", "tcp port " + port + " or udp dst port "
                + probePort, "-B", "64", "-w", file.toString()).redirectErrorStream(true).redirectOutput(log.toFile())
                .start();
        Reaper.register(p);
        Capture capture = new Capture(file, port, probePort, p, log, null);
        if (!capture.probe(20)) {
            Reaper.destroy(p);
            return new Capture(file, port, 0, null, log, "no capture: dumpcap saw no packet within 20 s: "
                    + Logs.read(log).strip());
        }
        return capture;
    }

    /** Sends a datagram to the probe port until dumpcap counts more packets than before, for up to {@code seconds}. */
    private boolean probe(int seconds) {
        long before = packets();
        long deadline = System.nanoTime() + seconds * 1_000_000_000L;
        try (DatagramSocket socket = new DatagramSocket()) {
            byte[] octet = {0};
            while (System.nanoTime() < deadline && dumpcap.isAlive()) {
                socket.send(new DatagramPacket(octet, 1, InetAddress.getLoopbackAddress(), probePort));
                for (int i = 0; i < 25; i++) {
                    if (packets() > before) {
                        return true;
                    }
                    Logs.sleep(20);
                }
            }
        } catch (IOException e) {
            return false;
        }
        return false;
    }

    /** The packets dumpcap has counted so far (its last "Packets: N"). */
    private long packets() {
        Matcher m = PACKETS.matcher(Logs.read(log));
        long last = 0;
        while (m.find()) {
            last = Long.parseLong(m.group(1));
        }
        return last;
    }

    /**
     * Stops dumpcap once it has counted a last datagram sent after the case's traffic (so it has taken that traffic
     * in), with SIGINT, so that it writes its last packets and its statistics.
     */
    void stop() {
        if (dumpcap == null || !dumpcap.isAlive()) {
            return;
        }
        probe(5);
        try {
            new ProcessBuilder("kill", "-INT", Long.toString(dumpcap.pid())).start().waitFor(5, TimeUnit.SECONDS);
            if (!dumpcap.waitFor(10, TimeUnit.SECONDS)) {
                Reaper.destroy(dumpcap);
            }
        } catch (IOException e) {
            Reaper.destroy(dumpcap);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            Reaper.destroy(dumpcap);
        }
    }

    /** Stops the capture and deletes its file: the case passed, or its failure has nothing to do with the wire. */
    void discard() {
        stop();
        discarded = true;
        try {
            Files.deleteIfExists(file);
            if (log != null) {
                Files.deleteIfExists(log);
            }
        } catch (IOException e) {
            // a file left in target/ is harmless
        }
    }

    /**
     * wire-check's verdict on the capture (its last line), computed once after {@link #stop}; a capture that lost
     * packets is not judged (one lost segment and Wireshark loses the MPA framing after it).
     */
    String verdict() {
        if (verdict != null) {
            return verdict;
        }
        badCrcSourcePorts = new ArrayList<>();
        if (skipped != null) {
            return verdict = skipped;
        }
        stop();
        Matcher drops = DROPPED.matcher(Logs.read(log));
        if (drops.find() && Long.parseLong(drops.group(2)) > 0) {
            return verdict = "capture incomplete: dumpcap dropped " + drops.group(2) + " of "
                    + (Long.parseLong(drops.group(1)) + Long.parseLong(drops.group(2))) + " packets";
        }
        Path tool = Harness.wireCheck();
        if (!Files.isExecutable(tool)) {
            return verdict = "not judged: wire-check not found at " + tool;
        }
        Harness.Run report = Harness.run(file.resolveSibling(file.getFileName() + ".wire-check.txt"), 300,
                tool.toString(), "analyze", file.toString(), "--port", Integer.toString(port));
        List<String> lines = report.output().lines().toList();
        verdict = lines.isEmpty() ? "wire-check printed nothing (status " + report.status() + ")"
                : lines.get(lines.size() - 1);
        Matcher m = BAD_CRC_FRAME.matcher(report.output());
        while (m.find()) {
            Harness.Run src = Harness.run(file.resolveSibling(file.getFileName() + ".frame.txt"), 120, "tshark", "-r",
                    file.toString(), "-n", "-Y", "frame.number==" + m.group(1), "-T", "fields", "-e", "tcp.srcport");
            // tshark's output may start with a line about running as root; the port is the line of digits.
            badCrcSourcePorts.add(src.output().lines().map(String::strip).filter(l -> l.matches("\\d+"))
                    .mapToInt(Integer::parseInt).findFirst().orElse(-1));
        }
        return verdict;
    }

    /**
     * Whether the capture, complete and judged, shows FPDUs with a wrong CRC on the wire, every one of them sent from
     * a TCP port {@code sender} accepts.
     */
    boolean badCrcOnlyFrom(IntPredicate sender) {
        verdict();
        return !badCrcSourcePorts.isEmpty() && badCrcSourcePorts.stream().allMatch(sender::test);
    }

    /** The TCP source port of each FPDU the capture shows with a wrong CRC (-1: not found), after {@link #verdict}. */
    List<Integer> badCrcSourcePorts() {
        verdict();
        return List.copyOf(badCrcSourcePorts);
    }

    /** One line for the case's summary. */
    String describe() {
        if (skipped != null) {
            return skipped;
        }
        if (discarded) {
            return "made and deleted (the Java side met no CRC error)";
        }
        return file + (verdict == null ? "" : "; " + verdict
                + (badCrcSourcePorts.isEmpty() ? "" : " (bad CRCs sent from TCP port(s) " + badCrcSourcePorts + ")"));
    }
}
