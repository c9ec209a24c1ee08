package io.softrdma.memory.cache;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.softrdma.memory.MemoryCodec;
import io.softrdma.memory.RegionRevokedException;
import io.softrdma.memory.RemoteMemory;
import io.softrdma.memory.RemoteMemoryException;
import io.softrdma.memory.RemoteRegion;
import io.softrdma.memory.cache.internal.CacheProtocol;
import io.softrdma.memory.cache.internal.KeyHash;
import io.softrdma.memory.cache.internal.LocationHints;
import io.softrdma.memory.cache.internal.OneSidedGet;
import io.softrdma.memory.cache.internal.StaleLayoutException;
import io.softrdma.memory.cache.internal.TableLayout;
import io.softrdma.memory.cache.internal.TornReadException;
import io.softrdma.rdmap.TerminateException;
import io.softrdma.reactive.RdmaOperationException;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Function;
import java.util.function.LongSupplier;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;
import reactor.util.retry.Retry;

/**
 * A client of an RDMA cache that {@link CacheOwner}s keep on one or more memory servers. GET is one-sided, as in
 * Pilaf: an RDMA Read of the key's bucket, then of the entry its slot points to, each verified by its CRC-32C and the
 * entry's key compared, read again when the owner changed either meanwhile, and asked of the owner after a few such
 * retries; the owner's code does not run for a GET. PUT, DELETE and clear are requests to the owner. Keys and values
 * go through {@link MemoryCodec}s; a key's encoded octets choose its server by consistent hashing
 * ({@link RemoteMemory#serverFor}), so every client sends a key to the same owner.
 *
 * <pre>{@code
 * RdmaCache<String, Book> books = RdmaCache.builder(memory, "books", String.class, Book.class).build();
 * books.put("isbn-1", new Book("Dune", 1965)).block();
 * Book dune = books.get("isbn-1").block();
 * }</pre>
 *
 * <p>What a GET returns: the value the key had at a moment during the GET, never a mix of two values (each read is
 * checked whole), never older than what a PUT or GET that completed before it saw; a key deleted or replaced while
 * the GET runs may still show its previous value. A client remembers where it last found each key ({@link
 * Builder#locationHints}), so a GET of an unchanged key reads its entry alone: one RDMA Read. Equal keys must encode
 * to equal octets (the codec's job; JSON of records and strings does).
 *
 * <p>Why this class is long: it is the cache's whole client — GET with its lease re-resolution, location hints and
 * fall-back to the owner, the requests PUT, PUT_IF_ABSENT, DELETE and CLEAR, the statistics, and the builder — kept
 * together because each operation shares the key encoding and server choice; the table's layout and the one-sided
 * lookup itself live in {@code cache.internal}.
 *
 * <p>Thread safety: all methods may be called from any thread. Buffers: none cross this API; values are decoded from
 * the library's buffers before they are released.
 */
public final class RdmaCache<K, V> {
    /** How many times a GET resolves again after losing its lease or connection, backing off from 10 ms. */
    private static final int LEASE_RETRIES = 3;

    private final RemoteMemory memory;
    private final String name;
    private final String region;
    private final Class<V> valueType;
    private final MemoryCodec keyCodec;
    private final MemoryCodec valueCodec;
    private final Clock clock;
    private final int retries;
    private final Map<InetSocketAddress, TableLayout> layouts = new ConcurrentHashMap<>();
    private final LongAdder hits = new LongAdder();
    private final LongAdder misses = new LongAdder();
    private final LongAdder oneSided = new LongAdder();
    private final LongAdder retried = new LongAdder();
    private final LongAdder ownerGets = new LongAdder();
    private final LongAdder puts = new LongAdder();
    private final LongAdder deletes = new LongAdder();
    /** The clock's milliseconds and the value decoder, as the lookup takes them (made once, not per GET). */
    private final LongSupplier millis;
    private final Function<ByteBuf, V> decoder = this::decodeValue;
    /** Where keys' entries were last found; null if off. */
    private final LocationHints hints;
    private final OneSidedGet.Listener listener = new OneSidedGet.Listener() {
        @Override
        public void retried() {
            retried.increment();
        }

        @Override
        public void answered() {
            oneSided.increment();
        }

        @Override
        public void located(long hash, long location) {
            if (hints != null) {
                hints.put(hash, location);
            }
        }
    };

    private RdmaCache(Builder<K, V> b) {
        this.memory = b.memory;
        this.name = b.name;
        this.region = CacheOwner.regionName(b.name);
        this.valueType = b.valueType;
        this.keyCodec = b.keyCodec;
        this.valueCodec = b.valueCodec;
        this.clock = b.clock;
        this.millis = b.clock::millis;
        this.retries = b.retries;
        this.hints = b.hints == 0 ? null : new LocationHints(b.hints);
    }

    /** A client of the cache {@code name} on {@code memory}'s servers, JSON for keys and values unless told. */
    public static <K, V> Builder<K, V> builder(RemoteMemory memory, String name, Class<K> keyType,
                                               Class<V> valueType) {
        return new Builder<>(memory, name, keyType, valueType);
    }

    public String name() {
        return name;
    }

    /** The value of {@code key}, or empty if the cache has none live. */
    public Mono<V> get(K key) {
        Objects.requireNonNull(key, "key");
        return Mono.defer(() -> {
            byte[] k = encodeKey(key);
            return oneSidedGet(k)
                    .onErrorResume(TornReadException.class, e -> ownerGet(k))
                    .doOnSuccess(v -> (v != null ? hits : misses).increment());
        });
    }

    /** Stores {@code value} under {@code key} with the owner's default TTL. */
    public Mono<Void> put(K key, V value) {
        return store(CacheProtocol.PUT, key, value, -1).then();
    }

    /** Stores {@code value} under {@code key}, to expire after {@code ttl} (zero: never). */
    public Mono<Void> put(K key, V value, Duration ttl) {
        return store(CacheProtocol.PUT, key, value, ttlMillis(ttl)).then();
    }

    /** Stores {@code value} unless {@code key} has a live value: emits that value if so, completes empty if stored. */
    public Mono<V> putIfAbsent(K key, V value) {
        return store(CacheProtocol.PUT_IF_ABSENT, key, value, -1);
    }

    /** Removes {@code key}'s value; emits whether there was one. */
    public Mono<Boolean> delete(K key) {
        Objects.requireNonNull(key, "key");
        return Mono.defer(() -> {
            byte[] k = encodeKey(key);
            return call(k, CacheProtocol.DELETE, k, null, 0, response -> {
                byte status = response.getByte(response.readerIndex());
                if (status == CacheProtocol.DELETED) {
                    deletes.increment();
                }
                return status == CacheProtocol.DELETED;
            });
        });
    }

    /** Removes every value, on every server. */
    public Mono<Void> clear() {
        // On boundedElastic: before a refreshing source's first answer, finding the servers blocks.
        return Mono.fromCallable(this::oneKeyPerServer).subscribeOn(Schedulers.boundedElastic())
                .flatMapMany(Flux::fromIterable)
                .flatMap(shard -> call(shard, CacheProtocol.CLEAR, null, null, 0, response -> Boolean.TRUE))
                .then();
    }

    /** What this client has done so far. */
    public CacheStatistics statistics() {
        return new CacheStatistics(hits.sum(), misses.sum(), oneSided.sum(), retried.sum(), ownerGets.sum(),
                puts.sum(), deletes.sum());
    }

    /**
     * The GET without the owner: with the region leased and its table's layout known (every GET but the first few),
     * straight to the lookup; failing there for any reason but a torn read, or without a lease or layout, through
     * {@link #resolvingGet}, which resolves the region and reads the layout again as need be and retries.
     */
    private Mono<V> oneSidedGet(byte[] k) {
        RemoteRegion r = memory.leasedRegion(region, k).orElse(null);
        TableLayout layout = r == null ? null : layouts.get(r.server());
        if (layout == null) {
            return resolvingGet(k);
        }
        return lookup(r, layout, k)
                .onErrorResume(e -> !(e instanceof TornReadException), e -> {
                    layouts.remove(r.server()); // the owner may have restarted with another table
                    return leaseOrConnectionLost(e) || e instanceof StaleLayoutException
                            || e instanceof IllegalArgumentException ? resolvingGet(k) : Mono.error(e);
                });
    }

    /** The one-sided lookup of key {@code k} in {@code r}'s table, from its hint if it has one. */
    private Mono<V> lookup(RemoteRegion r, TableLayout layout, byte[] k) {
        ByteBuf key = Unpooled.wrappedBuffer(k);
        long hash = KeyHash.of(key);
        return OneSidedGet.lookup(r::read, layout, key, hash, hints == null ? 0 : hints.get(hash), millis, decoder,
                retries, listener);
    }

    private Mono<V> resolvingGet(byte[] k) {
        return memory.region(region, k)
                .flatMap(r -> layout(r)
                        .flatMap(layout -> lookup(r, layout, k))
                        .doOnError(e -> {
                            if (!(e instanceof TornReadException)) {
                                layouts.remove(r.server()); // the owner may have restarted with another table
                            }
                        }))
                .retryWhen(Retry.backoff(LEASE_RETRIES, Duration.ofMillis(10)).maxBackoff(Duration.ofMillis(200))
                        .filter(RdmaCache::leaseOrConnectionLost)
                        .onRetryExhaustedThrow((spec, signal) -> signal.failure()))
                // the owner was restarted with a new table (its layout was dropped above): read the header again
                .retryWhen(Retry.max(1).filter(e -> e instanceof StaleLayoutException
                        || e instanceof IllegalArgumentException));
    }

    /**
     * Whether a GET that failed so should resolve the region again and retry (it is idempotent): its lease ended
     * under it (revoked, expired, the region resized), or the connection did — a revocation's Terminate ends the
     * stream (RFC 5040 section 6.2.1), and a resolve sent as it ends fails with it.
     */
    private static boolean leaseOrConnectionLost(Throwable e) {
        if (e instanceof RegionRevokedException) {
            return true;
        }
        if (e.getClass() != RemoteMemoryException.class) {
            return false; // access denied, no such region: resolving again changes nothing
        }
        for (Throwable t = e.getCause(); t != null; t = t.getCause()) {
            if (t instanceof TerminateException || t instanceof RdmaOperationException || t instanceof IOException) {
                return true;
            }
        }
        return false;
    }

    /** The table's layout on the region's server, read once (its 64-octet header) and kept. */
    private Mono<TableLayout> layout(RemoteRegion r) {
        TableLayout known = layouts.get(r.server());
        if (known != null) {
            return Mono.just(known);
        }
        return Mono.defer(() -> r.read(0, TableLayout.HEADER_SIZE).map(TableLayout::readHeader))
                .retryWhen(Retry.max(retries).filter(TornReadException.class::isInstance))
                .onErrorMap(IllegalStateException.class, e -> new RemoteMemoryException(region, "region '" + region
                        + "' on " + r.server() + " holds no cache table (" + e.getMessage() + "): has its owner been"
                        + " started (CacheOwner.start)?", e))
                .doOnNext(layout -> layouts.put(r.server(), layout));
    }

    private Mono<V> ownerGet(byte[] k) {
        ownerGets.increment();
        return this.<V>call(k, CacheProtocol.GET, k, null, 0, response -> null);
    }

    private Mono<V> store(byte op, K key, V value, long ttl) {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(value, "value");
        return Mono.defer(() -> {
            byte[] k = encodeKey(key);
            ByteBuf v = valueCodec.encode(value, ByteBufAllocator.DEFAULT);
            ByteBuf request;
            try {
                request = CacheProtocol.request(ByteBufAllocator.DEFAULT, op, Unpooled.wrappedBuffer(k), v, ttl);
            } finally {
                v.release();
            }
            return memory.request(region, k, request).handle((response, sink) -> {
                byte status = response.getByte(response.readerIndex());
                switch (status) {
                    case CacheProtocol.STORED -> puts.increment();
                    case CacheProtocol.EXISTS -> sink.next(decodeValue(response.slice(response.readerIndex() + 1,
                            response.readableBytes() - 1)));
                    case CacheProtocol.TOO_LARGE -> sink.error(new IllegalArgumentException("cache '" + name
                            + "': " + CacheProtocol.reason(response)));
                    default -> sink.error(unexpected(status, response));
                }
            });
        });
    }

    /**
     * A request to the owner of shard {@code shard}; {@code map} turns the response (the library's, valid during
     * the call) into the result. FOUND responses decode to the value whatever {@code map} says.
     */
    @SuppressWarnings("unchecked")
    private <R> Mono<R> call(byte[] shard, byte op, byte[] key, ByteBuf value, long ttl,
                             Function<ByteBuf, R> map) {
        ByteBuf request = CacheProtocol.request(ByteBufAllocator.DEFAULT, op,
                key == null ? null : Unpooled.wrappedBuffer(key), value, ttl);
        return memory.request(region, shard, request).handle((response, sink) -> {
            if (response.readableBytes() < 1) {
                sink.error(new RemoteMemoryException(region, "empty response from the cache's owner"));
                return;
            }
            byte status = response.getByte(response.readerIndex());
            switch (status) {
                case CacheProtocol.FOUND -> sink.next((R) decodeValue(response.slice(response.readerIndex() + 1,
                        response.readableBytes() - 1)));
                case CacheProtocol.ABSENT, CacheProtocol.DELETED, CacheProtocol.STORED -> {
                    if (op != CacheProtocol.GET) {
                        sink.next(map.apply(response));
                    }
                }
                default -> sink.error(unexpected(status, response));
            }
        });
    }

    private RemoteMemoryException unexpected(byte status, ByteBuf response) {
        String detail = status == CacheProtocol.REFUSED ? CacheProtocol.reason(response) : "status " + status;
        return new RemoteMemoryException(region, "cache '" + name + "': the owner refused: " + detail);
    }

    private byte[] encodeKey(K key) {
        ByteBuf encoded = keyCodec.encode(key, ByteBufAllocator.DEFAULT);
        try {
            return ByteBufUtil.getBytes(encoded);
        } finally {
            encoded.release();
        }
    }

    private V decodeValue(ByteBuf data) {
        return valueCodec.decode(data, valueType);
    }

    private static long ttlMillis(Duration ttl) {
        Objects.requireNonNull(ttl, "ttl");
        if (ttl.isNegative()) {
            throw new IllegalArgumentException("TTL " + ttl + " must not be negative (zero: never expires)");
        }
        return ttl.isZero() ? 0 : Math.max(1, ttl.toMillis());
    }

    /** A shard key for each server now: the owners a clear must reach. */
    private List<byte[]> oneKeyPerServer() {
        byte[] probe = "clear".getBytes(StandardCharsets.UTF_8);
        memory.serverFor(probe); // waits for the servers' source's first answer, if it has not come yet
        List<InetSocketAddress> servers = memory.servers();
        Map<InetSocketAddress, byte[]> keys = new LinkedHashMap<>();
        for (int i = 0; keys.size() < servers.size() && i < 100_000; i++) {
            byte[] k = ("clear-" + i).getBytes(StandardCharsets.UTF_8);
            keys.putIfAbsent(memory.serverFor(k), k);
        }
        return List.copyOf(keys.values());
    }

    @Override
    public String toString() {
        return "RdmaCache{" + name + ", " + statistics() + "}";
    }

    /**
     * How the client encodes and reads.
     *
     * <p>Thread safety: not thread-safe; build once.
     */
    public static final class Builder<K, V> {
        private final RemoteMemory memory;
        private final String name;
        private final Class<V> valueType;
        private MemoryCodec keyCodec = MemoryCodec.json();
        private MemoryCodec valueCodec = MemoryCodec.json();
        private Clock clock = Clock.systemUTC();
        private int retries = 8;
        private int hints = 4096;

        private Builder(RemoteMemory memory, String name, Class<K> keyType, Class<V> valueType) {
            this.memory = Objects.requireNonNull(memory, "memory");
            this.name = Objects.requireNonNull(name, "name");
            Objects.requireNonNull(keyType, "keyType");
            this.valueType = Objects.requireNonNull(valueType, "valueType");
            CacheOwner.builder(name); // the name rules
        }

        /** The codec of keys and values both. */
        public Builder<K, V> codec(MemoryCodec codec) {
            return keyCodec(codec).valueCodec(codec);
        }

        /** The codec of keys: equal keys must encode to equal octets. */
        public Builder<K, V> keyCodec(MemoryCodec codec) {
            this.keyCodec = Objects.requireNonNull(codec, "codec");
            return this;
        }

        public Builder<K, V> valueCodec(MemoryCodec codec) {
            this.valueCodec = Objects.requireNonNull(codec, "codec");
            return this;
        }

        /** The clock expiry is judged by (the system's UTC clock): the owners' must agree with it. */
        public Builder<K, V> clock(Clock clock) {
            this.clock = Objects.requireNonNull(clock, "clock");
            return this;
        }

        /**
         * How many times a GET reads the bucket again after finding it or its entry changing, before asking the owner
         * (8 unless set; 0 asks the owner after the first such find).
         */
        public Builder<K, V> retries(int retries) {
            if (retries < 0) {
                throw new IllegalArgumentException("retries " + retries + " must not be negative");
            }
            this.retries = retries;
            return this;
        }

        /**
         * How many keys' entry locations to remember (a power of two; 4096 unless set; 0: none). A GET of a key whose
         * entry has not changed since reads that entry alone: one RDMA Read instead of two.
         */
        public Builder<K, V> locationHints(int keys) {
            if (keys < 0 || (keys != 0 && Integer.bitCount(keys) != 1) || keys > 1 << 24) {
                throw new IllegalArgumentException("location hints " + keys + " must be 0 or a power of two up to "
                        + (1 << 24));
            }
            this.hints = keys;
            return this;
        }

        public RdmaCache<K, V> build() {
            return new RdmaCache<>(this);
        }
    }
}
