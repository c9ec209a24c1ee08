package io.softrdma.memory;

import io.softrdma.memory.internal.Directory;
import io.softrdma.reactive.RdmaServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.UnaryOperator;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

/**
 * A memory server: named regions that clients resolve through its directory and then reach with one-sided RDMA
 * Reads, Writes and atomics, under an {@link AccessPolicy}; and named {@link MemoryService}s for what must run at the
 * owner. Immutable builder: each method returns a new server description; {@link #bind()} starts it.
 *
 * <pre>{@code
 * DisposableMemoryServer server = MemoryServer.create()
 *         .host(host).port(port)
 *         .region("prices", 1 << 20, RegionAccess.READ, RegionAccess.WRITE, RegionAccess.ATOMIC)
 *         .policy(policy)
 *         .service("reprice", (peer, request) ->                      // two-sided, runs at the owner
 *                 Mono.just(Unpooled.copyLong(request.readLong() * 2)))
 *         .bindNow();
 * ServerRegion prices = server.region("prices");
 * prices.putLong(64, 4200);                                         // the owner's own memory
 * }</pre>
 *
 * <p>How it works (docs/remote-memory.md): each region has one backing buffer of direct memory. When a client
 * resolves a region, the server asks the policy, registers the backing memory in that session's protection
 * domain with the rights granted and the region allows, and answers with a lease: STag, base tagged offset, length,
 * rights, duration. The lease expires unless renewed; expiry, {@link ServerRegion#revoke()}, {@link
 * ServerRegion#resize(long)} and {@link ServerRegion#drop()} invalidate the STag, so that the peer's next use of it
 * gets a Terminate (RFC 5040 §7.2, invalid STag) and its client resolves again.
 *
 * <p>Thread safety: immutable; any thread.
 */
public final class MemoryServer {
    /** The port a memory server listens on unless told otherwise. */
    public static final int DEFAULT_PORT = 7473;
    /** How long a lease lasts unless renewed. */
    public static final Duration DEFAULT_LEASE = Duration.ofSeconds(30);

    private final RdmaServer rdma;
    private final AccessPolicy policy;
    private final List<RegionSpec> regions;
    private final Map<String, MemoryService> services;
    private final Duration lease;
    private final Scheduler timer;

    private MemoryServer(RdmaServer rdma, AccessPolicy policy, List<RegionSpec> regions,
            Map<String, MemoryService> services, Duration lease, Scheduler timer) {
        this.rdma = rdma;
        this.policy = policy;
        this.regions = regions;
        this.services = services;
        this.lease = lease;
        this.timer = timer;
    }

    /** A server on port {@value #DEFAULT_PORT} of every interface, no regions, {@link AccessPolicy#denyAll()}. */
    public static MemoryServer create() {
        return new MemoryServer(RdmaServer.create().port(DEFAULT_PORT), AccessPolicy.denyAll(), List.of(), Map.of(),
                DEFAULT_LEASE, Schedulers.parallel());
    }

    public MemoryServer host(String host) {
        return rdma(rdma.host(Objects.requireNonNull(host, "host")));
    }

    /** The port to listen on; 0 for any free one ({@link DisposableMemoryServer#port()} tells which). */
    public MemoryServer port(int port) {
        return rdma(rdma.port(port));
    }

    /**
     * Changes the RDMA server underneath: TLS ({@code s -> s.tcpConfiguration(t -> t.secure(spec))}; the peers'
     * certificate principals then reach the {@link AccessPolicy}), MPA settings, queue pair, metrics, limits. Its
     * session handler is the memory server's own: do not set one.
     */
    public MemoryServer rdmaServer(UnaryOperator<RdmaServer> configure) {
        return rdma(Objects.requireNonNull(configure.apply(rdma), "configure returned null"));
    }

    /** Who may get which rights on which region; {@link AccessPolicy#denyAll()} unless set. */
    public MemoryServer policy(AccessPolicy policy) {
        return new MemoryServer(rdma, Objects.requireNonNull(policy, "policy"), regions, services, lease, timer);
    }

    /**
     * Adds a region, zero-filled at bind.
     *
     * @throws IllegalArgumentException if a region of that name was added already
     */
    public MemoryServer region(RegionSpec spec) {
        Objects.requireNonNull(spec, "spec");
        if (regions.stream().anyMatch(r -> r.name().equals(spec.name()))) {
            throw new IllegalArgumentException("region '" + spec.name() + "' is declared twice");
        }
        List<RegionSpec> more = new ArrayList<>(regions);
        more.add(spec);
        return new MemoryServer(rdma, policy, List.copyOf(more), services, lease, timer);
    }

    /** Adds a region of {@code size} octets lent with at most these rights. */
    public MemoryServer region(String name, long size, RegionAccess first, RegionAccess... rest) {
        return region(RegionSpec.of(name, size, first, rest));
    }

    /**
     * Adds a named request handler, reached with {@link RemoteMemory#request(String, Object,
     * io.netty.buffer.ByteBuf)}. It is open to every connected peer: check {@link PeerIdentity} in the handler.
     *
     * @throws IllegalArgumentException if the name is taken or not 1 to 128 letters, digits, '.', '_', '-'
     */
    public MemoryServer service(String name, MemoryService handler) {
        Objects.requireNonNull(handler, "handler");
        RegionSpec.checkName("service", name);
        if (services.containsKey(name)) {
            throw new IllegalArgumentException("service '" + name + "' is declared twice");
        }
        Map<String, MemoryService> more = new LinkedHashMap<>(services);
        more.put(name, handler);
        return new MemoryServer(rdma, policy, regions, java.util.Collections.unmodifiableMap(more), lease, timer);
    }

    /**
     * How long a lease lasts unless the client renews it ({@link #DEFAULT_LEASE}); clients renew leases in use
     * once half of it has passed.
     */
    public MemoryServer leaseDuration(Duration duration) {
        Objects.requireNonNull(duration, "duration");
        if (duration.compareTo(Duration.ofMillis(10)) < 0 || duration.compareTo(Duration.ofDays(1)) > 0) {
            throw new IllegalArgumentException("lease duration " + duration + " must be from 10 ms to 1 day");
        }
        return new MemoryServer(rdma, policy, regions, services, duration, timer);
    }

    /** Where lease expiries are timed ({@link Schedulers#parallel()}); a virtual-time scheduler in tests. */
    public MemoryServer timer(Scheduler scheduler) {
        return new MemoryServer(rdma, policy, regions, services, lease, Objects.requireNonNull(scheduler, "scheduler"));
    }

    private MemoryServer rdma(RdmaServer server) {
        return new MemoryServer(server, policy, regions, services, lease, timer);
    }

    /** The regions declared so far. */
    public List<RegionSpec> regions() {
        return regions;
    }

    /** Allocates the regions and binds; the Mono emits the running server. */
    public Mono<DisposableMemoryServer> bind() {
        return Mono.defer(() -> {
            Directory directory = new Directory(policy, services, lease, timer);
            for (RegionSpec spec : regions) {
                directory.add(spec);
            }
            return rdma.handle(directory::serve).bind()
                    .map(bound -> new DisposableMemoryServer(bound, directory))
                    .doOnError(e -> directory.close());
        });
    }

    /** {@link #bind()}, waiting at most 45 s. */
    public DisposableMemoryServer bindNow() {
        return bindNow(Duration.ofSeconds(45));
    }

    /** {@link #bind()}, waiting at most {@code timeout}; never on an event loop. */
    public DisposableMemoryServer bindNow(Duration timeout) {
        return Objects.requireNonNull(bind().block(timeout), "bind completed empty");
    }

    @Override
    public String toString() {
        return "MemoryServer{regions=" + regions.stream().map(RegionSpec::name).toList() + ", services="
                + services.keySet() + ", lease=" + lease + "}";
    }
}
