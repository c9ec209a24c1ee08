package io.softrdma.spring.memory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.softrdma.memory.AccessDecision;
import io.softrdma.memory.AccessPolicy;
import io.softrdma.memory.MemoryServer;
import io.softrdma.memory.RegionAccess;
import io.softrdma.memory.RegionAccessDeniedException;
import io.softrdma.memory.RegionSpec;
import io.softrdma.memory.RemoteMemory;
import io.softrdma.memory.RemoteRegion;
import io.softrdma.memory.ServerRegion;
import io.softrdma.memory.cache.RdmaCache;
import io.softrdma.spring.autoconfigure.RdmaAutoConfiguration;
import io.softrdma.spring.autoconfigure.RdmaHealthAutoConfiguration;
import io.softrdma.spring.autoconfigure.RdmaMemoryAutoConfiguration;
import io.softrdma.spring.autoconfigure.RdmaMemoryCacheAutoConfiguration;
import io.softrdma.spring.cache.RdmaCacheManager;
import io.softrdma.spring.cache.RdmaCacheMetrics;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.softrdma.spring.rsocket.DnsResolver;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.cache.Cache;
import org.springframework.cache.CacheManager;
import org.springframework.cache.concurrent.ConcurrentMapCacheManager;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import reactor.test.StepVerifier;

/**
 * The {@code rdma.memory.*} auto-configuration: the memory server from properties (regions, grants, policy beans,
 * customizers), its lifecycle and health, the RemoteMemory bean (fixed servers, or a headless Service through the
 * DnsResolver bean), and the mistakes it refuses at startup.
 */
class RdmaMemoryAutoConfigurationTests {
    static final Duration TIMEOUT = Duration.ofSeconds(10);

    final ApplicationContextRunner runner = new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(
            RdmaAutoConfiguration.class, RdmaMemoryAutoConfiguration.class, RdmaMemoryCacheAutoConfiguration.class,
            RdmaHealthAutoConfiguration.class));

    /** A memory server on loopback with a region "counters" (read, write, atomic) granted to "app" in full. */
    final ApplicationContextRunner server = runner.withPropertyValues("rdma.memory.server.port=0",
            "rdma.memory.server.address=127.0.0.1", "rdma.memory.regions.counters.size=4KB",
            "rdma.memory.regions.counters.access=read,write,atomic",
            "rdma.memory.regions.counters.grants.app=read,write,atomic",
            "rdma.memory.regions.prices.size=64KB", "rdma.memory.regions.prices.grants.app=read");

    /** Runs {@code test} with a client context whose RemoteMemory reaches the server context's memory server. */
    void withClient(AssertableApplicationContext serverContext, String credential,
            Consumer<AssertableApplicationContext> test) {
        int port = serverContext.getBean(RdmaMemoryServer.class).port();
        runner.withPropertyValues("rdma.memory.client.servers=127.0.0.1:" + port,
                "rdma.memory.client.credential=" + credential).run(test::accept);
    }

    @Test
    void withoutMemoryPropertiesThereIsNeitherServerNorClient() {
        runner.run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(MemoryServer.class)
                .doesNotHaveBean(RdmaMemoryServer.class).doesNotHaveBean(RemoteMemory.class));
        server.withPropertyValues("rdma.memory.server.enabled=false").run(context -> assertThat(context)
                .hasNotFailed().doesNotHaveBean(RdmaMemoryServer.class));
        runner.withPropertyValues("rdma.memory.client.servers=127.0.0.1:7473", "rdma.memory.client.enabled=false")
                .run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(RemoteMemory.class));
    }

    @Test
    void theRegionsOfThePropertiesAreServedFromTheStartAndTheHealthSaysSo() {
        server.run(context -> {
            assertThat(context).hasNotFailed();
            RdmaMemoryServer memory = context.getBean(RdmaMemoryServer.class);
            assertThat(memory.isRunning()).isTrue();
            assertThat(memory.server().regionNames()).containsExactlyInAnyOrder("counters", "prices");
            assertThat(memory.region("counters").spec()).isEqualTo(new RegionSpec("counters", 4096,
                    Set.of(RegionAccess.READ, RegionAccess.WRITE, RegionAccess.ATOMIC)));
            assertThat(memory.region("prices").spec().access()).as("read unless told").containsExactly(
                    RegionAccess.READ);
            assertThat(context.getEnvironment().getProperty(RdmaMemoryServer.PORT_PROPERTY, Integer.class))
                    .isEqualTo(memory.port()).isPositive();
            Health h = context.getBean("rdmaHealthIndicator", HealthIndicator.class).health();
            assertThat(h.getStatus()).isEqualTo(Status.UP);
            assertThat(h.getDetails().get("memory")).isEqualTo(Map.of("listening", true, "port", memory.port(),
                    "connections", 0));
            memory.stop();
            assertThat(memory.isRunning()).isFalse();
            assertThat(context.getBean("rdmaHealthIndicator", HealthIndicator.class).health().getStatus())
                    .isEqualTo(Status.DOWN);
        });
    }

    @Test
    void aGrantedClientUsesTheRegionOneSidedAndTheOwnerSeesIt() {
        server.run(serverContext -> withClient(serverContext, "app", client -> {
            assertThat(client).hasSingleBean(RemoteMemory.class);
            RemoteRegion remote = client.getBean(RemoteMemory.class).region("counters").block(TIMEOUT);
            assertThat(remote.rights()).containsExactlyInAnyOrder(RegionAccess.READ, RegionAccess.WRITE,
                    RegionAccess.ATOMIC);
            StepVerifier.create(remote.fetchAdd(8, 5)).expectNext(0L).verifyComplete();
            StepVerifier.create(remote.fetchAdd(8, 2)).expectNext(5L).verifyComplete();
            assertThat(serverContext.getBean(RdmaMemoryServer.class).region("counters").getLong(8)).isEqualTo(7);
            RdmaMemoryServer memory = serverContext.getBean(RdmaMemoryServer.class);
            // tag::starter-memory-server-region[]
            ServerRegion counters = memory.region("counters");   // memory: this bean
            counters.putLong(0, 42);                             // what a client's getLong(0) reads, one-sided
            // end::starter-memory-server-region[]
            StepVerifier.create(remote.getLong(0)).expectNext(42L).verifyComplete();
            RemoteRegion prices = client.getBean(RemoteMemory.class).region("prices").block(TIMEOUT);
            assertThat(prices.rights()).as("the grant, within the region's access").containsExactly(
                    RegionAccess.READ);
        }));
    }

    @Test
    void aPeerTheGrantsDoNotNameIsRefusedWithTheReason() {
        server.run(serverContext -> withClient(serverContext, "stranger", client ->
                StepVerifier.create(client.getBean(RemoteMemory.class).region("counters"))
                        .expectErrorSatisfies(e -> assertThat(e).isInstanceOf(RegionAccessDeniedException.class)
                                .hasMessageContaining("counters"))
                        .verify(TIMEOUT)));
    }

    @Test
    void accessPolicyBeansAndCustomizersAddToTheProperties() {
        server.withUserConfiguration(PolicyAndCustomizer.class).run(serverContext -> {
            assertThat(serverContext.getBean(RdmaMemoryServer.class).server().regionNames()).contains("extra");
            withClient(serverContext, "auditor", client -> {
                RemoteMemory memory = client.getBean(RemoteMemory.class);
                assertThat(memory.region("extra").block(TIMEOUT).rights()).containsExactly(RegionAccess.READ);
                StepVerifier.create(memory.region("counters")).expectError(RegionAccessDeniedException.class)
                        .verify(TIMEOUT);
            });
            withClient(serverContext, "app", client -> assertThat(client.getBean(RemoteMemory.class)
                    .region("counters").block(TIMEOUT).rights()).as("the properties' grant still holds")
                    .contains(RegionAccess.ATOMIC));
        });
    }

    @Configuration(proxyBeanMethods = false)
    static class PolicyAndCustomizer {
        @Bean
        AccessPolicy auditorPolicy() {
            return (peer, region) -> peer.isNamed("auditor") && region.equals("extra")
                    ? AccessDecision.grant(Set.of(RegionAccess.READ))
                    : AccessDecision.refuse("only 'extra' is for auditors");
        }

        @Bean
        MemoryServerCustomizer extraRegion() {
            return s -> s.region("extra", 64, RegionAccess.READ);
        }
    }

    @Test
    void theCachesOfThePropertiesAreOwnedAndServedToTheirGrantees() {
        server.withPropertyValues("rdma.memory.cache.caches.books.size=1MB",
                "rdma.memory.cache.caches.books.grants.app=read,write",
                "rdma.memory.cache.caches.books.grants.reader=read").run(serverContext -> {
                    RdmaMemoryServer memory = serverContext.getBean(RdmaMemoryServer.class);
                    assertThat(memory.cacheOwners()).containsOnlyKeys("books");
                    assertThat(memory.region("cache.books").size()).isEqualTo(1 << 20);
                    withClient(serverContext, "app", client -> {
                        RdmaCache<String, String> books = RdmaCache.builder(client.getBean(RemoteMemory.class),
                                "books", String.class, String.class).build();
                        StepVerifier.create(books.put("dune", "Frank Herbert")).verifyComplete();
                        StepVerifier.create(books.get("dune")).expectNext("Frank Herbert").verifyComplete();
                        assertThat(books.statistics().oneSidedGets()).isEqualTo(1);
                    });
                    withClient(serverContext, "reader", client -> {
                        RdmaCache<String, String> books = RdmaCache.builder(client.getBean(RemoteMemory.class),
                                "books", String.class, String.class).build();
                        StepVerifier.create(books.get("dune")).expectNext("Frank Herbert").verifyComplete();
                        StepVerifier.create(books.put("dune", "someone else"))
                                .expectErrorSatisfies(e -> assertThat(e)
                                        .hasMessageContaining("needs WRITE on region 'cache.books'"))
                                .verify(TIMEOUT);
                    });
                });
        server.withPropertyValues("rdma.memory.cache.caches.books.grants.app=atomic").run(context ->
                assertThat(context).hasFailed().getFailure().hasStackTraceContaining(
                        "rdma.memory.cache.caches.books.grants.app must be read (GET) and/or write (PUT, DELETE),"
                        + " was atomic"));
        server.withPropertyValues("rdma.memory.cache.caches.books.size=1MB", "rdma.memory.cache.enabled=false")
                .run(context -> assertThat(context.getBean(RdmaMemoryServer.class).cacheOwners()).isEmpty());
    }

    @Test
    void theClientGetsAnRdmaCacheManagerOverItsRemoteMemory() {
        server.withPropertyValues("rdma.memory.cache.caches.books.size=1MB",
                "rdma.memory.cache.caches.books.grants.app=read,write").run(serverContext -> {
                    int port = serverContext.getBean(RdmaMemoryServer.class).port();
                    ApplicationContextRunner client = runner.withPropertyValues(
                            "rdma.memory.client.servers=127.0.0.1:" + port, "rdma.memory.client.credential=app",
                            "rdma.memory.cache.cache-names=books", "rdma.memory.cache.time-to-live.books=1m");
                    client.run(context -> {
                        assertThat(context).hasSingleBean(RdmaCacheManager.class);
                        CacheManager manager = context.getBean(CacheManager.class);
                        assertThat(manager.getCacheNames()).containsExactly("books");
                        Cache books = manager.getCache("books");
                        books.put("dune", "Frank Herbert");
                        assertThat(books.get("dune", String.class)).isEqualTo("Frank Herbert");
                        assertThat(serverContext.getBean(RdmaMemoryServer.class).cacheOwners().get("books")
                                .toString()).isNotEmpty();
                    });
                    client.withBean(SimpleMeterRegistry.class).run(context -> {
                        assertThat(context).hasSingleBean(RdmaCacheMetrics.class);
                        MeterRegistry registry = context.getBean(MeterRegistry.class);
                        context.getBean(RdmaCacheMetrics.class).bindTo(registry);
                        context.getBean(CacheManager.class).getCache("books").get("absent");
                        assertThat(registry.get("cache.gets").tag("cache", "books").tag("result", "miss")
                                .functionCounter().count()).isEqualTo(1);
                    });
                    client.withPropertyValues("rdma.memory.cache.enabled=false").run(context -> assertThat(context)
                            .hasSingleBean(RemoteMemory.class).doesNotHaveBean(CacheManager.class));
                    client.withBean(CacheManager.class, ConcurrentMapCacheManager::new).run(context ->
                            assertThat(context).hasNotFailed().doesNotHaveBean(RdmaCacheManager.class)
                                    .doesNotHaveBean(RdmaCacheMetrics.class));
                });
        runner.run(context -> assertThat(context).doesNotHaveBean(CacheManager.class));
    }

    @Test
    void aHeadlessServiceIsResolvedThroughTheDnsResolverBean() {
        runner.withPropertyValues("rdma.memory.client.service=memory.apps.svc.cluster.local",
                "rdma.memory.client.port=7999").withBean(DnsResolver.class, () -> name -> {
                    assertThat(name).isEqualTo("memory.apps.svc.cluster.local");
                    return List.of(InetAddress.getByName("127.0.0.2"), InetAddress.getByName("127.0.0.3"));
                }).run(context -> await().atMost(TIMEOUT).untilAsserted(() -> assertThat(context
                        .getBean(RemoteMemory.class).servers()).as("resolved on a thread that may block")
                        .containsExactlyInAnyOrder(new InetSocketAddress("127.0.0.2", 7999),
                                new InetSocketAddress("127.0.0.3", 7999))));
    }

    @Test
    void aServiceNameOverAnEmptiedServerListIsNoConflict() {
        // As the chart layers its client.yaml (servers: []) over the image's application.yaml (servers: localhost).
        runner.withPropertyValues("rdma.memory.client.servers=", "rdma.memory.client.service=localhost")
                .run(context -> assertThat(context).hasNotFailed().hasSingleBean(RemoteMemory.class));
    }

    @Test
    void mistakesFailTheStartNamingThePropertyToFix() {
        server.withPropertyValues("rdma.memory.regions.prices.grants.app=read,write").run(context ->
                assertThat(context).hasFailed().getFailure().rootCause().hasMessage(
                        "rdma.memory.regions.prices.grants.app grants write, which region 'prices' does not allow"
                        + " (its access is read): add it to rdma.memory.regions.prices.access, or remove it from the"
                        + " grant"));
        server.withPropertyValues("rdma.memory.regions.empty.access=read").run(context -> assertThat(context)
                .hasFailed().getFailure().rootCause().hasMessageContaining(
                        "rdma.memory.regions.empty.size is not set"));
        server.withPropertyValues("rdma.memory.regions.odd.size=12B").run(context -> assertThat(context)
                .hasFailed().getFailure().hasStackTraceContaining("rdma.memory.regions.odd: region 'odd' size 12"
                        + " must be a multiple of 8"));
        runner.withPropertyValues("rdma.memory.client.servers=a:1", "rdma.memory.client.service=b").run(context ->
                assertThat(context).hasFailed().getFailure().rootCause().hasMessageContaining("not both"));
        runner.withPropertyValues("rdma.memory.server.port=70000").run(context -> assertThat(context).hasFailed()
                .getFailure().rootCause().hasMessageContaining("rdma.memory.server.port must be from 0"));
    }
}
