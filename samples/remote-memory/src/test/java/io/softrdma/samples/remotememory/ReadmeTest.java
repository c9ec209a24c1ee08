package io.softrdma.samples.remotememory;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBufAllocator;
import io.softrdma.memory.AccessPolicy;
import io.softrdma.memory.DisposableMemoryServer;
import io.softrdma.memory.MemoryCodec;
import io.softrdma.memory.MemoryServer;
import io.softrdma.memory.PeerIdentity;
import io.softrdma.memory.RegionAccess;
import io.softrdma.memory.RemoteMemory;
import io.softrdma.testing.Snippets;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.cache.CacheManager;
import org.springframework.cache.annotation.Cacheable;
import org.springframework.cache.annotation.EnableCaching;
import org.springframework.cache.concurrent.ConcurrentMapCacheManager;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import reactor.core.publisher.Mono;
import reactor.test.StepVerifier;

/**
 * The README shows the sample as it is, and what it shows runs: each Java example is a region of the sample's sources
 * and, word for word, of this test (where the repository's documentation checker looks, and where each runs here);
 * each YAML block is part of application.yaml.
 */
class ReadmeTest {
    private static final Path README = Path.of("README.md");
    private static final Duration TIMEOUT = Duration.ofSeconds(10);

    @Test
    void theReadmesJavaExamplesAreTheSamplesCodeAndRunHere() {
        assertThat(Snippets.markdownExamples(README)).as("Java examples in the README").hasSize(3);
        assertThat(Snippets.undocumented(List.of(README), Snippets.regions(List.of(Path.of("src/main/java")))))
                .as("README examples that are not the sample's code word for word").isEmpty();
        assertThat(Snippets.undocumented(List.of(README), Snippets.regions(List.of(Path.of("src/test/java")))))
                .as("README examples that no // tag:: region of the sample's tests holds word for word").isEmpty();
    }

    @Test
    void theReadmesYamlIsWhatTheSampleRunsWith() throws Exception {
        String application = Files.readString(Path.of("src/main/resources/application.yaml"));
        List<String> yaml = blocks(Files.readString(README), "yaml");
        assertThat(yaml).as("```yaml blocks").hasSize(2);
        for (String block : yaml) {
            assertThat(application).as("application.yaml").contains(block.strip());
        }
    }

    static final class Policy {
        // tag::remote-memory-readme-policy[]
        @Bean
        AccessPolicy storefrontClients(SampleProperties sample) {
            String storefront = sample.credential();
            return AccessPolicy.grant(storefront, "counters", RegionAccess.READ, RegionAccess.ATOMIC)
                    .or(AccessPolicy.grant(storefront, "prices", RegionAccess.READ))
                    .or(AccessPolicy.grant(storefront, "cache.products", RegionAccess.READ, RegionAccess.WRITE));
        }
        // end::remote-memory-readme-policy[]
    }

    @Test
    void thePolicyGrantsTheStorefrontWhatItUsesAndNoOneElseAnything() {
        AccessPolicy policy = new Policy().storefrontClients(new SampleProperties("shop", 4, Duration.ofSeconds(1)));
        PeerIdentity shop = PeerIdentity.of(null, "shop", null);
        assertThat(policy.decide(shop, "counters").rights()).containsExactly(RegionAccess.READ, RegionAccess.ATOMIC);
        assertThat(policy.decide(shop, "prices").rights()).containsExactly(RegionAccess.READ);
        assertThat(policy.decide(shop, "cache.products").rights()).containsExactly(RegionAccess.READ,
                RegionAccess.WRITE);
        assertThat(policy.decide(shop, "secrets").granted()).isFalse();
        assertThat(policy.decide(PeerIdentity.of(null, "stranger", null), "prices").granted()).isFalse();
    }

    /** The storefront's two lines, on a RemoteMemory of a memory server with the sample's regions. */
    static final class StorefrontExample {
        private final RemoteMemory memory;

        StorefrontExample(RemoteMemory memory) {
            this.memory = memory;
        }

        // tag::remote-memory-readme-storefront[]
        /** Counts a visit; the count before it. */
        public Mono<Long> visit() {
            return memory.region("counters").flatMap(counters -> counters.fetchAdd(Layout.VISITS, 1));
        }

        /** The price of {@code sku} as the service last published it: never half of one. */
        public Mono<Price> price(int sku) {
            return memory.region("prices").flatMap(prices -> prices.read(Layout.price(sku), Price.class));
        }
        // end::remote-memory-readme-storefront[]
    }

    @Test
    void theStorefrontCountsVisitsAndReadsPricesOneSided() {
        AccessPolicy policy = new Policy().storefrontClients(new SampleProperties("shop", 4, Duration.ofSeconds(1)));
        DisposableMemoryServer server = MemoryServer.create().host("127.0.0.1").port(0).policy(policy)
                .region("counters", 4096, RegionAccess.READ, RegionAccess.WRITE, RegionAccess.ATOMIC)
                .region("prices", 64 * 1024, RegionAccess.READ).bindNow(TIMEOUT);
        RemoteMemory memory = RemoteMemory.builder()
                .servers(List.of(new InetSocketAddress("127.0.0.1", server.port()))).credential("shop").build();
        try {
            server.region("prices").writeRecord(Layout.price(3),
                    MemoryCodec.json().encode(Price.of(3, 7), ByteBufAllocator.DEFAULT));
            StorefrontExample storefront = new StorefrontExample(memory);
            StepVerifier.create(storefront.visit()).expectNext(0L).verifyComplete();
            StepVerifier.create(storefront.visit()).expectNext(1L).verifyComplete();
            assertThat(server.region("counters").getLong(Layout.VISITS)).isEqualTo(2);
            StepVerifier.create(storefront.price(3)).expectNext(Price.of(3, 7)).verifyComplete();
        } finally {
            memory.dispose();
            server.disposeNow(TIMEOUT);
        }
    }

    /** The catalog's cached lookup; Spring's cache abstraction is the same on any CacheManager. */
    static class CatalogExample {
        final AtomicInteger loads = new AtomicInteger();

        // tag::remote-memory-readme-cacheable[]
        @Cacheable("products")
        public Product product(String id) {
            loads.incrementAndGet();
            return new Product(id, "Product " + id, Math.floorMod(id.hashCode(), 16));
        }
        // end::remote-memory-readme-cacheable[]

        /** Through a method: the bean is a proxy, whose own fields are not the target's. */
        public int loads() {
            return loads.get();
        }
    }

    @Configuration(proxyBeanMethods = false)
    @EnableCaching
    static class Caching {
        @Bean
        CacheManager cacheManager() {
            return new ConcurrentMapCacheManager();
        }

        @Bean
        CatalogExample catalog() {
            return new CatalogExample();
        }
    }

    @Test
    void theCachedLookupLoadsEachProductOnce() {
        new ApplicationContextRunner().withUserConfiguration(Caching.class).run(context -> {
            CatalogExample catalog = context.getBean(CatalogExample.class);
            Product first = catalog.product("p-1");
            assertThat(catalog.product("p-1")).isEqualTo(first);
            catalog.product("p-2");
            assertThat(catalog.loads()).isEqualTo(2);
        });
    }

    private static List<String> blocks(String markdown, String language) {
        Matcher m = Pattern.compile("```" + language + "\\n(.*?)```", Pattern.DOTALL).matcher(markdown);
        List<String> found = new ArrayList<>();
        while (m.find()) {
            found.add(m.group(1));
        }
        return found;
    }
}
