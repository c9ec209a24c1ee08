package io.softrdma.memory.cache;

import static org.assertj.core.api.Assertions.assertThat;

import io.softrdma.memory.AccessPolicy;
import io.softrdma.memory.DisposableMemoryServer;
import io.softrdma.memory.MemoryServer;
import io.softrdma.memory.RegionAccess;
import io.softrdma.memory.RemoteMemory;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The examples of the cache's Javadoc (regions checked word for word by rdma-reactive's DocumentationExamplesTest). */
class CacheDocumentationExamplesTest {
    record Book(String title, int year) {
    }

    @Test
    void theOwnerAndClientExamplesRun() {
        String host = "127.0.0.1";
        int port = 0;
        AccessPolicy policy = AccessPolicy.grant("shop", "cache.books", RegionAccess.READ, RegionAccess.WRITE);
        // tag::cache-owner[]
        CacheOwner books = CacheOwner.builder("books")
                .size(16 << 20)
                .defaultTtl(Duration.ofMinutes(10))
                .policy(policy)
                .build();
        DisposableMemoryServer server = books.declareOn(MemoryServer.create().host(host).port(port).policy(policy))
                .bindNow();
        books.start(server);
        // end::cache-owner[]
        RemoteMemory memory = RemoteMemory.builder()
                .servers(List.of(new InetSocketAddress(host, server.port()))).credential("shop").build();
        try {
            Book dune = example(memory);
            assertThat(dune).isEqualTo(new Book("Dune", 1965));
            assertThat(books.size()).isEqualTo(1);
        } finally {
            memory.dispose();
            books.dispose();
            server.disposeNow(Duration.ofSeconds(20));
        }
    }

    private static Book example(RemoteMemory memory) {
        // tag::rdma-cache[]
        RdmaCache<String, Book> books = RdmaCache.builder(memory, "books", String.class, Book.class).build();
        books.put("isbn-1", new Book("Dune", 1965)).block();
        Book dune = books.get("isbn-1").block();
        // end::rdma-cache[]
        return dune;
    }
}
