package io.softrdma.interop;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * Ends what the tests started, and only that: every child process, and every qemu by the PID that
 * run.sh wrote into the run directory of a VM this JVM booted. A qemu is killed only after its
 * {@code /proc/PID/cmdline} shows it is qemu-system-x86_64 running from that run directory (never by
 * name). A JVM shutdown hook does the same for whatever is still registered when the JVM exits, also
 * when a test failed, timed out or surefire ended the fork.
 */
final class Reaper {
    private static final Set<Process> PROCESSES = ConcurrentHashMap.newKeySet();
    private static final Set<Path> VM_RUN_DIRS = ConcurrentHashMap.newKeySet();

    static {
        Runtime.getRuntime().addShutdownHook(new Thread(Reaper::reapAll, "interop-reaper"));
    }

    private Reaper() {}

    static Process register(Process p) {
        PROCESSES.add(p);
        return p;
    }

    static void forget(Process p) {
        PROCESSES.remove(p);
    }

    /** A VM's run directory (run.sh --rundir): its qemu.pid and timeout.pid identify the processes. */
    static void registerVm(Path runDir) {
        VM_RUN_DIRS.add(runDir);
    }

    static void forgetVm(Path runDir) {
        VM_RUN_DIRS.remove(runDir);
    }

    static void reapAll() {
        for (Process p : PROCESSES) {
            destroy(p);
        }
        for (Path runDir : VM_RUN_DIRS) {
            if (killVm(runDir)) {
                System.err.println("[interop] killed the VM of " + runDir + " at JVM exit");
            }
        }
    }

    static void destroy(Process p) {
        if (p.isAlive()) {
            p.descendants().forEach(ProcessHandle::destroy);
            p.destroy();
            try {
                if (!p.waitFor(5, TimeUnit.SECONDS)) {
                    p.descendants().forEach(ProcessHandle::destroyForcibly);
                    p.destroyForcibly();
                }
            } catch (InterruptedException e) {
                p.destroyForcibly();
                Thread.currentThread().interrupt();
            }
        }
        PROCESSES.remove(p);
    }

    /** The qemu of this run directory if it still runs. */
    static Optional<ProcessHandle> qemuOf(Path runDir) {
        return pidFrom(runDir.resolve("qemu.pid"))
                .filter(pid -> cmdline(pid).contains("qemu-system-x86_64") && cmdline(pid).contains(runDir.toString()))
                .flatMap(ProcessHandle::of).filter(ProcessHandle::isAlive);
    }

    /** The timeout(1) process run.sh started qemu under, if it still runs. */
    static Optional<ProcessHandle> wrapperOf(Path runDir) {
        return pidFrom(runDir.resolve("timeout.pid"))
                .filter(pid -> cmdline(pid).startsWith("timeout") && cmdline(pid).contains(runDir.toString()))
                .flatMap(ProcessHandle::of).filter(ProcessHandle::isAlive);
    }

    /**
     * Stops the VM of a run directory: SIGTERM to its qemu (qemu exits at once), SIGKILL after 5 s.
     * When qemu had not yet written its pid file, the timeout(1) wrapper that run.sh started for it
     * gets the SIGTERM instead (it passes it on to qemu). Returns whether anything was running.
     */
    static boolean killVm(Path runDir) {
        boolean killed = false;
        Optional<ProcessHandle> qemu = qemuOf(runDir);
        if (qemu.isPresent()) {
            killed = true;
            terminate(qemu.get());
        }
        Optional<ProcessHandle> wrapper = wrapperOf(runDir);
        if (wrapper.isPresent()) {
            killed = true;
            terminate(wrapper.get());
        }
        VM_RUN_DIRS.remove(runDir);
        return killed;
    }

    private static void terminate(ProcessHandle h) {
        h.destroy();
        try {
            h.onExit().get(5, TimeUnit.SECONDS);
        } catch (Exception e) {
            h.destroyForcibly();
        }
    }

    private static Optional<Long> pidFrom(Path file) {
        try {
            String s = Files.readString(file, StandardCharsets.US_ASCII).trim();
            return s.isEmpty() ? Optional.empty() : Optional.of(Long.parseLong(s));
        } catch (IOException | NumberFormatException e) {
            return Optional.empty();
        }
    }

    private static String cmdline(long pid) {
        try {
            byte[] b = Files.readAllBytes(Path.of("/proc", Long.toString(pid), "cmdline"));
            return new String(b, StandardCharsets.UTF_8).replace('\0', ' ');
        } catch (IOException e) {
            return "";
        }
    }
}
