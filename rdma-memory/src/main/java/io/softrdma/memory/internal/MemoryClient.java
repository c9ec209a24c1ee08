package io.softrdma.memory.internal;

import io.netty.buffer.ByteBuf;
import io.softrdma.memory.NoSuchRegionException;
import io.softrdma.memory.RegionAccessDeniedException;
import io.softrdma.memory.RemoteMemoryException;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;
import reactor.util.Logger;
import reactor.util.Loggers;

/**
 * What a {@link io.softrdma.memory.RemoteMemory} does: the servers and their hash ring, one {@link ServerLink} per
 * server, one {@link RegionClient} per region and server.
 *
 * <p>Thread safety: any thread; the ring is a volatile immutable value, links and regions concurrent maps.
 */
public final class MemoryClient implements Disposable {
    private static final Logger log = Loggers.getLogger(MemoryClient.class);

    private final ClientSettings settings;
    private final Map<String, ServerLink> links = new ConcurrentHashMap<>();
    private final Map<RegionKey, RegionClient> regions = new ConcurrentHashMap<>();
    private final Disposable refresher;
    private volatile HashRing ring;
    private volatile boolean disposed;

    public MemoryClient(ClientSettings settings) {
        this.settings = settings;
        if (settings.refresh().isZero()) {
            ring = new HashRing(settings.servers().get());
            refresher = reactor.core.Disposables.single();
        } else {
            // The source may block (DNS): asked on boundedElastic, now and every refresh.
            refresher = Flux.interval(java.time.Duration.ZERO, settings.refresh(), Schedulers.boundedElastic())
                    .subscribe(tick -> refresh());
        }
    }

    private void refresh() {
        try {
            List<InetSocketAddress> servers = settings.servers().get();
            if (servers == null || servers.isEmpty()) {
                log.warn("the memory servers' source gave no servers; keeping {}", ring == null ? "none"
                        : ring.servers());
                return;
            }
            HashRing current = ring;
            if (current != null && Set.copyOf(current.servers()).equals(Set.copyOf(servers))) {
                return;
            }
            ring = new HashRing(servers);
            Set<String> names = Set.copyOf(servers.stream().map(HashRing::name).toList());
            links.forEach((name, link) -> {
                if (!names.contains(name) && links.remove(name, link)) {
                    regions.keySet().removeIf(key -> key.server().equals(name));
                    link.dispose();
                }
            });
        } catch (RuntimeException e) {
            log.warn("cannot refresh the memory servers; keeping {}: {}", ring == null ? "none" : ring.servers(),
                    e.toString());
        }
    }

    private Mono<HashRing> ring() {
        HashRing r = ring;
        if (r != null) {
            return Mono.just(r);
        }
        return Mono.fromCallable(() -> {
            refresh();
            HashRing now = ring;
            if (now == null) {
                throw new RemoteMemoryException(null, "no memory servers are known yet: the servers' source gave"
                        + " none");
            }
            return now;
        }).subscribeOn(Schedulers.boundedElastic());
    }

    private ServerLink link(InetSocketAddress server) {
        return links.computeIfAbsent(HashRing.name(server), name -> new ServerLink(server, settings));
    }

    public Mono<RegionClient> region(String name, Object shardKey) {
        return Mono.defer(() -> {
            if (disposed) {
                return Mono.error(new IllegalStateException("the RemoteMemory was disposed"));
            }
            return ring().flatMap(r -> {
                InetSocketAddress server = r.pick(shardKey);
                RegionKey key = new RegionKey(server, name);
                RegionClient region = regions.computeIfAbsent(key, k -> new RegionClient(name, link(server),
                        settings));
                return region.ensure().thenReturn(region).doOnError(e -> {
                    if (e instanceof NoSuchRegionException || e instanceof RegionAccessDeniedException) {
                        regions.remove(key, region); // do not keep a handle per name that never resolves
                    }
                });
            });
        });
    }

    /**
     * The region {@code name} on the server {@code shardKey} hashes to, if this client holds a lease on it usable now;
     * null if it must be resolved first ({@link #region}). No I/O, never waits.
     */
    public RegionClient leasedRegion(String name, Object shardKey) {
        HashRing r = ring;
        if (r == null || disposed) {
            return null;
        }
        RegionClient region = regions.get(new RegionKey(r.pickName(shardKey), name));
        return region != null && region.leased() ? region : null;
    }

    /** A region's key among this client's: its server and its name. */
    private record RegionKey(String server, String name) {
        RegionKey(InetSocketAddress server, String name) {
            this(HashRing.name(server), name);
        }
    }

    public Mono<ByteBuf> request(String service, Object shardKey, ByteBuf payload) {
        AtomicBoolean handed = new AtomicBoolean();
        return Mono.defer(() -> disposed ? Mono.<io.softrdma.reactive.RdmaSession>error(new IllegalStateException(
                        "the RemoteMemory was disposed")) : ring().flatMap(r -> link(r.pick(shardKey)).session()))
                .flatMap(session -> {
                    handed.set(true);
                    return DirectoryClient.service(session, service, payload);
                })
                .doFinally(s -> {
                    if (handed.compareAndSet(false, true)) {
                        payload.release();
                    }
                });
    }

    public InetSocketAddress serverFor(Object shardKey) {
        HashRing r = ring;
        if (r == null) {
            r = ring().block();
        }
        return r.pick(shardKey);
    }

    public List<InetSocketAddress> servers() {
        HashRing r = ring;
        return r == null ? List.of() : r.servers();
    }

    @Override
    public void dispose() {
        disposed = true;
        refresher.dispose();
        links.values().forEach(ServerLink::dispose);
        links.clear();
        regions.clear();
    }

    @Override
    public boolean isDisposed() {
        return disposed;
    }
}
