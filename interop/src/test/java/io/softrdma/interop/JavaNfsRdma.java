package io.softrdma.interop;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * One run of {@code java -jar nfs-rdma.jar ...} (samples/nfs-rdma) to its end, its stdout and stderr in files, and
 * the figures it printed.
 */
final class JavaNfsRdma {
    static final String MISSING_JAR = "the NFS/RDMA sample is missing: build it first (./mvnw -B package, or"
            + " ./mvnw -B -o install -DskipTests -pl rdma-core,rdma-reactive && ./mvnw -B -o package -DskipTests"
            + " -pl samples/nfs-rdma), or point -Dinterop.nfsRdmaJar at it: ";

    static final Pattern READ = Pattern.compile("(?m)^nfs-rdma: read (\\d+) octets of (\\S+) in (\\d+) READ calls?,"
            + " ([\\d.]+) s, ([\\d.]+) MB/s(, EOF reached)?$");
    static final Pattern CREDITS = Pattern.compile("(?m)^nfs-rdma: credits granted (\\d+) \\(used up to (\\d+)\\);"
            + " invalidations: remote (\\d+), local (\\d+)$");
    static final Pattern WROTE = Pattern.compile("(?m)^nfs-rdma: wrote (\\d+) octets of (\\S+) to (\\S+) in (\\d+)"
            + " WRITE calls? \\((\\d+) by Read chunk, (\\d+) inline\\), ([\\d.]+) s, ([\\d.]+) MB/s$");
    static final Pattern READ_REQUESTS = Pattern.compile("(?m)^nfs-rdma: RDMA Read Requests served: (\\d+), (\\d+)"
            + " octets in Read Responses$");
    static final Pattern COMMITTED = Pattern.compile("(?m)^nfs-rdma: COMMIT verifier ([0-9a-f]{16}) matches the"
            + " WRITEs'; CLOSE: size (\\d+)$");
    static final Pattern OPENED = Pattern.compile("(?m)^nfs-rdma: OPEN (\\S+): filehandle ([0-9a-f]+) \\(\\d+ octets\\),"
            + " (confirmed with OPEN_CONFIRM|no OPEN_CONFIRM asked), delegation (\\d+), open stateid seqid (\\d+)$");
    static final Pattern ENTRY = Pattern.compile("(?m)^nfs-rdma: entry (\\S+) (\\S+) (\\d+)$");
    static final Pattern MD5 = Pattern.compile("(?m)^nfs-rdma: md5 ([0-9a-f]{32})$");
    static final Pattern CONNECTED = Pattern.compile("(?m)^nfs-rdma: connected to \\S+: (.*)$");
    static final Pattern NULLS = Pattern.compile("(?m)^nfs-rdma: (\\d+) NULL calls? OK: latency min (\\d+) µs,"
            + " median (\\d+) µs, max (\\d+) µs; credits granted (\\d+) \\(used up to (\\d+)\\)$");

    private static Path snapshot;

    final List<String> command;
    final Path stdout;
    final Path stderr;
    /** The exit code, or null when it hung and was killed. */
    final Integer rc;
    final double seconds;

    private JavaNfsRdma(List<String> command, Path stdout, Path stderr, Integer rc, double seconds) {
        this.command = command;
        this.stdout = stdout;
        this.stderr = stderr;
        this.rc = rc;
        this.seconds = seconds;
    }

    static Path jar() {
        return Path.of(System.getProperty("interop.nfsRdmaJar", Harness.REPO_ROOT.resolve(
                "samples/nfs-rdma/target/nfs-rdma.jar").toString())).toAbsolutePath().normalize();
    }

    /** A copy of the jar taken at first use, so that every case runs the same build. */
    static synchronized Path jarSnapshot() throws IOException {
        if (snapshot == null) {
            Path jar = jar();
            if (!Files.isRegularFile(jar)) {
                throw new AssertionError(MISSING_JAR + jar);
            }
            Files.createDirectories(Harness.LOG_DIR);
            Path copy = Harness.LOG_DIR.resolve("nfs-rdma.jar");
            Files.copy(jar, copy, StandardCopyOption.REPLACE_EXISTING);
            Files.writeString(Harness.LOG_DIR.resolve("nfs-rdma.jar.txt"), jar + "\n" + Files.size(jar)
                    + " octets, modified " + Files.getLastModifiedTime(jar) + "\n");
            snapshot = copy;
        }
        return snapshot;
    }

    /** Runs the sample with {@code args} and waits for it (killed after {@code timeout}). */
    static JavaNfsRdma run(Path dir, String name, List<String> args, Duration timeout)
            throws IOException, InterruptedException {
        Files.createDirectories(dir);
        List<String> cmd = new ArrayList<>(List.of(Harness.javaBin(), "-jar", jarSnapshot().toString()));
        cmd.addAll(args);
        Path out = dir.resolve(name + ".stdout");
        Path err = dir.resolve(name + ".stderr");
        long t0 = System.nanoTime();
        Process p = Reaper.register(new ProcessBuilder(cmd).redirectOutput(out.toFile()).redirectError(err.toFile())
                .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null"))).start());
        Integer rc = null;
        if (p.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
            rc = p.exitValue();
            Reaper.forget(p);
        } else {
            Reaper.destroy(p);
        }
        return new JavaNfsRdma(cmd, out, err, rc, (System.nanoTime() - t0) / 1e9);
    }

    /** The command as the documentation shows it: {@code java -jar nfs-rdma.jar ...}. */
    String shownCommand() {
        return "java -jar nfs-rdma.jar " + command.subList(3, command.size()).stream()
                .map(a -> a.isEmpty() || a.contains(" ") ? "'" + a + "'" : a).collect(Collectors.joining(" "));
    }

    String out() {
        return Logs.read(stdout);
    }

    String err() {
        return Logs.read(stderr);
    }

    /** Group {@code group} of the first match of {@code p} in stdout, or null. */
    String find(Pattern p, int group) {
        Matcher m = p.matcher(out());
        return m.find() ? m.group(group) : null;
    }

    long number(Pattern p, int group) {
        String s = find(p, group);
        return s == null ? -1 : Long.parseLong(s);
    }

    /** Stdout and stderr, for a failure message. */
    String details() {
        return "\n----- " + shownCommand() + " (exit " + (rc == null ? "none: killed" : rc) + ", "
                + String.format(java.util.Locale.ROOT, "%.1f s", seconds) + ")\n----- stdout:\n" + Logs.tail(out(), 40)
                + "\n----- stderr:\n" + Logs.tail(err(), 40);
    }
}
