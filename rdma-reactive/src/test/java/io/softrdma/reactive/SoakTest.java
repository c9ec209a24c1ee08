package io.softrdma.reactive;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.netty.util.internal.PlatformDependent;
import io.softrdma.testing.WithoutLeakTracking;
import io.softrdma.verbs.Access;
import io.softrdma.verbs.RemoteMemory;
import java.lang.management.BufferPoolMXBean;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.ToLongFunction;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Soak: mixed RDMA Writes, Reads, requests and message streams over many connections for a while, with heap and
 * direct memory sampled every second. The suite runs 10 seconds over 16 connections; a long run is
 * {@code ./mvnw -B -pl rdma-reactive test -Dtest=SoakTest -Dsoak.duration=30m -Dsoak.connections=100} (see
 * docs/robustness.md). It checks that nothing fails, every connection keeps making progress, and memory does not
 * grow once warm: the samples of the second half stay within the first half's highest plus a margin.
 * Leak tracking is off (at PARANOID it records every buffer's accesses: minutes of traffic would measure the
 * detector); the leak-tracked tests cover the same paths.
 */
@ExtendWith(WithoutLeakTracking.class)
class SoakTest {
    private static final Duration DURATION = Duration.parse("PT" + System.getProperty("soak.duration", "10s")
            .toUpperCase(java.util.Locale.ROOT));
    private static final int CONNECTIONS = Integer.getInteger("soak.connections", 16);

    /**
     * One second's memory sample. {@code direct} is the JDK's count (direct byte buffers, memory segments);
     * {@code nettyNative} is what Netty allocates past it (with {@code sun.misc.Unsafe}, or with native access
     * on Java 24+: malloc through the FFM API), which the JDK's count does not see; docs/jdk.md.
     */
    private record Sample(long second, long heap, long direct, long nettyNative, long pooledDirect) {
    }

    @Test
    void mixedTrafficOverManyConnectionsRunsWithoutErrorsOrGrowth() throws Exception {
        Map<RdmaSession, LocalRegion> regions = new ConcurrentHashMap<>();
        DisposableRdmaServer server = RdmaServer.create().host("127.0.0.1").port(0).handle(session -> {
            regions.put(session, session.allocate(1 << 20, Access.LOCAL_WRITE, Access.REMOTE_WRITE,
                    Access.REMOTE_READ));
            session.respond(Mono::just, 8);
            return session.receive().then()
                    .doFinally(s -> regions.remove(session).dispose());
        }).bindNow();
        List<RdmaSession> clients = new ArrayList<>();
        List<Disposable> load = new ArrayList<>();
        AtomicLong operations = new AtomicLong();
        AtomicLong failures = new AtomicLong();
        AtomicLong[] perConnection = new AtomicLong[CONNECTIONS];
        try {
            for (int i = 0; i < CONNECTIONS; i++) {
                RdmaSession c = RdmaClient.create().host("127.0.0.1").port(server.port()).connect()
                        .block(Duration.ofSeconds(20));
                clients.add(c);
            }
            await().atMost(Duration.ofSeconds(10)).until(() -> regions.size() >= CONNECTIONS);
            assertThat(regions).hasSize(CONNECTIONS);
            // The client learns its region's handle out of band: here, straight from the server side's map.
            for (int i = 0; i < CONNECTIONS; i++) {
                RdmaSession c = clients.get(i);
                RemoteMemory remote = regionOf(regions, c).remote();
                AtomicLong mine = perConnection[i] = new AtomicLong();
                int n = i;
                Mono<Void> round = Mono.defer(() -> c.write(remote.slice((n % 16) * 65536L, 65536),
                        Unpooled.directBuffer(65536).writeZero(65536)))
                        .then(c.read(remote.slice((n % 16) * 65536L, 65536)))
                        .then(Mono.defer(() -> c.request(Unpooled.copiedBuffer("ping " + n, StandardCharsets.US_ASCII))))
                        .then(c.send(Flux.range(0, 256).map(x -> Unpooled.directBuffer(64).writeZero(64))))
                        .doOnSuccess(v -> {
                            operations.addAndGet(4);
                            mine.incrementAndGet();
                        });
                load.add(round.repeat().subscribe(v -> { }, e -> failures.incrementAndGet()));
            }

            List<Sample> samples = new ArrayList<>();
            long start = System.nanoTime();
            long end = start + DURATION.toNanos();
            long[] atHalf = null;
            for (long second = 1; System.nanoTime() < end; second++) {
                // Pacing, not waiting for anything: the soak's clock, one memory sample a second. Every check
                // below is on what the load did (failures, each connection's rounds, the samples), however many.
                Thread.sleep(Math.max(0, Math.min(1000, (end - System.nanoTime()) / 1_000_000)));
                if (atHalf == null && System.nanoTime() - start >= DURATION.toNanos() / 2) {
                    atHalf = java.util.Arrays.stream(perConnection).mapToLong(AtomicLong::get).toArray();
                }
                Runtime rt = Runtime.getRuntime();
                samples.add(new Sample(second, rt.totalMemory() - rt.freeMemory(), directMemory(),
                        Math.max(0, PlatformDependent.usedDirectMemory()),
                        PooledByteBufAllocator.DEFAULT.metric().usedDirectMemory()));
            }
            load.forEach(Disposable::dispose);
            System.out.printf("soak: %d connections, %s, %d operations, %d failures%n", CONNECTIONS, DURATION,
                    operations.get(), failures.get());
            for (Sample s : samples) {
                System.out.printf("soak: t=%3ds heap %6.1f MiB  direct %6.1f MiB  Netty native %6.1f MiB"
                        + "  pooled direct %6.1f MiB%n", s.second(), s.heap() / 1048576.0, s.direct() / 1048576.0,
                        s.nettyNative() / 1048576.0, s.pooledDirect() / 1048576.0);
            }
            assertThat(failures.get()).isZero();
            for (int i = 0; i < CONNECTIONS; i++) {
                assertThat(perConnection[i].get()).as("rounds of connection %d by the end, against half-time", i)
                        .isGreaterThan(atHalf == null ? 0 : atHalf[i]);
            }
            // Direct memory (registered regions, receive buffers, the pooled allocator's chunks) is allocated while
            // warming up and then reused; the load's own unpooled buffers are freed as they are released. Both
            // counts, since which of them sees Netty's memory depends on the JDK and its flags.
            assertNoGrowthOnceWarm(samples, Sample::direct, "direct memory (the JDK's count) once warm");
            assertNoGrowthOnceWarm(samples, Sample::nettyNative, "Netty's native memory once warm");
        } finally {
            load.forEach(Disposable::dispose);
            for (RdmaSession c : clients) {
                c.dispose();
                c.onDispose().onErrorResume(t -> Mono.empty()).block(Duration.ofSeconds(20));
            }
            server.disposeNow(Duration.ofSeconds(20));
        }
    }

    private static void assertNoGrowthOnceWarm(List<Sample> samples, ToLongFunction<Sample> memory, String what) {
        int half = samples.size() / 2;
        long firstHalf = samples.subList(0, half).stream().mapToLong(memory).max().orElse(0);
        long secondHalf = samples.subList(half, samples.size()).stream().mapToLong(memory).max().orElse(0);
        assertThat(secondHalf).as(what).isLessThanOrEqualTo(firstHalf + 32L * 1024 * 1024);
    }

    private static LocalRegion regionOf(Map<RdmaSession, LocalRegion> regions, RdmaSession client) {
        // Server and client sessions pair up by their addresses.
        java.net.SocketAddress local = client.connection().localAddress();
        return regions.entrySet().stream().filter(e -> e.getKey().connection().remoteAddress().equals(local))
                .findFirst().orElseThrow().getValue();
    }

    private static long directMemory() {
        long used = 0;
        for (BufferPoolMXBean pool : ManagementFactory.getPlatformMXBeans(BufferPoolMXBean.class)) {
            if (pool.getName().equals("direct")) {
                used += pool.getMemoryUsed();
            }
        }
        return used;
    }
}
