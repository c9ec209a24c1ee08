package io.softrdma.interop;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * One boot of the siw VM ({@code run.sh --background}), with the siw module parameters of that boot,
 * some host→guest forwards (a siw listener in the guest behind 127.0.0.1:H) and some guest→host
 * forwards (guest 10.0.2.100:P → host 127.0.0.1:P), and a guest agent ({@code guest-agent.sh}) that
 * runs shell jobs the host drops into a 9p-shared directory. So one boot serves several cases, one
 * after the other, each with its own guest command, output, exit code and siw kernel log lines.
 *
 * <p>The VM's lifetime is bounded by run.sh's {@code --timeout}; {@link #close()} asks the agent to
 * stop (the guest powers off) and kills the qemu by its PID if it is still there 15 s later.
 */
final class SiwVm implements AutoCloseable {
    /** A host→guest forward: host 127.0.0.1:{@code host} → guest 10.0.2.15:{@code guest}. */
    record HostFwd(int host, int guest) {}

    final String name;
    final List<String> siwParams;
    final Path dir;
    final Path runDir;
    final Path jobs;
    final Path serialLog;
    final List<HostFwd> hostFwds = new ArrayList<>();
    final List<Integer> guestFwds = new ArrayList<>();
    final String bootCommand;
    final double bootSeconds;
    private final AtomicInteger nextJob = new AtomicInteger(1);
    private Process lifeline;
    private int nextHostFwd;
    private int nextGuestFwd;

    private SiwVm(String name, List<String> siwParams, Path dir, Path runDir, List<HostFwd> hostFwds,
                  List<Integer> guestFwds, String bootCommand, double bootSeconds) {
        this.name = name;
        this.siwParams = siwParams;
        this.dir = dir;
        this.runDir = runDir;
        this.jobs = dir.resolve("share/jobs");
        this.serialLog = runDir.resolve("serial.log");
        this.hostFwds.addAll(hostFwds);
        this.guestFwds.addAll(guestFwds);
        this.bootCommand = bootCommand;
        this.bootSeconds = bootSeconds;
    }

    /**
     * Boots a VM and returns once the guest agent is ready. siwParams are {@code k=v} strings for
     * {@code run.sh --siw-param}.
     */
    static SiwVm boot(String name, List<String> siwParams, int hostFwdCount, int guestFwdCount, int lifetimeSeconds)
            throws IOException {
        Path dir = Harness.LOG_DIR.resolve(name);
        deleteTree(dir);
        Path runDir = dir.resolve("vm");
        Path share = dir.resolve("share");
        Files.createDirectories(runDir);
        Files.createDirectories(share.resolve("jobs"));
        runDir = runDir.toRealPath();
        Path agent = resource("guest-agent.sh", dir);
        Path lifelineScript = resource("vm-lifeline.sh", dir);
        List<HostFwd> hostFwds = new ArrayList<>();
        for (int i = 0; i < hostFwdCount; i++) {
            hostFwds.add(new HostFwd(Ports.free(), 7174 + 2 * i));
        }
        List<Integer> guestFwds = new ArrayList<>();
        for (int i = 0; i < guestFwdCount; i++) {
            guestFwds.add(Ports.free());
        }

        List<String> cmd = new ArrayList<>(List.of("bash", Harness.runScript().toString(), "--background",
                "--timeout", Integer.toString(lifetimeSeconds), "--rundir", runDir.toString(),
                "--share", share.toRealPath().toString(), "--cmd-file", agent.toString(),
                "--wait-marker", "SIW-VM-AGENT-READY"));
        for (HostFwd f : hostFwds) {
            cmd.addAll(List.of("--hostfwd", f.host() + ":" + f.guest()));
        }
        for (int p : guestFwds) {
            cmd.addAll(List.of("--guestfwd", Integer.toString(p)));
        }
        for (String p : siwParams) {
            cmd.addAll(List.of("--siw-param", p));
        }
        String shown = "run.sh " + String.join(" ", cmd.subList(2, cmd.size()))
                .replace(dir.toString(), "<logs>/" + name).replace(runDir.toString(), "<logs>/" + name + "/vm");
        Path runLog = dir.resolve("run.sh.log");
        Files.writeString(runLog, String.join(" ", cmd) + "\n");

        System.err.println("[interop] booting VM '" + name + "': " + shown);
        Reaper.registerVm(runDir);
        // Kills the VM when this JVM ends in a way that runs no shutdown hook (see vm-lifeline.sh).
        Process lifeline = new ProcessBuilder("bash", lifelineScript.toString(), runDir.toString())
                .redirectErrorStream(true).redirectOutput(runDir.resolve("lifeline.log").toFile()).start();
        long t0 = System.nanoTime();
        Process p = new ProcessBuilder(cmd).directory(Harness.siwVmDir().toFile()).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(runLog.toFile())).start();
        Reaper.register(p);
        boolean done;
        try {
            done = p.waitFor(180, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Reaper.destroy(p);
            Reaper.killVm(runDir);
            lifeline.getOutputStream().close();
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while booting", e);
        }
        double seconds = (System.nanoTime() - t0) / 1e9;
        if (!done || p.exitValue() != 0) {
            Reaper.destroy(p);
            Reaper.killVm(runDir);
            lifeline.getOutputStream().close();
            throw new AssertionError("VM '" + name + "' did not come up (" + (done ? "run.sh exit " + p.exitValue()
                    : "run.sh still waiting after 180 s") + ")" + Logs.tails(40, runLog, runDir.resolve("serial.log"),
                    runDir.resolve("qemu.stderr")));
        }
        Reaper.forget(p);
        SiwVm vm = new SiwVm(name, List.copyOf(siwParams), dir, runDir, hostFwds, guestFwds, shown, seconds);
        vm.lifeline = lifeline;
        System.err.printf("[interop] VM '%s' ready after %.1f s (qemu pid %s)%n", name, seconds,
                Reaper.qemuOf(runDir).map(h -> Long.toString(h.pid())).orElse("?"));
        return vm;
    }

    /** The next unused host→guest forward. */
    synchronized HostFwd takeHostFwd() {
        if (nextHostFwd >= hostFwds.size()) {
            throw new IllegalStateException("VM '" + name + "' has only " + hostFwds.size() + " host→guest forwards");
        }
        return hostFwds.get(nextHostFwd++);
    }

    /** Whether a host→guest forward is left for a case made again ({@link InteropCase#siwSentBadCrc()}). */
    synchronized boolean hasSpareHostFwd() {
        return nextHostFwd < hostFwds.size();
    }

    /** Whether a guest→host forward is left for a case made again. */
    synchronized boolean hasSpareGuestFwd() {
        return nextGuestFwd < guestFwds.size();
    }

    /** The next unused guest→host port (guest 10.0.2.100:P → host 127.0.0.1:P). */
    synchronized int takeGuestFwd() {
        if (nextGuestFwd >= guestFwds.size()) {
            throw new IllegalStateException("VM '" + name + "' has only " + guestFwds.size()
                    + " guest→host forwards");
        }
        return guestFwds.get(nextGuestFwd++);
    }

    /** The serial log from the agent's start on (before it: kernel boot and the agent script itself). */
    String serialAfterReady() {
        String log = Logs.read(serialLog);
        int i = log.indexOf("SIW-VM-AGENT-READY");
        return i < 0 ? log : log.substring(i);
    }

    boolean isRunning() {
        return Reaper.qemuOf(runDir).isPresent();
    }

    /** Runs {@code script} in the guest (sh), in the background; see {@link GuestJob}. */
    GuestJob submit(String label, String script) throws IOException {
        if (!isRunning()) {
            throw new AssertionError("VM '" + name + "' is no longer running" + Logs.tails(30, serialLog));
        }
        int n = nextJob.getAndIncrement();
        String body = "# " + label + "\n" + script + "\n";
        Path tmp = jobs.resolve(n + ".sh.tmp");
        Files.writeString(tmp, body, StandardCharsets.UTF_8);
        Files.move(tmp, jobs.resolve(n + ".sh"), StandardCopyOption.ATOMIC_MOVE);
        return new GuestJob(this, n, label, script);
    }

    @Override
    public void close() {
        try {
            Files.writeString(jobs.resolve("stop"), "stop\n");
        } catch (IOException e) {
            // the kill below does it
        }
        long deadline = System.nanoTime() + Duration.ofSeconds(15).toNanos();
        while ((isRunning() || Reaper.wrapperOf(runDir).isPresent()) && System.nanoTime() < deadline) {
            try {
                Thread.sleep(100);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        if (Reaper.killVm(runDir)) {
            System.err.println("[interop] VM '" + name + "' did not power off by itself: killed its qemu");
        }
        try {
            lifeline.getOutputStream().close(); // the VM is gone: the lifeline finds nothing to kill and ends
        } catch (IOException e) {
            // it ends with this JVM anyway
        }
        try {
            Files.deleteIfExists(runDir.resolve("initrd.img")); // 6 MB per boot
        } catch (IOException e) {
            // harmless
        }
    }

    /** Copies the class-path resource {@code name} into {@code dir}. */
    static Path resource(String name, Path dir) throws IOException {
        Path file = dir.resolve(name);
        try (InputStream in = SiwVm.class.getResourceAsStream("/" + name)) {
            if (in == null) {
                throw new IllegalStateException(name + " not on the test class path");
            }
            Files.copy(in, file, StandardCopyOption.REPLACE_EXISTING);
        }
        return file;
    }

    static void deleteTree(Path dir) throws IOException {
        if (Files.exists(dir)) {
            try (var s = Files.walk(dir)) {
                for (Path p : s.sorted(java.util.Comparator.reverseOrder()).toList()) {
                    Files.deleteIfExists(p);
                }
            }
        }
    }

    /**
     * A shell job in the guest: its stdout in {@code <n>.out}, its stderr in {@code <n>.err}, its exit
     * status in {@code <n>.rc} (written when it ends), siw's kernel log lines in {@code <n>.klog}. A
     * job that writes its PID to {@code $JOBPID} ({@code <n>.pid}) can be killed.
     */
    static final class GuestJob {
        final SiwVm vm;
        final int n;
        final String label;
        final String script;

        GuestJob(SiwVm vm, int n, String label, String script) {
            this.vm = vm;
            this.n = n;
            this.label = label;
            this.script = script;
        }

        Path file(String ext) {
            return vm.jobs.resolve(n + "." + ext);
        }

        /** The guest path of this job's PID file, for the script to write into. */
        String pidFile() {
            return "/mnt/host/jobs/" + n + ".pid";
        }

        String output() {
            return Logs.read(file("out"));
        }

        String errors() {
            return Logs.read(file("err"));
        }

        String klog() {
            return Logs.read(file("klog"));
        }

        /** The exit status, or null while it runs. */
        Integer exitCode() {
            String rc = Logs.read(file("rc")).trim();
            return rc.isEmpty() ? null : Integer.valueOf(rc.split("\\s+")[0]);
        }

        /** Guest-side wall time (guest uptime at end minus at start), or NaN while it runs. */
        double guestSeconds() {
            String[] f = Logs.read(file("rc")).trim().split("\\s+");
            return f.length >= 3 ? Double.parseDouble(f[2]) - Double.parseDouble(f[1]) : Double.NaN;
        }

        boolean awaitOutput(String text, Duration timeout) {
            long deadline = System.nanoTime() + timeout.toNanos();
            while (System.nanoTime() < deadline) {
                if (output().contains(text)) {
                    return true;
                }
                if (exitCode() != null || !vm.isRunning()) {
                    return output().contains(text);
                }
                Logs.sleep(50);
            }
            return false;
        }

        /** The exit status, or null if it still runs after the timeout. */
        Integer awaitExit(Duration timeout) {
            long deadline = System.nanoTime() + timeout.toNanos();
            while (System.nanoTime() < deadline) {
                Integer rc = exitCode();
                if (rc != null) {
                    return rc;
                }
                if (!vm.isRunning()) {
                    return null;
                }
                Logs.sleep(50);
            }
            return exitCode();
        }

        /** Kills the job's process (by the PID it wrote) if it is still running. */
        void killIfRunning() {
            if (exitCode() == null && vm.isRunning() && Files.exists(file("pid"))) {
                try {
                    String pid = Logs.read(file("pid")).trim();
                    GuestJob kill = vm.submit("kill job " + n, "kill " + pid + "; sleep 1; kill -9 " + pid
                            + " 2>/dev/null; true");
                    kill.awaitExit(Duration.ofSeconds(10));
                    awaitExit(Duration.ofSeconds(5));
                } catch (IOException | AssertionError e) {
                    // the VM goes away at the end of the class anyway
                }
            }
        }
    }
}
