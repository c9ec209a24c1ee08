package io.softrdma.samples.perf;

import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.reactive.RedisReactiveCommands;
import io.lettuce.core.codec.ByteArrayCodec;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.DefaultClientResources;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import reactor.core.publisher.Mono;

/**
 * Redis as the cache benchmark measures it: a {@code redis-server} started on loopback ({@link RedisServerProcess})
 * and one Lettuce connection, its reactive API, on one I/O thread; Lettuce pipelines the outstanding commands on
 * that connection, as an application's shared connection does.
 *
 * <p>Thread safety: as {@link CacheTarget}.
 */
final class RedisTarget implements CacheTarget {
    /** Lettuce names its event loops {@code lettuce-epollEventLoop-...} and {@code lettuce-eventExecutorLoop-...}. */
    static final String CLIENT_THREADS = "lettuce-";

    private final RedisServerProcess server;
    private final ClientResources resources;
    private final RedisClient client;
    private final StatefulRedisConnection<byte[], byte[]> connection;
    private final RedisReactiveCommands<byte[], byte[]> commands;
    private final ProcessCpu serverCpu;

    RedisTarget(Path executable) throws Exception {
        server = RedisServerProcess.start(executable);
        try {
            resources = DefaultClientResources.builder().ioThreadPoolSize(1).computationThreadPoolSize(1).build();
            client = RedisClient.create(resources, RedisURI.builder().withHost("127.0.0.1").withPort(server.port())
                    .withTimeout(Duration.ofSeconds(30)).build());
            // Completions are published on the I/O thread (Lettuce's default), as SoftRDMA's are on its event loop.
            client.setOptions(ClientOptions.builder().publishOnScheduler(false).build());
            connection = client.connect(ByteArrayCodec.INSTANCE);
            commands = connection.reactive();
            serverCpu = new ProcessCpu(server.pid());
        } catch (Exception e) {
            server.close();
            throw e;
        }
    }

    @Override
    public String name() {
        return "redis";
    }

    @Override
    public Mono<byte[]> get(byte[] key) {
        return commands.get(key);
    }

    @Override
    public Mono<Void> set(byte[] key, byte[] value) {
        return commands.set(key, value).then();
    }

    @Override
    public double serverCpu() {
        return serverCpu.utilization();
    }

    @Override
    public void restartServerCpu() {
        serverCpu.restart();
    }

    @Override
    public String clientThreads() {
        return CLIENT_THREADS;
    }

    @Override
    public void close() throws IOException {
        try {
            connection.close();
            client.shutdown(Duration.ZERO, Duration.ofSeconds(5));
            resources.shutdown(0, 5, TimeUnit.SECONDS).get(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException | TimeoutException e) {
            throw new IOException("Lettuce's resources did not shut down: " + e.getMessage(), e);
        } finally {
            server.close();
        }
    }
}
