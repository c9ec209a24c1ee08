package io.softrdma.memory;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.function.UnaryOperator;

/** A memory server on 127.0.0.1 and a client of it, closed together. */
final class Fixture implements AutoCloseable {
    static final Duration TIMEOUT = Duration.ofSeconds(20);

    final DisposableMemoryServer server;
    final RemoteMemory client;

    Fixture(MemoryServer server, UnaryOperator<RemoteMemory.Builder> client) {
        this.server = server.host("127.0.0.1").port(0).bindNow();
        this.client = client.apply(RemoteMemory.builder()
                .servers(java.util.List.of(new InetSocketAddress("127.0.0.1", this.server.port())))
                .reconnect(3, Duration.ofMillis(20), Duration.ofMillis(200))).build();
    }

    RemoteRegion region(String name) {
        return client.region(name).block(TIMEOUT);
    }

    @Override
    public void close() {
        client.dispose();
        server.disposeNow(TIMEOUT);
    }
}
