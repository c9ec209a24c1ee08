package io.softrdma.interop;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/** One run of {@code java -jar rping.jar ...}, its stdout and stderr in files, bounded in time. */
final class JavaRping implements AutoCloseable {
    static final Pattern CLIENT_DONE =
            Pattern.compile("^rping: (\\d+) pings completed, data verified", Pattern.MULTILINE);
    static final Pattern SERVER_DONE =
            Pattern.compile("^rping: connection from (\\S+): (\\d+) pings served, data verified", Pattern.MULTILINE);
    static final Pattern ERROR_LINE = Pattern.compile("^rping: error:.*$", Pattern.MULTILINE);

    final String name;
    final List<String> command;
    final Path stdout;
    final Path stderr;
    private final Process process;
    private final long startNanos;
    private long endNanos;

    private JavaRping(String name, List<String> command, Path stdout, Path stderr, Process process) {
        this.name = name;
        this.command = command;
        this.stdout = stdout;
        this.stderr = stderr;
        this.process = process;
        this.startNanos = System.nanoTime();
    }

    static JavaRping start(Path dir, String name, List<String> args) throws IOException {
        Path jar = Harness.rpingJarSnapshot();
        Files.createDirectories(dir);
        List<String> cmd = new ArrayList<>(List.of(Harness.javaBin(), "-jar", jar.toString()));
        cmd.addAll(args);
        Path out = dir.resolve(name + ".stdout");
        Path err = dir.resolve(name + ".stderr");
        Process p = new ProcessBuilder(cmd).redirectOutput(out.toFile()).redirectError(err.toFile())
                .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null"))).start();
        Reaper.register(p);
        return new JavaRping(name, cmd, out, err, p);
    }

    /** The command as the documentation shows it: {@code java -jar rping.jar ...}. */
    String shownCommand() {
        return "java -jar rping.jar " + command.subList(3, command.size()).stream()
                .map(a -> a.isEmpty() || a.contains(" ") ? "'" + a + "'" : a).collect(Collectors.joining(" "));
    }

    boolean awaitStdout(String text, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            if (out().contains(text)) {
                return true;
            }
            if (!process.isAlive()) {
                return out().contains(text);
            }
            Logs.sleep(50);
        }
        return false;
    }

    /** The exit code, or null when it is still running after the timeout (it is then killed). */
    Integer awaitExit(Duration timeout) {
        try {
            if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                endNanos = System.nanoTime();
                Reaper.destroy(process);
                return null;
            }
        } catch (InterruptedException e) {
            Reaper.destroy(process);
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
        endNanos = System.nanoTime();
        Reaper.forget(process);
        return process.exitValue();
    }

    /** The exit code if the process has ended, else null. */
    Integer exitCodeIfDone() {
        return process.isAlive() ? null : process.exitValue();
    }

    boolean isAlive() {
        return process.isAlive();
    }

    /** Wall time from start to exit (or to now), JVM start-up included. */
    double seconds() {
        return ((endNanos != 0 ? endNanos : System.nanoTime()) - startNanos) / 1e9;
    }

    String out() {
        return Logs.read(stdout);
    }

    String err() {
        return Logs.read(stderr);
    }

    /** Pings from the final success line (client or server), or -1. */
    long pingsReported() {
        Matcher c = CLIENT_DONE.matcher(out());
        if (c.find()) {
            return Long.parseLong(c.group(1));
        }
        Matcher s = SERVER_DONE.matcher(out());
        return s.find() ? Long.parseLong(s.group(2)) : -1;
    }

    String errorLine() {
        Matcher m = ERROR_LINE.matcher(err());
        return m.find() ? m.group() : null;
    }

    @Override
    public void close() {
        if (process.isAlive()) {
            endNanos = System.nanoTime();
        }
        Reaper.destroy(process);
    }
}
