package io.softrdma.interop;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Where things are: the siw-vm harness ({@code ../shared/interop/siw-vm} next to the repository, or
 * the {@code SIW_VM} environment variable), its built VM image ({@code $WORK/out}, default
 * {@code /var/tmp/siw-vm/out}), qemu, socat, the rping jar, and the log directory.
 *
 * <p>{@link #unavailable()} says why the VM cannot run here (null when it can). The tests turn that
 * into a JUnit assumption in each test, so that they are counted as skipped, with the reason. When
 * the image or qemu is missing and {@code interop.buildVm} is true, {@code build.sh} is run once
 * (root and apt-get needed; about a minute).
 */
final class Harness {
    static final Path REPO_ROOT = Path.of(System.getProperty("interop.repoRoot", "..")).toAbsolutePath().normalize();
    static final Path LOG_DIR = Path.of(System.getProperty("interop.logDir", "target/interop-logs"))
            .toAbsolutePath().normalize();
    /** Pings per case. */
    static final int PINGS = Integer.getInteger("interop.pings", 200);

    private static boolean checked;
    private static String unavailable;

    private Harness() {}

    static Path siwVmDir() {
        String env = System.getenv("SIW_VM");
        return (env != null && !env.isBlank() ? Path.of(env) : REPO_ROOT.resolve("../shared/interop/siw-vm"))
                .toAbsolutePath().normalize();
    }

    /** run.sh's WORK directory (it reads the same environment variable). */
    static Path workDir() {
        String env = System.getenv("WORK");
        return Path.of(env != null && !env.isBlank() ? env : "/var/tmp/siw-vm");
    }

    static Path runScript() {
        return siwVmDir().resolve("run.sh");
    }

    static Path rpingJar() {
        return Path.of(System.getProperty("interop.rpingJar", REPO_ROOT.resolve("samples/rping/target/rping.jar")
                .toString())).toAbsolutePath().normalize();
    }

    static final String MISSING_JAR = "the Java peer is missing: build it first (./mvnw -B package, or "
            + "./mvnw -B -o install -DskipTests -pl rdma-core && ./mvnw -B -o package -DskipTests -pl samples/rping), "
            + "or point -Dinterop.rpingJar at it: ";
    private static Path snapshot;

    /**
     * A copy of the rping jar taken at first use, so that every case runs the same build even when
     * the sample is rebuilt (or cleaned) meanwhile; its origin, size and time go to rping.jar.txt.
     */
    static synchronized Path rpingJarSnapshot() throws IOException {
        if (snapshot == null) {
            Path jar = rpingJar();
            if (!Files.isRegularFile(jar)) {
                throw new AssertionError(MISSING_JAR + jar);
            }
            Files.createDirectories(LOG_DIR);
            Path copy = LOG_DIR.resolve("rping.jar");
            Files.copy(jar, copy, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
            Files.writeString(LOG_DIR.resolve("rping.jar.txt"), jar + "\n" + Files.size(jar) + " octets, modified "
                    + Files.getLastModifiedTime(jar) + "\n");
            snapshot = copy;
        }
        return snapshot;
    }

    static String javaBin() {
        return Path.of(System.getProperty("java.home"), "bin", "java").toString();
    }

    /** Why the siw VM cannot run here, or null when it can. Checked (and the VM built if need be) once. */
    static synchronized String unavailable() {
        if (!checked) {
            checked = true;
            unavailable = check();
            if (unavailable != null) {
                System.err.println("[interop] siw interop tests will be skipped: " + unavailable);
            } else {
                System.err.println("[interop] harness " + siwVmDir() + ", VM image " + workDir().resolve("out")
                        + ", rping jar " + rpingJar() + ", logs in " + LOG_DIR);
            }
        }
        return unavailable;
    }

    private static String check() {
        if (!System.getProperty("os.name", "").toLowerCase().contains("linux")) {
            return "the siw VM harness runs on Linux only (os.name " + System.getProperty("os.name") + ")";
        }
        Path dir = siwVmDir();
        if (!Files.isRegularFile(dir.resolve("run.sh"))) {
            return "siw-vm harness not found at " + dir + " (set SIW_VM to its directory)";
        }
        if (missingTools().isEmpty() && imageMissing() == null) {
            return null;
        }
        String before = "missing: " + String.join(", ", missingTools())
                + (imageMissing() != null ? (missingTools().isEmpty() ? "" : ", ") + imageMissing() : "");
        if (!Boolean.parseBoolean(System.getProperty("interop.buildVm", "true"))) {
            return before + " (and interop.buildVm=false, so build.sh was not run)";
        }
        if (!isRoot()) {
            return before + "; build.sh needs root and apt-get to make them, and this is not root";
        }
        Path build = dir.resolve("build.sh");
        if (!Files.isRegularFile(build)) {
            return before + "; no build.sh in " + dir;
        }
        String buildResult = runBuild(build);
        List<String> still = missingTools();
        if (imageMissing() != null) {
            still.add(imageMissing());
        }
        if (!still.isEmpty()) {
            return before + "; build.sh " + buildResult + " and left " + String.join(", ", still) + " (log: "
                    + LOG_DIR.resolve("build.sh.log") + ")";
        }
        return null;
    }

    private static List<String> missingTools() {
        List<String> missing = new ArrayList<>();
        for (String tool : List.of("qemu-system-x86_64", "socat", "cpio", "timeout", "setsid", "python3", "bash")) {
            if (!onPath(tool)) {
                missing.add(tool);
            }
        }
        return missing;
    }

    private static String imageMissing() {
        Path out = workDir().resolve("out");
        if (!Files.isRegularFile(out.resolve("vmlinuz")) || !Files.isRegularFile(out.resolve("initramfs.cpio.gz"))) {
            return "the VM image (" + out + "/vmlinuz, initramfs.cpio.gz)";
        }
        return null;
    }

    /** Whether {@code tool} is an executable on PATH (or in /sbin, /usr/sbin). */
    static boolean onPath(String tool) {
        String path = System.getenv("PATH");
        if (path != null) {
            for (String d : path.split(":")) {
                if (!d.isEmpty() && Files.isExecutable(Path.of(d, tool))) {
                    return true;
                }
            }
        }
        // Debian keeps some tools (e.g. for building an initramfs) in sbin, off a non-root PATH.
        return Files.isExecutable(Path.of("/sbin", tool)) || Files.isExecutable(Path.of("/usr/sbin", tool));
    }

    /** ../shared/tools/wire-check next to the repository, or the path in the {@code WIRE_CHECK} variable. */
    static Path wireCheck() {
        String env = System.getenv("WIRE_CHECK");
        return (env != null && !env.isBlank() ? Path.of(env) : REPO_ROOT.resolve("../shared/tools/wire-check"))
                .toAbsolutePath().normalize();
    }

    /** A finished command: its exit status (-1: killed after its time) and its output, stderr included. */
    record Run(int status, String output) {
    }

    /** Runs {@code command} to its end, within {@code seconds}, its output (stderr included) kept in {@code log}. */
    static Run run(Path log, int seconds, String... command) {
        try {
            Process p = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
            Reaper.register(p);
            if (!p.waitFor(seconds, TimeUnit.SECONDS)) {
                Reaper.destroy(p);
                return new Run(-1, Logs.read(log));
            }
            return new Run(p.exitValue(), Logs.read(log));
        } catch (IOException e) {
            return new Run(-1, "could not run " + command[0] + ": " + e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return new Run(-1, "interrupted");
        }
    }

    private static boolean isRoot() {
        try {
            Process p = new ProcessBuilder("id", "-u").redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
            p.waitFor(10, TimeUnit.SECONDS);
            return out.equals("0");
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    private static String runBuild(Path build) {
        try {
            Files.createDirectories(LOG_DIR);
            Path log = LOG_DIR.resolve("build.sh.log");
            System.err.println("[interop] VM image or tools missing: running " + build + " (log " + log + ")");
            Process p = new ProcessBuilder("bash", build.toString()).directory(build.getParent().toFile())
                    .redirectErrorStream(true).redirectOutput(log.toFile()).start();
            Reaper.register(p);
            if (!p.waitFor(900, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                return "did not finish within 900 s";
            }
            return "exited with status " + p.exitValue();
        } catch (IOException e) {
            return "could not run (" + e + ")";
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "was interrupted";
        }
    }
}
