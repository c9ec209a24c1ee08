package io.softrdma.spring.cache;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.binder.MeterBinder;
import io.micrometer.core.instrument.binder.cache.CacheMeterBinder;
import io.softrdma.memory.cache.CacheStatistics;
import io.softrdma.memory.cache.RdmaCache;
import java.util.Objects;
import java.util.function.ToLongFunction;

/**
 * Micrometer meters of every cache of an {@link RdmaCacheManager}, those made later included: Micrometer's cache
 * meters ({@code cache.gets} with {@code result} hit or miss, {@code cache.puts}, {@code cache.evictions}, the
 * deletes that removed a value), and the RDMA cache's own: {@code cache.rdma.gets.one.sided} (GETs answered by RDMA
 * Reads alone), {@code cache.rdma.retries} (reads that found the owner changing the entry and read again) and
 * {@code cache.rdma.gets.owner} (GETs that then asked the owner). Each tagged {@code cache} with the cache's name
 * and with the tags given here.
 *
 * <p>Thread safety: all methods may be called from any thread; the meters read the caches' counters.
 */
public final class RdmaCacheMetrics implements MeterBinder {
    private final RdmaCacheManager manager;
    private final Iterable<Tag> tags;

    public RdmaCacheMetrics(RdmaCacheManager manager, Iterable<Tag> tags) {
        this.manager = Objects.requireNonNull(manager, "manager");
        this.tags = Objects.requireNonNull(tags, "tags");
    }

    public RdmaCacheMetrics(RdmaCacheManager manager) {
        this(manager, Tags.empty());
    }

    @Override
    public void bindTo(MeterRegistry registry) {
        manager.forEachCache(cache -> new Binder(cache.getNativeCache(), tags).bindTo(registry));
    }

    /** Micrometer's cache meters, read from one RDMA cache's statistics. */
    private static final class Binder extends CacheMeterBinder<RdmaCache<Object, Object>> {
        private final RdmaCache<Object, Object> cache;

        Binder(RdmaCache<Object, Object> cache, Iterable<Tag> tags) {
            super(cache, cache.name(), tags);
            this.cache = cache;
        }

        @Override
        protected Long size() {
            return null; // held by the owners, not known here
        }

        @Override
        protected long hitCount() {
            return cache.statistics().hits();
        }

        @Override
        protected Long missCount() {
            return cache.statistics().misses();
        }

        @Override
        protected Long evictionCount() {
            return cache.statistics().deletes();
        }

        @Override
        protected long putCount() {
            return cache.statistics().puts();
        }

        @Override
        protected void bindImplementationSpecificMetrics(MeterRegistry registry) {
            counter(registry, "cache.rdma.gets.one.sided", "GETs answered by RDMA Reads alone",
                    CacheStatistics::oneSidedGets);
            counter(registry, "cache.rdma.retries", "Reads that found the owner changing the entry and read again",
                    CacheStatistics::retries);
            counter(registry, "cache.rdma.gets.owner", "GETs that asked the owner after racing its writes",
                    CacheStatistics::ownerGets);
        }

        private void counter(MeterRegistry registry, String name, String description,
                             ToLongFunction<CacheStatistics> what) {
            FunctionCounter.builder(name, cache, c -> what.applyAsLong(c.statistics()))
                    .tags(getTagsWithCacheName())
                    .description(description)
                    .register(registry);
        }
    }
}
