package io.softrdma.interop;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The Linux kernel NFS server (nfsd with svcrdma, NFSv4 only) on siw in the siw VM, as
 * {@code ../shared/interop/nfs-rdma/run_read_demo.sh} sets it up: {@code build_nfs.sh} derives the guest image
 * ({@code $WORK/nfs/out}) from the shared one, {@code run.sh} boots it with {@code WORK=$WORK/nfs}, one host port
 * forwarded to the guest's NFS/RDMA port 20049, and the guest command starts nfsd on {@code rdma 20049}
 * ({@code nfsrdma-start}) and exports a tmpfs holding {@code data.bin} (1 MiB, byte i = i*7 mod 251) as the NFSv4
 * root to the host, 10.0.2.2 ({@code nfsrdma-export}). Then it prints the kernel log every 2 s into the serial log.
 *
 * <p>For the WRITE cases the guest command does three things more, without changing the shared image: before
 * nfsd starts it sets NFSv4's grace period to 10 s, the least Linux takes ({@code nfsv4gracetime}; during grace
 * nfsd refuses new OPENs, and its default of 90 s would idle the run); after {@code nfsrdma-export} it grows the
 * tmpfs to 96 MiB (two 16 MiB files and the rest fit) and writes the export again without READONLY
 * ({@code 9218} = 0x2402: INSECURE_PORT|NOSUBTREECHECK|FSID), which replaces the read-only entry in nfsd's
 * export cache.
 *
 * <p>{@link #close()} stops it with {@code run.sh --stop RUNDIR}, and kills its qemu by PID if it is still there.
 */
final class NfsVm implements AutoCloseable {
    /** The guest's NFS/RDMA port (nfsd's rdma listener). */
    static final int GUEST_PORT = 20049;
    static final String GUEST_COMMAND = "modprobe nfsd && mount -t nfsd nfsd /proc/fs/nfsd"
            + " && echo 10 > /proc/fs/nfsd/nfsv4gracetime && umount /proc/fs/nfsd"
            + " || echo NFSRDMA-'ERROR' gracetime; nfsrdma-start; siwvm-wait-listen 20049 30; nfsrdma-export;"
            + " mount -o remount,size=96m /export"
            + " && printf 'siwhost /export 2147483647 9218 65534 65534 0\\n' > /proc/net/rpc/nfsd.export/channel"
            + " && grep -q 'siwhost(rw' /proc/net/rpc/nfsd.export/content && echo NFSRDMA-EXPORT-'RW'"
            + " || echo NFSRDMA-'ERROR' export-rw; dmesg -c >/dev/null; while true; do sleep 2; dmesg -c; done";
    /**
     * What the guest command prints once the export is writable. The quotes in the command keep the serial log's
     * echo of the command itself from matching.
     */
    static final String EXPORTED = "NFSRDMA-EXPORT-RW";

    final Path dir;
    final Path runDir;
    final Path serialLog;
    final int hostPort;
    final String bootCommand;
    /** Seconds from run.sh's start to the export in place. */
    double bootSeconds;
    private Process lifeline;

    private NfsVm(Path dir, Path runDir, int hostPort, String bootCommand) {
        this.dir = dir;
        this.runDir = runDir;
        this.serialLog = runDir.resolve("serial.log");
        this.hostPort = hostPort;
        this.bootCommand = bootCommand;
    }

    /** The directory of the NFS/RDMA scripts ({@code build_nfs.sh}, ...), next to the siw-vm harness. */
    static Path scriptsDir() {
        return Harness.siwVmDir().resolve("../nfs-rdma").normalize();
    }

    /** The NFS guest's run.sh WORK directory: {@code $WORK/nfs} ({@code /var/tmp/siw-vm/nfs}). */
    static Path workDir() {
        return Harness.workDir().resolve("nfs");
    }

    /** Why the NFS guest cannot be made here (beyond {@link Harness#unavailable()}), or null. */
    static String unavailable() {
        Path build = scriptsDir().resolve("build_nfs.sh");
        if (!Files.isRegularFile(build)) {
            return "the NFS/RDMA guest scripts are missing (" + build + ")";
        }
        for (String tool : List.of("modprobe", "depmod", "gzip")) {
            if (!Harness.onPath(tool)) {
                return "build_nfs.sh needs " + tool + ", which is not on the PATH";
            }
        }
        return null;
    }

    /**
     * Builds the NFS guest image ({@code build_nfs.sh}, about 2 s), boots it and waits until the export is in
     * place.
     *
     * @param lifetimeSeconds run.sh's hard bound on the VM's lifetime
     */
    static NfsVm boot(String name, int lifetimeSeconds) throws IOException, InterruptedException {
        Path dir = Harness.LOG_DIR.resolve(name);
        SiwVm.deleteTree(dir);
        Path runDir = dir.resolve("vm");
        Files.createDirectories(runDir);
        runDir = runDir.toRealPath();

        // 1. The image. RPCBIND=0: NFSv4 needs no rpcbind, and so build_nfs.sh downloads nothing.
        Path buildLog = dir.resolve("build_nfs.log");
        System.err.println("[interop] building the NFS guest image: " + scriptsDir().resolve("build_nfs.sh")
                + " (log " + buildLog + ")");
        ProcessBuilder build = new ProcessBuilder("bash", scriptsDir().resolve("build_nfs.sh").toString())
                .directory(scriptsDir().toFile()).redirectErrorStream(true).redirectOutput(buildLog.toFile());
        build.environment().putAll(Map.of("BASE", Harness.workDir().toString(), "W", workDir().toString(),
                "RPCBIND", "0"));
        Process b = Reaper.register(build.start());
        if (!b.waitFor(300, TimeUnit.SECONDS)) {
            Reaper.destroy(b);
            throw new AssertionError("build_nfs.sh did not finish within 300 s" + Logs.tails(30, buildLog));
        }
        Reaper.forget(b);
        if (b.exitValue() != 0) {
            throw new AssertionError("build_nfs.sh exited with status " + b.exitValue() + Logs.tails(30, buildLog));
        }

        // 2. The boot, as run_read_demo.sh does it.
        int hostPort = Ports.free();
        List<String> cmd = new ArrayList<>(List.of("bash", Harness.runScript().toString(), "--background",
                "--timeout", Integer.toString(lifetimeSeconds), "--rundir", runDir.toString(),
                "--hostfwd", hostPort + ":" + GUEST_PORT, "--wait-marker", "SIW-VM-LISTEN " + GUEST_PORT, "--",
                GUEST_COMMAND));
        String shown = "WORK=" + workDir() + " run.sh --background --timeout " + lifetimeSeconds + " --rundir <logs>/"
                + name + "/vm --hostfwd " + hostPort + ":" + GUEST_PORT + " --wait-marker 'SIW-VM-LISTEN "
                + GUEST_PORT + "' -- '" + GUEST_COMMAND + "'";
        Path runLog = dir.resolve("run.sh.log");
        Files.writeString(runLog, "WORK=" + workDir() + " " + String.join(" ", cmd) + "\n");
        System.err.println("[interop] booting VM '" + name + "': " + shown);
        Reaper.registerVm(runDir);
        Process lifeline = new ProcessBuilder("bash", SiwVm.resource("vm-lifeline.sh", dir).toString(), runDir.toString())
                .redirectErrorStream(true).redirectOutput(runDir.resolve("lifeline.log").toFile()).start();
        long t0 = System.nanoTime();
        ProcessBuilder run = new ProcessBuilder(cmd).directory(Harness.siwVmDir().toFile()).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(runLog.toFile()));
        run.environment().put("WORK", workDir().toString());
        Process p = Reaper.register(run.start());
        boolean done = p.waitFor(180, TimeUnit.SECONDS);
        if (!done || p.exitValue() != 0) {
            Reaper.destroy(p);
            Reaper.killVm(runDir);
            lifeline.getOutputStream().close();
            throw new AssertionError("VM '" + name + "' did not come up (" + (done ? "run.sh exit " + p.exitValue()
                    : "run.sh still waiting after 180 s") + ")" + Logs.tails(40, runLog, runDir.resolve("serial.log"),
                    runDir.resolve("qemu.stderr")));
        }
        Reaper.forget(p);
        NfsVm vm = new NfsVm(dir, runDir, hostPort, shown);
        vm.lifeline = lifeline;

        // 3. nfsrdma-export runs after the listen marker: wait for its last line (run_read_demo.sh sleeps 2 s).
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (!Logs.read(vm.serialLog).contains(EXPORTED)) {
            if (System.nanoTime() > deadline || !vm.isRunning()) {
                vm.close();
                throw new AssertionError("VM '" + name + "': no '" + EXPORTED + "' from nfsrdma-export"
                        + Logs.tails(40, vm.serialLog));
            }
            Thread.sleep(100);
        }
        String serial = Logs.read(vm.serialLog);
        if (serial.contains("NFSRDMA-ERROR")) {
            vm.close();
            throw new AssertionError("VM '" + name + "': nfsrdma-start or nfsrdma-export failed"
                    + Logs.tails(60, vm.serialLog));
        }
        vm.bootSeconds = (System.nanoTime() - t0) / 1e9;
        System.err.printf("[interop] VM '%s' exported /export after %.1f s (qemu pid %s), NFS/RDMA at 127.0.0.1:%d%n",
                name, vm.bootSeconds, Reaper.qemuOf(runDir).map(h -> Long.toString(h.pid())).orElse("?"), hostPort);
        return vm;
    }

    boolean isRunning() {
        return Reaper.qemuOf(runDir).isPresent();
    }

    /** The serial log from the export on: nfsd's kernel messages while the cases ran. */
    String kernelLogAfterExport() {
        String log = Logs.read(serialLog);
        int i = log.indexOf(EXPORTED);
        return i < 0 ? log : log.substring(i);
    }

    /** Stops the VM: {@code run.sh --stop RUNDIR}, then by PID if it is still there 10 s later. */
    @Override
    public void close() {
        Path stopLog = dir.resolve("run.sh-stop.log");
        try {
            Process p = Reaper.register(new ProcessBuilder("bash", Harness.runScript().toString(), "--stop",
                    runDir.toString()).redirectErrorStream(true).redirectOutput(stopLog.toFile()).start());
            if (!p.waitFor(20, TimeUnit.SECONDS)) {
                Reaper.destroy(p);
            }
            Reaper.forget(p);
        } catch (IOException e) {
            // the kill below does it
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while ((isRunning() || Reaper.wrapperOf(runDir).isPresent()) && System.nanoTime() < deadline) {
            Logs.sleep(100);
        }
        if (Reaper.killVm(runDir)) {
            System.err.println("[interop] NFS VM did not stop with run.sh --stop: killed its qemu");
        }
        Reaper.forgetVm(runDir);
        if (lifeline != null) {
            try {
                lifeline.getOutputStream().close();
            } catch (IOException e) {
                // it ends with this JVM anyway
            }
        }
        try {
            Files.deleteIfExists(runDir.resolve("initrd.img"));
        } catch (IOException e) {
            // harmless
        }
    }
}
