package io.softrdma.memory.cache;

import io.softrdma.memory.AccessPolicy;
import io.softrdma.memory.DisposableMemoryServer;
import io.softrdma.memory.MemoryServer;
import io.softrdma.memory.RemoteMemory;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

/** Cache owners on memory servers on 127.0.0.1, and clients of them, closed together. */
final class CacheFixture implements AutoCloseable {
    static final Duration TIMEOUT = Duration.ofSeconds(20);

    final List<CacheOwner> owners = new ArrayList<>();
    final List<DisposableMemoryServer> servers = new ArrayList<>();
    final List<RemoteMemory> clients = new ArrayList<>();

    /** {@code count} servers, each with the owner {@code owner} builds (one per server). */
    CacheFixture(int count, AccessPolicy policy, Function<AccessPolicy, CacheOwner> owner) {
        for (int i = 0; i < count; i++) {
            CacheOwner o = owner.apply(policy);
            DisposableMemoryServer server = o.declareOn(MemoryServer.create().host("127.0.0.1").port(0)
                    .policy(policy)).bindNow();
            owners.add(o.start(server));
            servers.add(server);
        }
    }

    /** A new client of every server, presenting {@code credential}. */
    RemoteMemory client(String credential) {
        List<InetSocketAddress> addresses = servers.stream()
                .map(s -> new InetSocketAddress("127.0.0.1", s.port())).toList();
        RemoteMemory client = RemoteMemory.builder().servers(addresses).credential(credential)
                .reconnect(3, Duration.ofMillis(20), Duration.ofMillis(200)).build();
        clients.add(client);
        return client;
    }

    @Override
    public void close() {
        clients.forEach(RemoteMemory::dispose);
        owners.forEach(CacheOwner::dispose);
        servers.forEach(s -> s.disposeNow(TIMEOUT));
    }
}
