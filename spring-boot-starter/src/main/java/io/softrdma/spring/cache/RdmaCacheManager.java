package io.softrdma.spring.cache;

import io.softrdma.memory.MemoryCodec;
import io.softrdma.memory.RemoteMemory;
import io.softrdma.memory.cache.CacheOwner;
import io.softrdma.memory.cache.RdmaCache;
import java.time.Duration;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import org.springframework.cache.CacheManager;
import org.springframework.util.ClassUtils;

/**
 * A Spring {@link CacheManager} whose caches are RDMA caches, so that {@code @Cacheable}, {@code @CachePut} and
 * {@code @CacheEvict} work on them unchanged: the cache {@code books} is the {@link RdmaCache} {@code books}, whose
 * {@link CacheOwner}s keep region {@code cache.books} on the memory servers {@link RemoteMemory} reaches.
 *
 * <pre>{@code
 * &#64;Bean
 * RdmaCacheManager cacheManager(RemoteMemory memory) {
 *     return RdmaCacheManager.builder(memory).ttl("books", Duration.ofMinutes(5)).build();
 * }
 * }</pre>
 *
 * <p>Keys become octets by their {@code toString()} (a String as is; Spring's {@code SimpleKey} lists the
 * arguments), as Spring Data Redis's cache does; values by the codec (JSON unless set) after their class name, so any
 * type a method returns can be cached and read back by every instance that has the class. Nulls are cached (as
 * Spring's {@code NullValue}) unless {@link Builder#disallowNullValues()}. A cache that cannot be reached fails the
 * annotated call, as any Spring cache does; Spring's {@code LoggingCacheErrorHandler} makes such failures misses.
 *
 * <p>Thread safety: all methods may be called from any thread.
 */
public final class RdmaCacheManager implements CacheManager {
    private final RemoteMemory memory;
    private final MemoryCodec valueCodec;
    private final Duration defaultTtl;
    private final Map<String, Duration> ttls;
    private final Duration timeout;
    private final boolean allowNullValues;
    private final int retries;
    private final boolean dynamic;
    private final Map<String, RdmaSpringCache> caches = new ConcurrentHashMap<>();
    private final List<Consumer<RdmaSpringCache>> listeners = new CopyOnWriteArrayList<>();

    private RdmaCacheManager(Builder b) {
        this.memory = b.memory;
        this.valueCodec = new TypedValueCodec(b.codec, b.classLoader);
        this.defaultTtl = b.defaultTtl;
        this.ttls = Map.copyOf(b.ttls);
        this.timeout = b.timeout;
        this.allowNullValues = b.allowNullValues;
        this.retries = b.retries;
        this.dynamic = b.cacheNames.isEmpty();
        for (String name : b.cacheNames) {
            caches.put(name, make(name));
        }
    }

    /** A manager of caches on the servers {@code memory} reaches. */
    public static Builder builder(RemoteMemory memory) {
        return new Builder(memory);
    }

    /**
     * The cache of that name: made on first use unless the builder fixed the names ({@link Builder#cacheNames}),
     * then null for any other, as Spring expects of a manager with a fixed set.
     */
    @Override
    public RdmaSpringCache getCache(String name) {
        Objects.requireNonNull(name, "name");
        RdmaSpringCache cache = caches.get(name);
        if (cache != null || !dynamic) {
            return cache;
        }
        boolean[] made = new boolean[1];
        cache = caches.computeIfAbsent(name, n -> {
            made[0] = true;
            return make(n);
        });
        if (made[0]) {
            RdmaSpringCache created = cache;
            listeners.forEach(l -> l.accept(created));
        }
        return cache;
    }

    @Override
    public Collection<String> getCacheNames() {
        return Set.copyOf(caches.keySet());
    }

    /** Every cache made so far, then each one made later, to {@code listener} (how metrics find them). */
    public void forEachCache(Consumer<RdmaSpringCache> listener) {
        Objects.requireNonNull(listener, "listener");
        listeners.add(listener);
        caches.values().forEach(listener);
    }

    private RdmaSpringCache make(String name) {
        RdmaCache<Object, Object> cache = RdmaCache.builder(memory, name, Object.class, Object.class)
                .keyCodec(SpringKeyCodec.INSTANCE)
                .valueCodec(valueCodec)
                .retries(retries)
                .build();
        return new RdmaSpringCache(cache, ttls.getOrDefault(name, defaultTtl), timeout, allowNullValues);
    }

    @Override
    public String toString() {
        return "RdmaCacheManager{" + caches.keySet() + "}";
    }

    /**
     * How the manager's caches encode, expire and wait.
     *
     * <p>Thread safety: not thread-safe; build once.
     */
    public static final class Builder {
        private final RemoteMemory memory;
        private MemoryCodec codec = MemoryCodec.json();
        private ClassLoader classLoader = ClassUtils.getDefaultClassLoader();
        private Duration defaultTtl;
        private final Map<String, Duration> ttls = new LinkedHashMap<>();
        private Duration timeout = Duration.ofSeconds(5);
        private boolean allowNullValues = true;
        private int retries = 8;
        private final Set<String> cacheNames = new java.util.LinkedHashSet<>();

        private Builder(RemoteMemory memory) {
            this.memory = Objects.requireNonNull(memory, "memory");
        }

        /** The codec of values (Jackson's JSON unless set). */
        public Builder codec(MemoryCodec codec) {
            this.codec = Objects.requireNonNull(codec, "codec");
            return this;
        }

        /** Where the classes of cached values are loaded from (Spring's default class loader). */
        public Builder classLoader(ClassLoader classLoader) {
            this.classLoader = Objects.requireNonNull(classLoader, "classLoader");
            return this;
        }

        /** The TTL of every cache without its own (unset: the owner's default TTL; zero: none). */
        public Builder defaultTtl(Duration ttl) {
            this.defaultTtl = checkTtl(ttl);
            return this;
        }

        /** The TTL of the cache {@code name}'s entries (zero: none). */
        public Builder ttl(String name, Duration ttl) {
            ttls.put(Objects.requireNonNull(name, "name"), checkTtl(ttl));
            return this;
        }

        /** How long a synchronous cache operation may wait (5 s unless set). */
        public Builder timeout(Duration timeout) {
            Objects.requireNonNull(timeout, "timeout");
            if (timeout.isNegative() || timeout.isZero()) {
                throw new IllegalArgumentException("timeout " + timeout + " must be positive");
            }
            this.timeout = timeout;
            return this;
        }

        /** Refuse to cache nulls (Spring then fails a null PUT) instead of storing them as NullValue. */
        public Builder disallowNullValues() {
            this.allowNullValues = false;
            return this;
        }

        /** How many times a GET reads again after racing a PUT before asking the owner (8 unless set). */
        public Builder retries(int retries) {
            if (retries < 0) {
                throw new IllegalArgumentException("retries " + retries + " must not be negative");
            }
            this.retries = retries;
            return this;
        }

        /** Only these caches, made at once (getCache of another gives null); unset: any name, made on first use. */
        public Builder cacheNames(String... names) {
            for (String name : names) {
                CacheOwner.regionName(Objects.requireNonNull(name, "name"));
                cacheNames.add(name);
            }
            return this;
        }

        public RdmaCacheManager build() {
            return new RdmaCacheManager(this);
        }

        private static Duration checkTtl(Duration ttl) {
            Objects.requireNonNull(ttl, "ttl");
            if (ttl.isNegative()) {
                throw new IllegalArgumentException("TTL " + ttl + " must not be negative (zero: never expires)");
            }
            return ttl;
        }
    }
}
