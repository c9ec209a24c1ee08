package io.softrdma.spring.cache;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.binder.MeterBinder;
import io.softrdma.memory.cache.CacheOwner;
import java.util.List;
import java.util.Objects;
import java.util.function.ToDoubleFunction;

/**
 * Micrometer meters of the caches a service owns ({@link CacheOwner}s), the owner's side of
 * {@link RdmaCacheMetrics}: {@code cache.size} (entries held), {@code cache.rdma.owner.evictions} (entries evicted
 * to make room: the log wrapped onto them or their bucket was full), {@code cache.rdma.owner.expirations} (removed by
 * the TTL sweep) and {@code cache.rdma.owner.damaged} (found with a bad checksum and dropped: should stay 0), each
 * tagged {@code cache} with the cache's name and with the tags given here.
 *
 * <p>Thread safety: immutable; the meters read the owners' counters (0 before an owner starts).
 */
public final class RdmaCacheOwnerMetrics implements MeterBinder {
    private final List<CacheOwner> owners;
    private final Iterable<Tag> tags;

    public RdmaCacheOwnerMetrics(List<CacheOwner> owners, Iterable<Tag> tags) {
        this.owners = List.copyOf(owners);
        this.tags = Objects.requireNonNull(tags, "tags");
    }

    public RdmaCacheOwnerMetrics(List<CacheOwner> owners) {
        this(owners, Tags.empty());
    }

    @Override
    public void bindTo(MeterRegistry registry) {
        for (CacheOwner owner : owners) {
            Tags cacheTags = Tags.concat(tags, "cache", owner.name());
            Gauge.builder("cache.size", owner, CacheOwner::size).tags(cacheTags)
                    .description("Entries the owner's table holds").register(registry);
            counter(registry, owner, cacheTags, "cache.rdma.owner.evictions",
                    "Entries evicted to make room (log wrapped onto them, or a full bucket)", CacheOwner::evictions);
            counter(registry, owner, cacheTags, "cache.rdma.owner.expirations", "Entries removed by the TTL sweep",
                    CacheOwner::expirations);
            counter(registry, owner, cacheTags, "cache.rdma.owner.damaged",
                    "Entries found with a bad checksum and dropped", CacheOwner::damaged);
        }
    }

    private static void counter(MeterRegistry registry, CacheOwner owner, Tags tags, String name, String description,
                                ToDoubleFunction<CacheOwner> what) {
        FunctionCounter.builder(name, owner, what).tags(tags).description(description).register(registry);
    }
}
