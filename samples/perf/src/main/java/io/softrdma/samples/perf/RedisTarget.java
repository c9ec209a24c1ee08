package io.softrdma.samples.perf;

import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.reactive.RedisReactiveCommands;
import io.lettuce.core.codec.ByteArrayCodec;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.DefaultClientResources;
import io.lettuce.core.resource.EventLoopGroupProvider;
import io.netty.channel.EventLoopGroup;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.netty.util.concurrent.EventExecutorGroup;
import io.netty.util.concurrent.Future;
import io.netty.util.concurrent.ImmediateEventExecutor;
import io.softrdma.cm.RdmaTransport;
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
 * that connection, as an application's shared connection does. With {@code --busy-poll} that I/O thread polls as
 * RdmaCache's loops do ({@code RdmaTransport.newEventLoopGroup(int, ThreadFactory, Duration)}), so that the client
 * side of the comparison is alike; redis-server itself has no such setting and sleeps in {@code epoll_wait}.
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

    RedisTarget(Path executable, Duration busyPoll) throws Exception {
        server = RedisServerProcess.start(executable);
        try {
            DefaultClientResources.Builder builder = DefaultClientResources.builder().ioThreadPoolSize(1)
                    .computationThreadPoolSize(1);
            if (!busyPoll.isZero()) {
                builder.eventLoopGroupProvider(new PollingLoop(RdmaTransport.best().newEventLoopGroup(1,
                        new DefaultThreadFactory(CLIENT_THREADS + "epollEventLoop", true), busyPoll)));
            }
            resources = builder.build();
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

    /** Lettuce's I/O loop given as the one polling group, shut down with the client's resources. */
    private record PollingLoop(EventLoopGroup group) implements EventLoopGroupProvider {
        @Override
        public <T extends EventLoopGroup> T allocate(Class<T> type) {
            if (!type.isInstance(group)) {
                throw new IllegalStateException("Lettuce asked for a " + type.getName() + ", not the "
                        + group.getClass().getName() + " perf polls with");
            }
            return type.cast(group);
        }

        @Override
        public int threadPoolSize() {
            return 1;
        }

        @Override
        public Future<Boolean> release(EventExecutorGroup eventLoopGroup, long quietPeriod, long timeout,
                TimeUnit unit) {
            return ImmediateEventExecutor.INSTANCE.newSucceededFuture(true); // shut down with the resources
        }

        @Override
        public Future<Boolean> shutdown(long quietPeriod, long timeout, TimeUnit unit) {
            group.shutdownGracefully(quietPeriod, timeout, unit).syncUninterruptibly();
            return ImmediateEventExecutor.INSTANCE.newSucceededFuture(true);
        }
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
