package io.softrdma.spring.cache;

import io.softrdma.memory.cache.RdmaCache;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;
import org.springframework.cache.support.AbstractValueAdaptingCache;
import reactor.core.publisher.Mono;

/**
 * One Spring {@link org.springframework.cache.Cache} on an {@link RdmaCache}: what {@code @Cacheable},
 * {@code @CachePut} and {@code @CacheEvict} on the cache of this name read and write. GETs are one-sided RDMA Reads;
 * PUTs and evictions are requests to the cache's owner. Made by {@link RdmaCacheManager}.
 *
 * <p>Blocking: the synchronous methods wait at most the manager's timeout, and so must not run on an event loop
 * (Reactor refuses); {@code retrieve} (what Spring uses for methods returning {@code Mono}, {@code Flux} or
 * {@code CompletableFuture}) does not block.
 *
 * <p>{@link #get(Object, Callable)} (Spring's {@code sync = true}) loads once per JVM at a time, not once across the
 * cluster: two instances that miss together both load, and the later PUT wins.
 *
 * <p>Thread safety: all methods may be called from any thread.
 */
public final class RdmaSpringCache extends AbstractValueAdaptingCache {
    private final RdmaCache<Object, Object> cache;
    private final Duration ttl;
    private final Duration timeout;

    RdmaSpringCache(RdmaCache<Object, Object> cache, Duration ttl, Duration timeout, boolean allowNullValues) {
        super(allowNullValues);
        this.cache = cache;
        this.ttl = ttl;
        this.timeout = timeout;
    }

    @Override
    public String getName() {
        return cache.name();
    }

    /** The RDMA cache underneath (its statistics, and reactive access). */
    @Override
    public RdmaCache<Object, Object> getNativeCache() {
        return cache;
    }

    @Override
    protected Object lookup(Object key) {
        return cache.get(key).block(timeout);
    }

    @Override
    @SuppressWarnings("unchecked")
    public <T> T get(Object key, Callable<T> valueLoader) {
        Object stored = lookup(key);
        if (stored != null) {
            return (T) fromStoreValue(stored);
        }
        synchronized (this) {
            stored = lookup(key);
            if (stored != null) {
                return (T) fromStoreValue(stored);
            }
            T value;
            try {
                value = valueLoader.call();
            } catch (Exception e) {
                throw new ValueRetrievalException(key, valueLoader, e);
            }
            put(key, value);
            return value;
        }
    }

    @Override
    public CompletableFuture<?> retrieve(Object key) {
        return cache.get(key)
                .map(stored -> isAllowNullValues() ? toValueWrapper(stored) : fromStoreValue(stored))
                .toFuture();
    }

    @Override
    @SuppressWarnings("unchecked")
    public <T> CompletableFuture<T> retrieve(Object key, Supplier<CompletableFuture<T>> valueLoader) {
        return cache.get(key)
                .map(stored -> (T) fromStoreValue(stored))
                .switchIfEmpty(Mono.defer(() -> Mono.fromFuture(valueLoader.get()))
                        .flatMap(value -> store(key, value).thenReturn(value)))
                .toFuture();
    }

    @Override
    public void put(Object key, Object value) {
        store(key, value).block(timeout);
    }

    private Mono<Void> store(Object key, Object value) {
        Object stored = toStoreValue(value);
        return ttl == null ? cache.put(key, stored) : cache.put(key, stored, ttl);
    }

    @Override
    public ValueWrapper putIfAbsent(Object key, Object value) {
        Object existing = cache.putIfAbsent(key, toStoreValue(value)).block(timeout);
        return toValueWrapper(existing);
    }

    @Override
    public void evict(Object key) {
        evictIfPresent(key);
    }

    @Override
    public boolean evictIfPresent(Object key) {
        return Boolean.TRUE.equals(cache.delete(Objects.requireNonNull(key, "key")).block(timeout));
    }

    @Override
    public void clear() {
        cache.clear().block(timeout);
    }

    @Override
    public boolean invalidate() {
        clear();
        return true;
    }

    @Override
    public String toString() {
        return "RdmaSpringCache{" + cache + "}";
    }
}
