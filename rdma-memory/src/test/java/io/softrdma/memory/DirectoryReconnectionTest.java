package io.softrdma.memory;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import reactor.test.StepVerifier;

/**
 * The directory over reconnection: a client whose server went away reconnects with backoff and resolves its
 * regions again; a client of several servers places regions by consistent hashing.
 */
class DirectoryReconnectionTest {
    private static final Duration TIMEOUT = Fixture.TIMEOUT;
    private DisposableMemoryServer server;
    private DisposableMemoryServer second;
    private RemoteMemory client;

    private static DisposableMemoryServer bind(int port, long value) {
        DisposableMemoryServer s = MemoryServer.create().host("127.0.0.1").port(port)
                .region("r", 64, RegionAccess.READ)
                .region("shard", 64, RegionAccess.READ, RegionAccess.WRITE)
                .policy(AccessPolicy.grant("app", AccessPolicy.ANY_REGION, RegionAccess.READ, RegionAccess.WRITE))
                .bindNow();
        s.region("r").putLong(0, value);
        return s;
    }

    private static RemoteMemory client(int attempts, int... ports) {
        return RemoteMemory.builder().credential("app")
                .servers(java.util.Arrays.stream(ports).mapToObj(p -> new InetSocketAddress("127.0.0.1", p)).toList())
                .reconnect(attempts, Duration.ofMillis(50), Duration.ofMillis(200)).build();
    }

    @AfterEach
    void stop() {
        if (client != null) {
            client.dispose();
        }
        for (DisposableMemoryServer s : new DisposableMemoryServer[] {server, second}) {
            if (s != null) {
                s.disposeNow(TIMEOUT);
            }
        }
    }

    @Test
    void aRestartedServerIsReconnectedAndTheRegionResolvedAgain() {
        server = bind(0, 1);
        int port = server.port();
        client = client(20, port);
        RemoteRegion region = client.region("r").block(TIMEOUT);
        assertThat(region.getLong(0).block(TIMEOUT)).isEqualTo(1);

        server.disposeNow(TIMEOUT);
        // The read starts while nothing listens: its connects fail and back off until the new server is up.
        CompletableFuture<Long> read = region.getLong(0).toFuture();
        server = bind(port, 2);
        // The new server's region: 2, or 0 when the retrying client got in between bindNow() and the putLong that
        // writes 2 (the server listens before bind's caller can write its region; CI saw it once).
        assertThat(read).succeedsWithin(TIMEOUT).isIn(0L, 2L);
        assertThat(region.getLong(0).block(TIMEOUT)).isEqualTo(2L);
        assertThat(server.leaseCount()).isEqualTo(1);
    }

    @Test
    void aServerThatClosesGracefullyIsReplacedOnNextUse() {
        server = bind(0, 5);
        client = client(3, server.port());
        RemoteRegion region = client.region("r").block(TIMEOUT);
        assertThat(region.getLong(0).block(TIMEOUT)).isEqualTo(5);
        int port = server.port();
        server.disposeGracefully(TIMEOUT).block(TIMEOUT);
        server = bind(port, 6);
        // The client saw its session end: the next read reconnects and resolves before it uses any STag.
        assertThat(region.getLong(0).block(TIMEOUT)).isEqualTo(6);
    }

    @Test
    void aRefreshingSourceMovesRegionsToTheServersItNamesNow() {
        server = bind(0, 1);
        second = bind(0, 2);
        java.util.concurrent.atomic.AtomicReference<List<InetSocketAddress>> current = new java.util.concurrent
                .atomic.AtomicReference<>(List.of(new InetSocketAddress("127.0.0.1", server.port())));
        client = RemoteMemory.builder().credential("app").servers(current::get, Duration.ofMillis(50))
                .reconnect(3, Duration.ofMillis(20), Duration.ofMillis(100)).build();
        assertThat(client.region("r").flatMap(r -> r.getLong(0)).block(TIMEOUT)).isEqualTo(1);

        // The headless Service's pod changed: the next resolution goes to the server the source names now.
        current.set(List.of(new InetSocketAddress("127.0.0.1", second.port())));
        org.awaitility.Awaitility.await().atMost(TIMEOUT).until(() -> client.servers().equals(current.get()));
        assertThat(client.region("r").flatMap(r -> r.getLong(0)).block(TIMEOUT)).isEqualTo(2);
        org.awaitility.Awaitility.await().atMost(TIMEOUT).until(() -> server.sessionCount() == 0);
    }

    @Test
    void aServerThatNeverComesBackIsReportedAfterTheAttempts() {
        server = bind(0, 1);
        int port = server.port();
        server.disposeNow(TIMEOUT);
        server = null;
        client = client(2, port);
        StepVerifier.create(client.region("r")).expectErrorSatisfies(e -> assertThat(e)
                .isExactlyInstanceOf(RemoteMemoryException.class)
                .hasMessageStartingWith("cannot connect to memory server 127.0.0.1:" + port + ": "))
                .verify(TIMEOUT);
    }

    @Test
    void regionsAndRequestsArePlacedByConsistentHashingOfTheShardKey() {
        server = bind(0, 1);
        second = bind(0, 2);
        client = client(3, server.port(), second.port());
        assertThat(client.servers()).hasSize(2);
        int onFirst = 0;
        for (int key = 0; key < 40; key++) {
            RemoteRegion shard = client.region("shard", "customer-" + key).block(TIMEOUT);
            InetSocketAddress expected = client.serverFor("customer-" + key);
            assertThat(shard.server()).isEqualTo(expected);
            if (expected.getPort() == server.port()) {
                onFirst++;
            }
            shard.putLong(8 * (key % 7), 1).block(TIMEOUT);
        }
        assertThat(onFirst).as("both servers get keys").isBetween(1, 39);
        assertThat(List.of(server.leaseCount(), second.leaseCount())).containsOnly(1);
    }
}
