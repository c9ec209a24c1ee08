package io.softrdma.interop;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.IntPredicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One case of the matrix: the Java rping on one side, rdma-core's rping over siw in the VM on the
 * other, with what each printed and how it ended, in {@code target/interop-logs/<vm>/<case>/}.
 */
final class InteropCase {
    /**
     * The Java rping's own {@code --timeout}: the longest its connect, accept or any step of a ping may
     * take. The test kills it when it still runs 30 s after that.
     */
    static final int JAVA_TIMEOUT = 30;

    private static final Pattern JAVA_CONNECTED =
            Pattern.compile("(?m)^rping: debug: (?:connected|accepted) .*?: (MPA revision .*?)(; request .*)?$");
    private static final Pattern SIW_RTS = Pattern.compile("enter RTS: crc=(\\w+), ord=(\\d+), ird=(\\d+)");

    final String id;
    final String title;
    final SiwVm vm;
    final Path dir;
    final boolean hostToGuest;
    JavaRping java;
    SiwVm.GuestJob siw;
    String siwCommand;
    Integer javaRc;
    Integer siwRc;
    /** The siw rping still ran when the test stopped waiting for it, and was killed. */
    boolean siwKilled;
    /** The Java rping still ran after its time and was killed. */
    boolean javaKilled;
    /** The case's TCP traffic on lo, judged when the Java side met a CRC error (see {@link Capture}). */
    Capture capture;
    /** Which TCP source ports are the siw side's: the capture's bad CRCs are siw's when all come from one. */
    private IntPredicate siwPort = port -> false;
    /** Why a first try of this case was made again (siw sent an FPDU whose CRC was wrong on the wire), or null. */
    String earlierTry;

    private InteropCase(String id, String title, SiwVm vm, boolean hostToGuest) {
        this.id = id;
        this.title = title;
        this.vm = vm;
        this.hostToGuest = hostToGuest;
        this.dir = vm.dir.resolve(id);
    }

    /**
     * Java client → siw {@code rping -s} in the guest (host→guest forward). Runs to the end: the Java
     * client exits (or is killed after JAVA_TIMEOUT + 30 s), then the siw server (killed if it still
     * runs 30 s later).
     */
    static InteropCase javaClient(SiwVm vm, String id, String title, List<String> javaArgs) throws IOException {
        return javaClient(vm, id, title, javaArgs, "-v");
    }

    /**
     * The same with other options for siw's rping ({@code -v} prints each ping, which the case counts;
     * without it only the Java side counts).
     */
    static InteropCase javaClient(SiwVm vm, String id, String title, List<String> javaArgs, String siwOptions)
            throws IOException {
        InteropCase c = runJavaClient(vm, id, title, javaArgs, siwOptions);
        return c.siwSentBadCrc() && vm.hasSpareHostFwd()
                ? c.madeAgain(runJavaClient(vm, id + "-again", title, javaArgs, siwOptions)) : c;
    }

    private static InteropCase runJavaClient(SiwVm vm, String id, String title, List<String> javaArgs,
            String siwOptions) throws IOException {
        InteropCase c = new InteropCase(id, title, vm, true);
        SiwVm.HostFwd fwd = vm.takeHostFwd();
        c.siwPort = port -> port == fwd.host();
        c.siwCommand = "rping -s -a 0.0.0.0 -p " + fwd.guest() + " " + siwOptions;
        System.err.printf("[interop] %s %s%n", id, title);
        c.siw = vm.submit(id + ": siw rping server",
                c.siwCommand + " & p=$!; echo $p > $JOBPID\n"
                        + "siwvm-wait-listen " + fwd.guest() + " 40 || { kill $p; exit 97; }\nwait $p");
        try {
            if (!c.siw.awaitOutput("SIW-VM-LISTEN " + fwd.guest(), Duration.ofSeconds(45))) {
                throw new AssertionError(id + ": siw rping -s did not listen on guest port " + fwd.guest()
                        + c.details());
            }
            List<String> args = new ArrayList<>(List.of("-c", "-a", "127.0.0.1", "-p", Integer.toString(fwd.host()),
                    "-C", Integer.toString(Harness.PINGS), "-V", "-d",
                    "--timeout", Integer.toString(JAVA_TIMEOUT)));
            args.addAll(javaArgs);
            c.capture = Capture.start(c.dir.resolve("java-client.pcapng"), fwd.host());
            c.java = JavaRping.start(c.dir, "java-client", args);
            c.javaRc = c.java.awaitExit(Duration.ofSeconds(JAVA_TIMEOUT + 30));
            // After a good run siw's server exits once it sees the disconnect; after a failure it may
            // still wait for a connection that will not come.
            c.siwRc = c.siw.awaitExit(Duration.ofSeconds(c.javaRc != null && c.javaRc == 0 ? 30 : 5));
        } catch (IOException | RuntimeException | Error e) {
            c.finish();
            Results.add(c, "ERROR: " + firstLine(e));
            throw e;
        }
        c.finish();
        return c;
    }

    /**
     * siw {@code rping -c} in the guest → Java server (guest→host forward). The Java server listens
     * first; then the guest client runs; then the Java server should exit by itself.
     */
    static InteropCase javaServer(SiwVm vm, String id, String title, List<String> javaArgs) throws IOException {
        return javaServer(vm, id, title, javaArgs, "-v -V");
    }

    /** The same with other options for siw's rping -c (as above). */
    static InteropCase javaServer(SiwVm vm, String id, String title, List<String> javaArgs, String siwOptions)
            throws IOException {
        InteropCase c = runJavaServer(vm, id, title, javaArgs, siwOptions);
        return c.siwSentBadCrc() && vm.hasSpareGuestFwd()
                ? c.madeAgain(runJavaServer(vm, id + "-again", title, javaArgs, siwOptions)) : c;
    }

    private static InteropCase runJavaServer(SiwVm vm, String id, String title, List<String> javaArgs,
            String siwOptions) throws IOException {
        InteropCase c = new InteropCase(id, title, vm, false);
        int port = vm.takeGuestFwd();
        c.siwPort = p -> p != port;
        System.err.printf("[interop] %s %s%n", id, title);
        List<String> args = new ArrayList<>(List.of("-s", "-a", "127.0.0.1", "-p", Integer.toString(port), "-V", "-d",
                "--timeout", Integer.toString(JAVA_TIMEOUT)));
        args.addAll(javaArgs);
        c.capture = Capture.start(c.dir.resolve("java-server.pcapng"), port);
        c.java = JavaRping.start(c.dir, "java-server", args);
        try {
            if (!c.java.awaitStdout("rping: listening on", Duration.ofSeconds(30))) {
                c.javaRc = c.java.isAlive() ? null : c.java.awaitExit(Duration.ofSeconds(1));
                throw new AssertionError(id + ": the Java server did not print 'rping: listening on' within 30 s"
                        + c.details());
            }
            c.siwCommand = "rping -c -a 10.0.2.100 -p " + port + " -C " + Harness.PINGS + " " + siwOptions;
            c.siw = vm.submit(id + ": siw rping client", "echo $$ > $JOBPID\nexec " + c.siwCommand);
            c.siwRc = c.siw.awaitExit(Duration.ofSeconds(JAVA_TIMEOUT + 30));
            c.javaRc = c.java.awaitExit(Duration.ofSeconds(c.siwRc == null ? 1 : 30));
        } catch (IOException | RuntimeException | Error e) {
            c.finish();
            Results.add(c, "ERROR: " + firstLine(e));
            throw e;
        }
        c.finish();
        return c;
    }

    /**
     * Whether the Java side ended the connection for a CRC error (RFC 5044 §8 code 2) in what siw sent, and the
     * capture shows those FPDUs with a wrong CRC on the wire, as siw's slirp forward delivered them: then siw (or
     * qemu between it and the host) sent them so, and the Java side did what RFC 5044 §8 asks. Nothing else counts.
     */
    boolean siwSentBadCrc() {
        return javaRc != null && javaRc == 1 && java.err().contains("this side sent a Terminate")
                && java.err().contains("CRC_ERROR") && capture != null && capture.badCrcOnlyFrom(siwPort);
    }

    /** {@code again}, the same case made again after this try, which siw spoiled; both are in the logs. */
    private InteropCase madeAgain(InteropCase again) {
        again.earlierTry = id + " ended for a CRC error in an FPDU siw sent with a wrong CRC on the wire ("
                + capture.describe() + "): " + java.errorLine();
        System.err.println("[interop] " + again.earlierTry + "; made again as " + again.id);
        Logs.write(again.dir.resolve("case.txt"), again.summary());
        return again;
    }

    static String firstLine(Throwable e) {
        return e.getMessage() == null ? e.toString() : e.getMessage().lines().findFirst().orElse(e.toString());
    }

    private void finish() {
        if (java != null) {
            javaKilled = java.isAlive() || (javaRc == null && java.exitCodeIfDone() != null);
            java.close();
        }
        if (capture != null) {
            if (javaRc != null && javaRc != 0 && java.err().contains("CRC_ERROR")) {
                capture.verdict();
            } else {
                capture.discard();
            }
        }
        if (siw != null && siw.exitCode() == null) {
            siwKilled = true;
            siw.killIfRunning();
        }
        Logs.write(dir.resolve("case.txt"), summary());
    }

    /**
     * Debian 12's rping (rdma-core 44.0) has an exit race: once the last CM event is handled, main
     * destroys the CM event channel while the CM thread may already be calling rdma_get_cm_event()
     * again, which then fails with EBADF and the thread calls exit(-1): status 255 after a run that
     * succeeded (fixed upstream in 2025 by linux-rdma/rdma-core PR #1622, "rping: Fix spurious failure
     * return codes"). True when the siw rping ended that way and in no other way: status 255 and
     * nothing on stderr but the DISCONNECT line and that error.
     */
    boolean siwExitRace() {
        if (siw == null || siwRc == null || siwRc != 255) {
            return false;
        }
        List<String> err = siw.errors().lines().filter(l -> !l.isBlank()).toList();
        String ebadf = "rdma_get_cm_event: Bad file descriptor";
        return err.contains(ebadf)
                && err.stream().allMatch(l -> l.equals(ebadf) || l.matches("(client|server) DISCONNECT EVENT\\.{3}"));
    }

    /** Pings the siw side reports: "server ping data:" lines of rping -s -v, "ping data:" of rping -c -v. */
    long siwPings() {
        if (siw == null || !siwVerbose()) {
            return -1;
        }
        return Logs.count(siw.output(),
                hostToGuest ? "^server ping data: rdma-ping-\\d+" : "^ping data: rdma-ping-\\d+");
    }

    /** Whether siw's rping prints each ping (-v), so that the case can count them. */
    boolean siwVerbose() {
        return siwCommand != null && List.of(siwCommand.split(" ")).contains("-v");
    }

    long javaPings() {
        return java == null ? -1 : java.pingsReported();
    }

    /** siw's own view of the connection from its debug log: "crc=y ord=1 ird=1", or "?" without it. */
    String siwConnection() {
        if (siw == null) {
            return "?";
        }
        Matcher m = SIW_RTS.matcher(siw.klog());
        String last = null;
        while (m.find()) {
            last = "crc=" + m.group(1) + " ord=" + m.group(2) + " ird=" + m.group(3);
        }
        return last == null ? "?" : last;
    }

    /** CRC as siw used it ("y"/"n"), or null when the debug line is missing. */
    String siwCrc() {
        Matcher m = SIW_RTS.matcher(siw == null ? "" : siw.klog());
        String crc = null;
        while (m.find()) {
            crc = m.group(1);
        }
        return crc;
    }

    /** The connection as the Java rping's -d line describes it (MPA revision, CRC, IRD/ORD, RTR), or "?". */
    String javaConnection() {
        Matcher m = JAVA_CONNECTED.matcher(java == null ? "" : java.out());
        return m.find() ? m.group(1) : "?";
    }

    /** CRC as the Java rping used it ("on"/"off", from its -d line), or null. */
    String javaCrc() {
        Matcher m = Pattern.compile("CRC (on|off)").matcher(javaConnection());
        return m.find() ? m.group(1) : null;
    }

    String javaCommand() {
        return java == null ? "(not started)" : java.shownCommand();
    }

    String summary() {
        StringBuilder sb = new StringBuilder();
        sb.append(id).append(": ").append(title).append('\n');
        sb.append("VM: ").append(vm.name).append(", siw params ").append(vm.siwParams.isEmpty() ? "(defaults)"
                : String.join(" ", vm.siwParams)).append('\n');
        sb.append("boot: ").append(vm.bootCommand).append('\n');
        sb.append("guest: ").append(siwCommand).append('\n');
        sb.append("host:  ").append(javaCommand()).append('\n');
        sb.append("java exit: ").append(javaKilled ? "none (still running: killed)" : javaRc)
                .append(String.format(Locale.ROOT, " after %.2f s", java == null ? 0 : java.seconds()))
                .append(", pings reported ").append(javaPings()).append('\n');
        if (java != null && java.errorLine() != null) {
            sb.append("java error: ").append(java.errorLine()).append('\n');
        }
        sb.append("siw rping exit: ").append(siwKilled ? "none (still running: killed)" : siwRc)
                .append(siwExitRace() ? " (rping 44.0's exit race: rdma_get_cm_event EBADF after the run)" : "")
                .append(String.format(Locale.ROOT, " after %.2f s (guest clock)",
                        siw == null ? Double.NaN : siw.guestSeconds()))
                .append(", pings ").append(siwPings()).append('\n');
        sb.append("java connection: ").append(javaConnection()).append('\n');
        sb.append("siw connection: ").append(siwConnection()).append('\n');
        if (capture != null) {
            sb.append("capture: ").append(capture.describe()).append('\n');
        }
        if (earlierTry != null) {
            sb.append("earlier try: ").append(earlierTry).append('\n');
        }
        return sb.toString();
    }

    /** Everything needed to see what went wrong: summary and the tail of each log. */
    String details() {
        List<Path> files = new ArrayList<>();
        if (java != null) {
            files.add(java.stdout);
            files.add(java.stderr);
        }
        if (siw != null) {
            files.add(siw.file("out"));
            files.add(siw.file("err"));
            files.add(siw.file("klog"));
        }
        return "\n" + summary() + Logs.tails(25, files.toArray(Path[]::new)) + "\n----- " + vm.serialLog
                + " (after the agent started, last 25 lines) -----\n" + Logs.tail(vm.serialAfterReady(), 25);
    }
}
