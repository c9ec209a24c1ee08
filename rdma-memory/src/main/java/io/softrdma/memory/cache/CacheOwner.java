package io.softrdma.memory.cache;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.util.IllegalReferenceCountException;
import io.softrdma.memory.AccessDecision;
import io.softrdma.memory.AccessPolicy;
import io.softrdma.memory.DisposableMemoryServer;
import io.softrdma.memory.MemoryServer;
import io.softrdma.memory.MemoryService;
import io.softrdma.memory.PeerIdentity;
import io.softrdma.memory.RegionAccess;
import io.softrdma.memory.RegionSpec;
import io.softrdma.memory.cache.internal.CacheProtocol;
import io.softrdma.memory.cache.internal.CacheTable;
import io.softrdma.memory.cache.internal.TableLayout;
import java.time.Clock;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.ThreadLocalRandom;
import reactor.core.Disposable;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

/**
 * The owner of an RDMA cache: keeps its hash table in a region of a memory server (named {@code cache.<name>}) and
 * serves the requests clients cannot do one-sided — PUT, DELETE, clear, and GET for a client whose Reads kept racing
 * writers — through the server's service of the same name.
 *
 * <pre>{@code
 * CacheOwner books = CacheOwner.builder("books")
 *         .size(16 << 20)
 *         .defaultTtl(Duration.ofMinutes(10))
 *         .policy(policy)
 *         .build();
 * DisposableMemoryServer server = books.declareOn(MemoryServer.create().host(host).port(port).policy(policy))
 *         .bindNow();
 * books.start(server);
 * }</pre>
 *
 * <p>Access: clients read the table one-sided with the READ right the server's {@link AccessPolicy} grants on region
 * {@code cache.<name>} (the region is lent read-only: only the owner writes it). The same policy, given to
 * {@link Builder#policy}, decides requests: changes need WRITE on that region, an owner GET needs READ. The default
 * grants nothing, like the server's.
 *
 * <p>Eviction: the owner never sees one-sided GETs, so it cannot evict the least recently used; entries live in a
 * log that the next writes overwrite oldest first, and a full bucket gives up its oldest entry. TTLs are on this
 * owner's clock: clients treat an entry whose time has passed as absent, and a sweep removes it.
 *
 * <p>The region is the table's for the server's life: do not {@code resize} or {@code drop} it (the owner keeps
 * writing the memory it formatted); to stop the cache, dispose the owner and the server.
 *
 * <p>Thread safety: all methods may be called from any thread; requests take turns on the table (a lock held for one
 * table operation: an entry copied and two checksums, never I/O), so the event loops that call {@link #handle} never
 * wait long. Buffer ownership as {@link MemoryService} says.
 */
public final class CacheOwner implements MemoryService, Disposable {
    /** The prefix of the region and the service of a cache: {@code cache.books} for the cache {@code books}. */
    public static final String PREFIX = "cache.";

    private final String name;
    private final long size;
    private final int buckets;
    private final int maxEntry;
    private final Duration defaultTtl;
    private final Duration sweepInterval;
    private final Clock clock;
    private final Scheduler scheduler;
    private final AccessPolicy policy;
    private volatile CacheTable table;
    private volatile Disposable sweeper;

    private CacheOwner(Builder b) {
        this.name = b.name;
        this.size = b.size;
        this.buckets = b.buckets;
        this.maxEntry = b.maxEntry;
        this.defaultTtl = b.defaultTtl;
        this.sweepInterval = b.sweepInterval;
        this.clock = b.clock;
        this.scheduler = b.scheduler;
        this.policy = b.policy;
        // Fail fast, at build, on what cannot make a table.
        TableLayout planned = TableLayout.plan(size, buckets, 0);
        if (maxEntry != 0 && maxEntry + TableLayout.ENTRY_HEADER > planned.logLength() / 4) {
            throw new IllegalArgumentException("cache '" + name + "': a key and value of up to " + maxEntry
                    + " octets do not fit a quarter of its entry log (" + planned.logLength() / 4 + " octets with"
                    + " the " + TableLayout.ENTRY_HEADER + "-octet header): give a larger size or a smaller"
                    + " maxEntry");
        }
    }

    /** A cache of that name (1 to 122 letters, digits, '.', '_', '-'). */
    public static Builder builder(String name) {
        return new Builder(name);
    }

    /** The name of the region and of the service of the cache {@code name}. */
    public static String regionName(String name) {
        return PREFIX + name;
    }

    public String name() {
        return name;
    }

    /** The region the table lives in: {@code cache.<name>}, lent read-only. */
    public RegionSpec regionSpec() {
        return RegionSpec.of(regionName(name), size, RegionAccess.READ);
    }

    /** {@code server} with this cache's region and service declared. */
    public MemoryServer declareOn(MemoryServer server) {
        Objects.requireNonNull(server, "server");
        return server.region(regionSpec()).service(regionName(name), this);
    }

    /**
     * Formats the table in the bound server's region (which {@link #declareOn} declared) and starts sweeping
     * expired entries. Clients that read the region before this see a region with no table and fail saying so.
     *
     * @throws IllegalStateException if started already
     */
    public synchronized CacheOwner start(DisposableMemoryServer server) {
        Objects.requireNonNull(server, "server");
        if (table != null) {
            throw new IllegalStateException("cache '" + name + "' is started already");
        }
        ByteBuf region = server.region(regionName(name)).buffer();
        TableLayout layout = TableLayout.plan(region.capacity(), buckets, ThreadLocalRandom.current().nextLong());
        // The table counts whole entries; the builder counts what the application controls, key and value.
        int largest = maxEntry == 0 ? Math.min(layout.logLength() / 4, (1 << 20) + TableLayout.ENTRY_HEADER)
                : maxEntry + TableLayout.ENTRY_HEADER;
        CacheTable made = new CacheTable(region, layout, clock::millis, largest);
        table = made;
        sweeper = scheduler.schedulePeriodically(this::sweep, sweepInterval.toMillis(), sweepInterval.toMillis(),
                java.util.concurrent.TimeUnit.MILLISECONDS);
        return this;
    }

    /** Removes the entries whose TTL has passed now (the periodic sweep does this too); how many. */
    public int sweep() {
        CacheTable t = table;
        if (t == null) {
            return 0;
        }
        synchronized (t) {
            try {
                return t.expire();
            } catch (IllegalReferenceCountException e) {
                // The server was disposed first and freed the region: nothing left to sweep.
                dispose();
                return 0;
            }
        }
    }

    @Override
    public Mono<ByteBuf> handle(PeerIdentity peer, ByteBuf request) {
        CacheTable t = table;
        if (t == null) {
            return Mono.error(new IllegalStateException("cache '" + name + "' is not started (CacheOwner.start)"));
        }
        if (request.readableBytes() < 1) {
            return Mono.error(new IllegalArgumentException("empty cache request"));
        }
        byte op = request.getByte(request.readerIndex());
        RegionAccess needed = op == CacheProtocol.GET ? RegionAccess.READ : RegionAccess.WRITE;
        AccessDecision decision = policy.decide(peer, regionName(name));
        if (!decision.granted() || !decision.rights().contains(needed)) {
            return Mono.error(new SecurityException("cache '" + name + "' refuses " + peer.describe() + ": "
                    + (decision.granted() ? "it needs " + needed + " on region '" + regionName(name) + "', granted "
                    + decision.rights() : decision.reason())));
        }
        ByteBuf response;
        synchronized (t) {
            response = CacheProtocol.handle(t, request, ByteBufAllocator.DEFAULT, clock.millis(),
                    defaultTtl.toMillis());
        }
        return Mono.just(response);
    }

    /** Entries in the table now (some may have expired and wait for the sweep); 0 before start. */
    public int size() {
        return (int) read(CacheTable::size);
    }

    /** Entries evicted to make room since start. */
    public long evictions() {
        return read(CacheTable::evictions);
    }

    /** Entries removed by the sweep since start. */
    public long expirations() {
        return read(CacheTable::expirations);
    }

    /** Entries an owner GET found damaged (checksum mismatch) and dropped since start: should stay 0. */
    public long damaged() {
        return read(CacheTable::damaged);
    }

    private long read(java.util.function.ToLongFunction<CacheTable> what) {
        CacheTable t = table;
        if (t == null) {
            return 0;
        }
        synchronized (t) {
            return what.applyAsLong(t);
        }
    }

    /** Stops the sweep. The table stays in the region until the server frees it. */
    @Override
    public void dispose() {
        Disposable s = sweeper;
        if (s != null) {
            s.dispose();
        }
    }

    @Override
    public boolean isDisposed() {
        Disposable s = sweeper;
        return s != null && s.isDisposed();
    }

    @Override
    public String toString() {
        CacheTable t = table;
        return "CacheOwner{" + name + ", " + size + " octets" + (t == null ? ", not started" : ", " + t.layout()) + "}";
    }

    /**
     * How the cache's table is made.
     *
     * <p>Thread safety: not thread-safe; build once.
     */
    public static final class Builder {
        private final String name;
        private long size = 16 << 20;
        private int buckets;
        private int maxEntry;
        private Duration defaultTtl = Duration.ZERO;
        private Duration sweepInterval = Duration.ofSeconds(1);
        private Clock clock = Clock.systemUTC();
        private Scheduler scheduler = Schedulers.parallel();
        private AccessPolicy policy = AccessPolicy.denyAll();

        private Builder(String name) {
            Objects.requireNonNull(name, "name");
            new RegionSpec(regionName(name), 8, java.util.Set.of(RegionAccess.READ)); // the name rules, said once
            this.name = name;
        }

        /** Octets of the region: header, buckets and entries (16 MiB unless set). */
        public Builder size(long octets) {
            this.size = octets;
            return this;
        }

        /** Buckets, a power of two, of 7 entries each (0, the default: one per KiB of region). */
        public Builder buckets(int buckets) {
            this.buckets = buckets;
            return this;
        }

        /**
         * The largest encoded key and value together, in octets (0, the default: 1 MiB, or what a quarter of the
         * entry log holds if less; the table adds a 40-octet header to each). A larger PUT fails saying so.
         */
        public Builder maxEntry(int octets) {
            if (octets < 0 || octets > Integer.MAX_VALUE - TableLayout.ENTRY_HEADER) {
                throw new IllegalArgumentException("largest key and value " + octets + " must not be negative");
            }
            this.maxEntry = octets;
            return this;
        }

        /** The TTL of a PUT that gives none (zero, the default: entries do not expire). */
        public Builder defaultTtl(Duration ttl) {
            Objects.requireNonNull(ttl, "ttl");
            if (ttl.isNegative()) {
                throw new IllegalArgumentException("default TTL " + ttl + " must not be negative");
            }
            this.defaultTtl = ttl;
            return this;
        }

        /** How often expired entries are removed (every second unless set). */
        public Builder sweepInterval(Duration interval) {
            Objects.requireNonNull(interval, "interval");
            if (interval.toMillis() < 1) {
                throw new IllegalArgumentException("sweep interval " + interval + " must be at least 1 ms");
            }
            this.sweepInterval = interval;
            return this;
        }

        /** The clock TTLs are measured by (the system's UTC clock); clients must agree with it (NTP). */
        public Builder clock(Clock clock) {
            this.clock = Objects.requireNonNull(clock, "clock");
            return this;
        }

        /** Where the sweep runs ({@link Schedulers#parallel()}). */
        public Builder scheduler(Scheduler scheduler) {
            this.scheduler = Objects.requireNonNull(scheduler, "scheduler");
            return this;
        }

        /** Who may change the cache (WRITE on its region) and ask the owner for values (READ); the server's. */
        public Builder policy(AccessPolicy policy) {
            this.policy = Objects.requireNonNull(policy, "policy");
            return this;
        }

        /**
         * The owner, not yet started.
         *
         * @throws IllegalArgumentException if the size and bucket count cannot make a table
         */
        public CacheOwner build() {
            if (size % 8 != 0) {
                throw new IllegalArgumentException("cache size " + size + " must be a multiple of 8");
            }
            return new CacheOwner(this);
        }
    }
}
