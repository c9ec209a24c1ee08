package io.softrdma.spring.cache;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.softrdma.memory.AccessPolicy;
import io.softrdma.memory.DisposableMemoryServer;
import io.softrdma.memory.MemoryServer;
import io.softrdma.memory.RegionAccess;
import io.softrdma.memory.RemoteMemory;
import io.softrdma.memory.cache.CacheOwner;
import io.softrdma.memory.cache.CacheStatistics;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.cache.annotation.CacheEvict;
import org.springframework.cache.annotation.CachingConfigurer;
import org.springframework.cache.interceptor.CacheErrorHandler;
import org.springframework.cache.interceptor.LoggingCacheErrorHandler;
import org.springframework.cache.annotation.CachePut;
import org.springframework.cache.annotation.Cacheable;
import org.springframework.cache.annotation.EnableCaching;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import reactor.core.publisher.Mono;

/**
 * Spring's cache abstraction end to end on the RDMA cache: annotated methods of two application instances sharing
 * cache owners on a memory server on loopback, and the meters.
 */
class RdmaCacheManagerTests {
    record Book(String isbn, String title) {
    }

    /** What the annotations decorate; counts the calls that were not answered from the cache. */
    static class Library {
        private final AtomicInteger calls = new AtomicInteger();

        /** A method, not the field: the bean is a class-based proxy, whose own fields are unset. */
        public int calls() {
            return calls.get();
        }

        @Cacheable("books")
        public Book find(String isbn) {
            calls.incrementAndGet();
            return isbn.startsWith("missing") ? null : new Book(isbn, "Title of " + isbn);
        }

        @Cacheable(cacheNames = "books", sync = true)
        public Book findOnce(String isbn) {
            return find(isbn + "-sync");
        }

        @Cacheable("books")
        public Mono<Book> findLater(String isbn) {
            return Mono.fromSupplier(() -> {
                calls.incrementAndGet();
                return new Book(isbn, "Later " + isbn);
            });
        }

        @Cacheable("books")
        public CompletableFuture<Book> findFuture(String isbn) {
            calls.incrementAndGet();
            return CompletableFuture.completedFuture(new Book(isbn, "Future " + isbn));
        }

        @Cacheable("shelves")
        public Book onShelf(String shelf, int position) {
            calls.incrementAndGet();
            return new Book(shelf + "/" + position, "Shelved");
        }

        @CachePut(cacheNames = "books", key = "#book.isbn")
        public Book save(Book book) {
            return book;
        }

        @CacheEvict("books")
        public void remove(String isbn) {
        }

        @CacheEvict(cacheNames = "books", allEntries = true)
        public void removeAll() {
        }
    }

    @Configuration(proxyBeanMethods = false)
    @EnableCaching
    static class App {
        @Bean(destroyMethod = "dispose")
        RemoteMemory remoteMemory(@Value("${test.port}") int port) {
            return RemoteMemory.builder().servers(List.of(new InetSocketAddress("127.0.0.1", port)))
                    .credential("app").build();
        }

        @Bean
        RdmaCacheManager cacheManager(RemoteMemory memory) {
            return RdmaCacheManager.builder(memory).ttl("shelves", Duration.ofMillis(300)).build();
        }

        @Bean
        MeterRegistry meterRegistry(RdmaCacheManager manager) {
            SimpleMeterRegistry registry = new SimpleMeterRegistry();
            new RdmaCacheMetrics(manager).bindTo(registry);
            return registry;
        }

        @Bean
        Library library() {
            return new Library();
        }
    }

    /** The Javadoc's example of RdmaCacheManager. */
    @Configuration(proxyBeanMethods = false)
    static class JavadocExample {
        @Bean(destroyMethod = "dispose")
        RemoteMemory remoteMemory(@Value("${test.port}") int port) {
            return RemoteMemory.builder().servers(List.of(new InetSocketAddress("127.0.0.1", port)))
                    .credential("app").build();
        }

        // tag::rdma-cache-manager[]
        @Bean
        RdmaCacheManager cacheManager(RemoteMemory memory) {
            return RdmaCacheManager.builder(memory).ttl("books", Duration.ofMinutes(5)).build();
        }
        // end::rdma-cache-manager[]
    }

    /** An application whose memory server is not there, with Spring's error handler that makes failures misses. */
    @Configuration(proxyBeanMethods = false)
    @EnableCaching
    static class UnreachableApp implements CachingConfigurer {
        @Bean(destroyMethod = "dispose")
        RemoteMemory remoteMemory(@Value("${test.port}") int port) {
            return RemoteMemory.builder().servers(List.of(new InetSocketAddress("127.0.0.1", port)))
                    .credential("app").reconnect(0, Duration.ofMillis(10), Duration.ofMillis(10)).build();
        }

        @Bean
        RdmaCacheManager rdmaCacheManager(RemoteMemory memory) {
            return RdmaCacheManager.builder(memory).build();
        }

        @Override
        public CacheErrorHandler errorHandler() {
            return new LoggingCacheErrorHandler();
        }

        @Bean
        Library library() {
            return new Library();
        }
    }

    static final AccessPolicy POLICY = AccessPolicy.grant("app", "cache.books", RegionAccess.READ, RegionAccess.WRITE)
            .or(AccessPolicy.grant("app", "cache.shelves", RegionAccess.READ, RegionAccess.WRITE));
    static CacheOwner books;
    static CacheOwner shelves;
    static DisposableMemoryServer server;

    @BeforeAll
    static void startServer() {
        books = CacheOwner.builder("books").size(1 << 20).policy(POLICY).build();
        shelves = CacheOwner.builder("shelves").size(1 << 20).policy(POLICY).sweepInterval(Duration.ofMillis(20))
                .build();
        server = shelves.declareOn(books.declareOn(MemoryServer.create().host("127.0.0.1").port(0).policy(POLICY)))
                .bindNow();
        books.start(server);
        shelves.start(server);
    }

    @AfterAll
    static void stopServer() {
        books.dispose();
        shelves.dispose();
        server.disposeNow(Duration.ofSeconds(20));
    }

    private final ApplicationContextRunner instance = new ApplicationContextRunner()
            .withUserConfiguration(App.class)
            .withPropertyValues("test.port=" + server.port());

    @BeforeEach
    void empty() {
        instance.run(context -> context.getBean(Library.class).removeAll());
    }

    @Test
    void cacheableAnswersFromTheCacheAcrossInstances() {
        instance.run(a -> instance.run(b -> {
            Library first = a.getBean(Library.class);
            Library second = b.getBean(Library.class);
            assertThat(first.find("111")).isEqualTo(new Book("111", "Title of 111"));
            assertThat(first.find("111")).isEqualTo(new Book("111", "Title of 111"));
            assertThat(second.find("111")).isEqualTo(new Book("111", "Title of 111"));
            assertThat(first.calls()).isEqualTo(1);
            assertThat(second.calls()).isEqualTo(0);

            CacheStatistics stats = b.getBean(RdmaCacheManager.class).getCache("books").getNativeCache().statistics();
            assertThat(stats.hits()).isEqualTo(1);
            assertThat(stats.oneSidedGets()).isEqualTo(1);
        }));
    }

    @Test
    void cachePutAndCacheEvictChangeWhatEveryInstanceSees() {
        instance.run(a -> instance.run(b -> {
            Library first = a.getBean(Library.class);
            Library second = b.getBean(Library.class);
            first.find("222");
            first.save(new Book("222", "Second edition"));
            assertThat(second.find("222")).isEqualTo(new Book("222", "Second edition"));
            second.remove("222");
            assertThat(first.find("222")).isEqualTo(new Book("222", "Title of 222"));
            assertThat(first.calls()).isEqualTo(2);
            assertThat(second.calls()).isEqualTo(0);
            first.removeAll();
            second.find("222");
            assertThat(second.calls()).isEqualTo(1);
        }));
    }

    @Test
    void nullIsCachedToo() {
        instance.run(context -> {
            Library library = context.getBean(Library.class);
            assertThat(library.find("missing-1")).isNull();
            assertThat(library.find("missing-1")).isNull();
            assertThat(library.calls()).isEqualTo(1);
        });
    }

    @Test
    void syncMultiArgumentReactiveAndFutureMethodsAreCached() {
        instance.run(context -> {
            Library library = context.getBean(Library.class);
            library.findOnce("333");
            library.findOnce("333");
            assertThat(library.calls()).isEqualTo(1);

            library.onShelf("fiction", 3);
            assertThat(library.onShelf("fiction", 3)).isEqualTo(new Book("fiction/3", "Shelved"));
            library.onShelf("fiction", 4);
            assertThat(library.calls()).isEqualTo(3);

            assertThat(library.findLater("444").block()).isEqualTo(new Book("444", "Later 444"));
            // Spring puts what the Mono emitted on the event loop that emitted it, where the put does not wait.
            RdmaSpringCache cache = context.getBean(RdmaCacheManager.class).getCache("books");
            await().atMost(Duration.ofSeconds(10)).until(() -> cache.get("444") != null);
            assertThat(library.findLater("444").block()).isEqualTo(new Book("444", "Later 444"));
            assertThat(library.findFuture("555").join()).isEqualTo(new Book("555", "Future 555"));
            await().atMost(Duration.ofSeconds(10)).until(() -> cache.get("555") != null);
            assertThat(library.findFuture("555").join()).isEqualTo(new Book("555", "Future 555"));
            assertThat(library.calls()).isEqualTo(5);
        });
    }

    @Test
    void aCacheTtlFromTheManagerExpiresItsEntries() {
        instance.run(context -> {
            Library library = context.getBean(Library.class);
            library.onShelf("poetry", 1);
            library.onShelf("poetry", 1);
            assertThat(library.calls()).isEqualTo(1);
            await().atMost(Duration.ofSeconds(10)).until(() -> shelves.size() == 0);
            library.onShelf("poetry", 1);
            assertThat(library.calls()).isEqualTo(2);
        });
    }

    @Test
    void metersCountHitsMissesOneSidedGetsAndRetries() {
        instance.run(context -> {
            Library library = context.getBean(Library.class);
            library.find("666");
            library.find("666");
            library.find("666");
            MeterRegistry registry = context.getBean(MeterRegistry.class);
            assertThat(registry.get("cache.gets").tag("cache", "books").tag("result", "hit").functionCounter()
                    .count()).isEqualTo(2);
            assertThat(registry.get("cache.gets").tag("cache", "books").tag("result", "miss").functionCounter()
                    .count()).isEqualTo(1);
            assertThat(registry.get("cache.puts").tag("cache", "books").functionCounter().count()).isEqualTo(1);
            assertThat(registry.get("cache.rdma.gets.one.sided").tag("cache", "books").functionCounter().count())
                    .isEqualTo(3);
            assertThat(registry.get("cache.rdma.retries").tag("cache", "books").functionCounter().count()).isZero();
            assertThat(registry.get("cache.rdma.gets.owner").tag("cache", "books").functionCounter().count())
                    .isZero();
        });
    }

    @Test
    void theOwnersMetersCountEntriesAndExpirations() {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        new RdmaCacheOwnerMetrics(List.of(books, shelves)).bindTo(registry);
        long expiredBefore = shelves.expirations();
        instance.run(context -> {
            Library library = context.getBean(Library.class);
            library.find("999");
            library.onShelf("history", 9);
        });
        assertThat(registry.get("cache.size").tag("cache", "books").gauge().value()).isEqualTo(books.size())
                .isPositive();
        await().atMost(Duration.ofSeconds(10)).until(() -> registry.get("cache.rdma.owner.expirations")
                .tag("cache", "shelves").functionCounter().count() > expiredBefore);
        assertThat(registry.get("cache.rdma.owner.evictions").tag("cache", "books").functionCounter().count())
                .isZero();
        assertThat(registry.get("cache.rdma.owner.damaged").tag("cache", "books").functionCounter().count())
                .isZero();
    }

    @Test
    void aKeyWithoutItsOwnToStringIsRefusedSayingWhatToDo() {
        instance.run(context -> {
            RdmaSpringCache cache = context.getBean(RdmaCacheManager.class).getCache("books");
            assertThatThrownBy(() -> cache.get(new Object())).hasMessageContaining("give @Cacheable a key expression");
        });
    }

    @Test
    void theJavadocExampleMakesAWorkingManager() {
        new ApplicationContextRunner().withUserConfiguration(JavadocExample.class)
                .withPropertyValues("test.port=" + server.port())
                .run(context -> {
                    RdmaSpringCache cache = context.getBean(RdmaCacheManager.class).getCache("books");
                    cache.put("888", new Book("888", "Example"));
                    assertThat(cache.get("888", Book.class)).isEqualTo(new Book("888", "Example"));
                });
    }

    @Test
    void anUnreachableCacheIsAMissWithSpringsLoggingErrorHandler() throws Exception {
        int closedPort;
        try (java.net.ServerSocket socket = new java.net.ServerSocket(0, 1,
                java.net.InetAddress.getLoopbackAddress())) {
            closedPort = socket.getLocalPort();
        }
        new ApplicationContextRunner().withUserConfiguration(UnreachableApp.class)
                .withPropertyValues("test.port=" + closedPort)
                .run(context -> {
                    Library library = context.getBean(Library.class);
                    assertThat(library.find("404")).isEqualTo(new Book("404", "Title of 404"));
                    assertThat(library.find("404")).isEqualTo(new Book("404", "Title of 404"));
                    assertThat(library.calls()).isEqualTo(2);
                });
    }

    @Test
    void aManagerWithFixedNamesKnowsNoOthers() {
        instance.run(context -> {
            RdmaCacheManager fixed = RdmaCacheManager.builder(context.getBean(RemoteMemory.class))
                    .cacheNames("books").build();
            assertThat(fixed.getCacheNames()).containsExactly("books");
            assertThat(fixed.getCache("other")).isNull();
            fixed.getCache("books").put("777", new Book("777", "Fixed"));
            assertThat(fixed.getCache("books").get("777", Book.class)).isEqualTo(new Book("777", "Fixed"));
        });
    }
}
