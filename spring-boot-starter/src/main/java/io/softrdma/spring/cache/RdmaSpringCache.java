package io.softrdma.spring.cache;

import io.softrdma.memory.cache.RdmaCache;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.springframework.cache.support.AbstractValueAdaptingCache;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/**
 * One Spring {@link org.springframework.cache.Cache} on an {@link RdmaCache}: what {@code @Cacheable},
 * {@code @CachePut} and {@code @CacheEvict} on the cache of this name read and write. GETs are one-sided RDMA Reads;
 * PUTs and evictions are requests to the cache's owner. Made by {@link RdmaCacheManager}.
 *
 * <p>Blocking: the synchronous lookups wait at most the manager's timeout, and so must not run on an event loop
 * (Reactor refuses); {@code retrieve} (what Spring uses for methods returning {@code Mono}, {@code Flux} or
 * {@code CompletableFuture}) does not block, nor do {@code put}, {@code evict} and {@code clear} on an event loop.
 *
 * <p>{@link #get(Object, Callable)} (Spring's {@code sync = true}) loads once per JVM at a time, not once across the
 * cluster: two instances that miss together both load, and the later PUT wins.
 *
 * <p>Thread safety: all methods may be called from any thread.
 */
public final class RdmaSpringCache extends AbstractValueAdaptingCache {
    private static final Log LOG = LogFactory.getLog(RdmaSpringCache.class);

    private final RdmaCache<Object, Object> cache;
    private final Duration ttl;
    private final Duration timeout;
    /** Loads of keys in different stripes run at once; of one key, once at a time (in this JVM). */
    private final Object[] loadLocks = new Object[64];

    RdmaSpringCache(RdmaCache<Object, Object> cache, Duration ttl, Duration timeout, boolean allowNullValues) {
        super(allowNullValues);
        this.cache = cache;
        this.ttl = ttl;
        this.timeout = timeout;
        for (int i = 0; i < loadLocks.length; i++) {
            loadLocks[i] = new Object();
        }
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
        synchronized (loadLocks[Math.floorMod(key.hashCode(), loadLocks.length)]) {
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

    /**
     * Stores the value; waits for the owner's answer unless called on a non-blocking thread (an event loop, where
     * Spring puts what a {@code Mono} method emitted): there it returns at once and a failure is logged, which
     * {@link org.springframework.cache.Cache#put}'s contract allows.
     */
    @Override
    public void put(Object key, Object value) {
        await(store(key, value), "put");
    }

    private void await(Mono<?> operation, String what) {
        if (Schedulers.isInNonBlockingThread()) {
            operation.subscribe(null, e -> LOG.warn("cache '" + getName() + "': " + what + " failed", e));
        } else {
            operation.block(timeout);
        }
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

    /** Removes the key's value; like {@link #put}, waits unless on a non-blocking thread. */
    @Override
    public void evict(Object key) {
        await(cache.delete(Objects.requireNonNull(key, "key")), "evict");
    }

    @Override
    public boolean evictIfPresent(Object key) {
        return Boolean.TRUE.equals(cache.delete(Objects.requireNonNull(key, "key")).block(timeout));
    }

    /** Removes every value on every owner; like {@link #put}, waits unless on a non-blocking thread. */
    @Override
    public void clear() {
        await(cache.clear(), "clear");
    }

    @Override
    public boolean invalidate() {
        cache.clear().block(timeout);
        return true;
    }

    @Override
    public String toString() {
        return "RdmaSpringCache{" + cache + "}";
    }
}
