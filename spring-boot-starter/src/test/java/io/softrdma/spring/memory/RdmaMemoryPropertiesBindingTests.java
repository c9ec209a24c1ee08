package io.softrdma.spring.memory;

import static org.assertj.core.api.Assertions.assertThat;

import io.softrdma.memory.AccessDecision;
import io.softrdma.memory.AccessPolicy;
import io.softrdma.memory.PeerIdentity;
import io.softrdma.memory.RegionAccess;
import io.softrdma.memory.RegionSpec;
import java.util.List;
import java.util.Map;
import java.util.Set;
import javax.security.auth.x500.X500Principal;
import org.junit.jupiter.api.Test;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.MapConfigurationPropertySource;

/**
 * {@code rdma.memory.*} as Spring Boot binds it: region sizes and rights in properties' words, grants keyed by a
 * credential or by a TLS principal in brackets, and the policy they make — what it grants whom, and why it refuses.
 */
class RdmaMemoryPropertiesBindingTests {

    static RdmaMemoryProperties bind(Map<String, String> properties) {
        return new Binder(new MapConfigurationPropertySource(properties)).bind("rdma.memory",
                RdmaMemoryProperties.class).get();
    }

    @Test
    void regionsAndGrantsBindFromPropertiesWords() {
        RdmaMemoryProperties p = bind(Map.of(
                "rdma.memory.regions.prices.size", "1MB",
                "rdma.memory.regions.prices.access", "read, WRITE",
                "rdma.memory.regions.prices.grants.pricing-client", "read",
                "rdma.memory.regions.prices.grants.[CN=pricer,O=Example]", "read,write",
                "rdma.memory.regions.counters.size", "64B",
                "rdma.memory.regions.counters.access", "atomic,read",
                "rdma.memory.regions.counters.grants.pricing-client", "atomic"));
        assertThat(p.regionSpecs()).containsExactlyInAnyOrder(
                new RegionSpec("prices", 1 << 20, Set.of(RegionAccess.READ, RegionAccess.WRITE)),
                new RegionSpec("counters", 64, Set.of(RegionAccess.READ, RegionAccess.ATOMIC)));
        assertThat(p.getRegions().get("prices").getGrants()).containsOnlyKeys("pricing-client",
                "CN=pricer,O=Example");

        AccessPolicy policy = p.grantsPolicy();
        PeerIdentity client = PeerIdentity.of(null, "pricing-client", null);
        PeerIdentity pricer = PeerIdentity.of(new X500Principal("CN=pricer,O=Example"), null, null);
        assertThat(policy.decide(client, "prices").rights()).containsExactly(RegionAccess.READ);
        assertThat(policy.decide(client, "counters").rights()).containsExactly(RegionAccess.ATOMIC);
        assertThat(policy.decide(pricer, "prices").rights()).containsExactlyInAnyOrder(RegionAccess.READ,
                RegionAccess.WRITE);
        AccessDecision refused = policy.decide(pricer, "counters");
        assertThat(refused.granted()).isFalse();
        assertThat(refused.reason()).contains("counters", "CN=pricer,O=Example");
        assertThat(policy.decide(PeerIdentity.anonymous(), "prices").granted()).isFalse();
    }

    @Test
    void withoutGrantsThereIsNoPolicyAndTheServersDefaultDeniesAll() {
        RdmaMemoryProperties p = bind(Map.of("rdma.memory.regions.prices.size", "8B"));
        assertThat(p.regionSpecs()).singleElement().satisfies(r -> assertThat(r.access())
                .as("read unless told").containsExactly(RegionAccess.READ));
        assertThat(p.grantsPolicy()).isNull();
        assertThat(p.cacheGrantsPolicy()).isNull();
    }

    @Test
    void cacheGrantsAreOnTheCachesRegion() {
        RdmaMemoryProperties p = bind(Map.of("rdma.memory.cache.caches.books.size", "2MB",
                "rdma.memory.cache.caches.books.default-ttl", "10m",
                "rdma.memory.cache.caches.books.grants.app", "read,write",
                "rdma.memory.cache.time-to-live.books", "1m",
                "rdma.memory.cache.cache-names", "books,authors"));
        assertThat(p.getCache().getCaches().get("books").getSize().toMegabytes()).isEqualTo(2);
        assertThat(p.getCache().getCaches().get("books").getDefaultTtl()).hasMinutes(10);
        assertThat(p.getCache().getCacheNames()).isEqualTo(List.of("books", "authors"));
        assertThat(p.getCache().getTimeToLive().get("books")).hasMinutes(1);
        assertThat(p.cacheGrantsPolicy().decide(PeerIdentity.of(null, "app", null), "cache.books").rights())
                .containsExactlyInAnyOrder(RegionAccess.READ, RegionAccess.WRITE);
    }
}
