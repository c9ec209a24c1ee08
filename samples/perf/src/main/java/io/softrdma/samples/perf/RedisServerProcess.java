package io.softrdma.samples.perf;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * A {@code redis-server} this process starts on 127.0.0.1 for the cache benchmark, as a team would run it for a
 * cache: no persistence (no RDB snapshots, no append-only file), one I/O thread (Redis's default), and stopped
 * with the benchmark.
 *
 * <p>Thread safety: start, then close, from one thread.
 */
final class RedisServerProcess implements AutoCloseable {
    /** How long Redis may take to say it is ready. */
    private static final long READY_SECONDS = 20;
    /** What redis-server logs once it accepts connections. */
    private static final String READY = "Ready to accept connections";

    private final Process process;
    private final int port;
    private final Path directory;

    private RedisServerProcess(Process process, int port, Path directory) {
        this.process = process;
        this.port = port;
        this.directory = directory;
    }

    /**
     * The executable for {@code name}: the path itself when it names a file, else the first match on {@code PATH}.
     *
     * @return empty when there is none
     */
    static Optional<Path> locate(String name) {
        if (name.contains(File.separator)) {
            Path p = Path.of(name);
            return Files.isExecutable(p) ? Optional.of(p) : Optional.empty();
        }
        String path = System.getenv("PATH");
        for (String dir : (path == null ? "" : path).split(File.pathSeparator)) {
            Path p = Path.of(dir.isEmpty() ? "." : dir, name);
            if (Files.isExecutable(p)) {
                return Optional.of(p);
            }
        }
        return Optional.empty();
    }

    /**
     * Starts {@code executable} on a free loopback port and waits until it accepts connections.
     *
     * @throws IOException when it does not start or does not become ready, with its last output lines
     */
    static RedisServerProcess start(Path executable) throws IOException, InterruptedException {
        int port;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = s.getLocalPort();
        }
        Path dir = Files.createTempDirectory("perf-redis");
        Process p = new ProcessBuilder(List.of(executable.toString(), "--port", Integer.toString(port),
                "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--daemonize", "no",
                "--dir", dir.toString(), "--logfile", ""))
                .redirectErrorStream(true).start();
        Deque<String> tail = new ArrayDeque<>();
        CompletableFuture<Void> ready = new CompletableFuture<>();
        Thread reader = new Thread(() -> {
            try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(),
                    StandardCharsets.UTF_8))) {
                for (String line; (line = r.readLine()) != null; ) {
                    // Keeps reading to the end, so that Redis never blocks on a full pipe.
                    synchronized (tail) {
                        tail.addLast(line);
                        if (tail.size() > 10) {
                            tail.removeFirst();
                        }
                    }
                    if (line.contains(READY)) {
                        ready.complete(null);
                    }
                }
            } catch (IOException e) {
                // the process ended
            }
            ready.completeExceptionally(new IOException("redis-server ended before it was ready"));
        }, "redis-server-output");
        reader.setDaemon(true);
        reader.start();
        RedisServerProcess server = new RedisServerProcess(p, port, dir);
        try {
            ready.get(READY_SECONDS, TimeUnit.SECONDS);
            return server;
        } catch (ExecutionException | TimeoutException e) {
            server.close();
            String said;
            synchronized (tail) {
                said = String.join("\n  ", tail);
            }
            throw new IOException(executable + " did not become ready within " + READY_SECONDS + " s; it said:\n  "
                    + said, e);
        }
    }

    int port() {
        return port;
    }

    long pid() {
        return process.pid();
    }

    /** Stops Redis (SIGTERM, then SIGKILL after 10 s) and removes its directory; an interrupt is kept, not thrown. */
    @Override
    public void close() throws IOException {
        process.destroy();
        try {
            if (!process.waitFor(10, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
        try (var files = Files.list(directory)) {
            for (Path f : files.toList()) {
                Files.deleteIfExists(f);
            }
        }
        Files.deleteIfExists(directory);
    }
}
