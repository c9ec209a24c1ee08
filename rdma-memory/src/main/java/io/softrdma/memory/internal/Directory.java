package io.softrdma.memory.internal;

import io.softrdma.memory.AccessPolicy;
import io.softrdma.memory.MemoryService;
import io.softrdma.memory.NoSuchRegionException;
import io.softrdma.memory.PeerIdentity;
import io.softrdma.memory.RegionSpec;
import io.softrdma.reactive.RdmaSession;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.reactivestreams.Publisher;
import reactor.core.Disposable;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;

/**
 * A memory server's state: its regions, services and policy, and the directory of every session.
 *
 * <p>Thread safety: any thread; regions and sessions are concurrent maps.
 */
public final class Directory {
    /** Requests one session may have in progress at once (receive buffers posted for them). */
    private static final int CONCURRENCY = 32;

    private final AccessPolicy policy;
    private final Map<String, MemoryService> services;
    private final Duration lease;
    private final Scheduler timer;
    private final Map<String, RegionState> regions = new ConcurrentHashMap<>();
    private final Set<SessionDirectory> sessions = ConcurrentHashMap.newKeySet();
    private volatile boolean closed;
    private final java.util.concurrent.atomic.LongAdder lent = new java.util.concurrent.atomic.LongAdder();
    private final java.util.concurrent.atomic.LongAdder renewed = new java.util.concurrent.atomic.LongAdder();
    private final java.util.concurrent.atomic.LongAdder expired = new java.util.concurrent.atomic.LongAdder();
    private final java.util.concurrent.atomic.LongAdder revoked = new java.util.concurrent.atomic.LongAdder();
    private final java.util.concurrent.atomic.LongAdder released = new java.util.concurrent.atomic.LongAdder();
    /**
     * Why recent leases ended, by id, for clients that resolve again after losing their connection: the most
     * recent {@link #REMEMBERED}, oldest forgotten first (a session ending remembers nothing: its client cannot ask).
     */
    private final Map<Long, LeaseEnd> ended = new java.util.LinkedHashMap<>(64, 0.75f, false) {
        private static final long serialVersionUID = 1L;

        @Override
        protected boolean removeEldestEntry(Map.Entry<Long, LeaseEnd> eldest) {
            return size() > REMEMBERED;
        }
    };
    private static final int REMEMBERED = 16_384;

    public Directory(AccessPolicy policy, Map<String, MemoryService> services, Duration lease, Scheduler timer) {
        this.policy = policy;
        this.services = services;
        this.lease = lease;
        this.timer = timer;
    }

    /** Allocates a region. */
    public RegionState add(RegionSpec spec) {
        if (closed) {
            throw new IllegalStateException("the memory server was disposed");
        }
        RegionState[] created = new RegionState[1];
        regions.compute(spec.name(), (name, existing) -> {
            if (existing != null && !existing.isDropped()) {
                throw new IllegalArgumentException("region '" + name + "' exists; drop it first or resize it");
            }
            created[0] = new RegionState(spec);
            return created[0];
        });
        return created[0];
    }

    /** The region of that name, dropped or not; null if never added. */
    RegionState find(String name) {
        return regions.get(name);
    }

    /** The live region of that name. */
    public RegionState region(String name) {
        RegionState region = regions.get(name);
        if (region == null || region.isDropped()) {
            throw new NoSuchRegionException(name, "no region '" + name + "' on this memory server; there are "
                    + regionNames());
        }
        return region;
    }

    public Set<String> regionNames() {
        Set<String> names = new TreeSet<>();
        regions.forEach((name, region) -> {
            if (!region.isDropped()) {
                names.add(name);
            }
        });
        return names;
    }

    public int leaseCount() {
        return sessions.stream().mapToInt(SessionDirectory::leaseCount).sum();
    }

    AccessPolicy policy() {
        return policy;
    }

    MemoryService service(String name) {
        return services.get(name);
    }

    Duration leaseDuration() {
        return lease;
    }

    Scheduler timer() {
        return timer;
    }

    /** The timer that ends {@code l} one lease duration from now, unless replaced by a renewal. */
    Disposable expireLater(ServerLease l) {
        return timer.schedule(() -> l.end(LeaseEnd.EXPIRED), lease.toMillis(), TimeUnit.MILLISECONDS);
    }

    void lent() {
        lent.increment();
    }

    void renewed() {
        renewed.increment();
    }

    /** The directory's counters now. */
    public io.softrdma.memory.LeaseStatistics statistics() {
        return new io.softrdma.memory.LeaseStatistics(lent.sum(), renewed.sum(), expired.sum(), revoked.sum(),
                released.sum(), leaseCount());
    }

    void remember(long id, LeaseEnd why) {
        switch (why) {
            case EXPIRED -> expired.increment();
            case REVOKED, RESIZED, DROPPED -> revoked.increment();
            default -> released.increment();
        }
        if (why != LeaseEnd.SESSION_ENDED) {
            synchronized (ended) {
                ended.put(id, why);
            }
        }
    }

    /** Why lease {@code id} ended, {@link LeaseEnd#VALID} if {@code live}, or UNKNOWN. */
    LeaseEnd endOf(long id) {
        synchronized (ended) {
            return ended.getOrDefault(id, LeaseEnd.UNKNOWN);
        }
    }

    /** The session handler of the RDMA server: this session's directory, until the session ends. */
    public Publisher<Void> serve(RdmaSession session) {
        PeerIdentity peer = PeerIdentity.of(session.peerPrincipal().orElse(null),
                Credentials.find(session.connection().peerPrivateData()), session.connection().remoteAddress());
        SessionDirectory directory = new SessionDirectory(this, session, peer);
        sessions.add(directory);
        session.respond(directory::handle, CONCURRENCY);
        return session.onDispose().doFinally(s -> {
            sessions.remove(directory);
            directory.close();
        }).then(Mono.empty());
    }

    /**
     * Closes every session gracefully (RdmaServer leaves established sessions open when it stops listening) and
     * completes when all have ended.
     */
    public Mono<Void> endSessions() {
        List<SessionDirectory> open = List.copyOf(sessions);
        open.forEach(SessionDirectory::disposeSession);
        return reactor.core.publisher.Flux.fromIterable(open).flatMap(SessionDirectory::onDispose).then();
    }

    /** Ends every lease and frees every region's memory. Idempotent. */
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        sessions.forEach(SessionDirectory::close);
        regions.values().forEach(RegionState::drop);
    }
}
