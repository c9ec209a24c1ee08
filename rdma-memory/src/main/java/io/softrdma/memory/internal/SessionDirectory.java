package io.softrdma.memory.internal;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.softrdma.memory.AccessDecision;
import io.softrdma.memory.MemoryService;
import io.softrdma.memory.PeerIdentity;
import io.softrdma.memory.RegionAccess;
import io.softrdma.reactive.RdmaSession;
import io.softrdma.verbs.RemoteMemory;
import java.time.Duration;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.ThreadLocalRandom;
import org.reactivestreams.Publisher;
import reactor.util.Logger;
import reactor.util.Loggers;
import reactor.core.publisher.Mono;

/**
 * The directory as one session sees it: answers that session's RESOLVE, RENEW, RELEASE and SERVICE requests
 * (docs/protocol.md, "Memory directory") and holds its leases, at most one per region.
 *
 * <p>Thread safety: requests arrive on the session's event loop; leases also end from the expiry timer and the
 * owner's threads. The lease maps are guarded by this object's lock, never held while a region's lock is taken
 * (the region calls {@link #forget} under its own).
 */
final class SessionDirectory {
    private static final Logger log = Loggers.getLogger(SessionDirectory.class);

    private final Directory directory;
    private final RdmaSession session;
    private final PeerIdentity peer;
    private final Map<String, ServerLease> byRegion = new HashMap<>();
    private final Map<Long, ServerLease> byId = new HashMap<>();
    private boolean closed;

    SessionDirectory(Directory directory, RdmaSession session, PeerIdentity peer) {
        this.directory = directory;
        this.session = session;
        this.peer = peer;
    }

    void disposeSession() {
        session.dispose();
    }

    Mono<Void> onDispose() {
        return session.onDispose();
    }

    PeerIdentity peer() {
        return peer;
    }

    /** Answers one request; the request buffer is the library's until the returned publisher terminates. */
    Publisher<ByteBuf> handle(ByteBuf request) {
        ByteBufAllocator alloc = ByteBufAllocator.DEFAULT;
        try {
            if (request.readableBytes() < 2 || request.readUnsignedByte() != Wire.VERSION) {
                return Mono.just(Wire.failure(alloc, Wire.BAD_REQUEST, "not a memory directory request of version "
                        + Wire.VERSION));
            }
            int op = request.readUnsignedByte();
            return switch (op) {
                case Wire.RESOLVE -> {
                    String name = Wire.readString(request);
                    Long previous = request.readableBytes() >= 8 ? request.readLong() : null;
                    yield Mono.just(resolve(name, previous, alloc));
                }
                case Wire.RENEW -> Mono.just(renew(readId(request), alloc));
                case Wire.RELEASE -> Mono.just(release(readId(request), alloc));
                case Wire.SERVICE -> service(Wire.readString(request), request, alloc);
                default -> Mono.just(Wire.failure(alloc, Wire.BAD_REQUEST, "unknown directory operation " + op));
            };
        } catch (IllegalArgumentException e) {
            return Mono.just(Wire.failure(alloc, Wire.BAD_REQUEST, e.getMessage()));
        }
    }

    private static long readId(ByteBuf request) {
        if (request.readableBytes() < 8) {
            throw new IllegalArgumentException("message ends before the lease id");
        }
        return request.readLong();
    }

    private ByteBuf resolve(String name, Long previous, ByteBufAllocator alloc) {
        RegionState region = directory.find(name);
        if (region == null || region.isDropped()) {
            return Wire.failure(alloc, Wire.NO_SUCH, "no region '" + name + "' on this memory server");
        }
        AccessDecision decision;
        try {
            decision = directory.policy().decide(peer, name);
        } catch (RuntimeException e) {
            log.warn("AccessPolicy failed for {} on region '{}'; refusing", peer, name, e);
            decision = AccessDecision.refuse("the server's access policy failed");
        }
        if (decision == null || !decision.granted()) {
            return Wire.failure(alloc, Wire.DENIED, decision == null ? "the server's access policy decided nothing"
                    : decision.reason());
        }
        EnumSet<RegionAccess> rights = EnumSet.copyOf(decision.rights());
        rights.retainAll(region.spec().access());
        if (rights.isEmpty()) {
            return Wire.failure(alloc, Wire.DENIED, "region '" + name + "' is lent with " + region.spec().access()
                    + " only, and " + peer.describe() + " is granted " + decision.rights());
        }
        ServerLease lease;
        synchronized (this) {
            if (closed) {
                return Wire.failure(alloc, Wire.LEASE_GONE, "the session is closing");
            }
            lease = byRegion.get(name);
        }
        if (lease != null && (lease.region() != region || !lease.rights().equals(rights))) {
            lease.end(LeaseEnd.REVOKED); // the region was replaced, or the policy changed its mind: lend afresh
            lease = null;
        }
        if (lease == null) {
            lease = region.lend(this, session, rights, ThreadLocalRandom.current().nextLong());
            if (lease == null) {
                return Wire.failure(alloc, Wire.NO_SUCH, "region '" + name + "' was dropped");
            }
            directory.lent();
            synchronized (this) {
                if (closed) {
                    lease.end(LeaseEnd.SESSION_ENDED);
                    return Wire.failure(alloc, Wire.LEASE_GONE, "the session is closing");
                }
                ServerLease raced = byRegion.put(name, lease);
                byId.put(lease.id(), lease);
                if (raced != null && raced != lease) {
                    byId.remove(raced.id());
                }
            }
        } else {
            directory.renewed();
        }
        Duration duration = directory.leaseDuration();
        if (!lease.extend(directory.expireLater(lease))) {
            return Wire.failure(alloc, Wire.LEASE_GONE, "the lease on region '" + name + "' ended while it was"
                    + " lent; resolve again");
        }
        RemoteMemory remote = lease.registration().remote();
        LeaseEnd previousEnd = previous == null ? LeaseEnd.UNKNOWN : directory.endOf(previous);
        ByteBuf ok = Wire.ok(alloc, Wire.LEASE_LENGTH);
        ok.writeLong(lease.id()).writeInt(remote.stag()).writeLong(remote.taggedOffset()).writeLong(remote.length())
                .writeByte(bits(rights)).writeLong(duration.toMillis()).writeByte(previousEnd.code());
        return ok;
    }

    private ByteBuf renew(long id, ByteBufAllocator alloc) {
        ServerLease lease;
        synchronized (this) {
            lease = byId.get(id);
        }
        if (lease == null || !lease.extend(directory.expireLater(lease))) {
            return Wire.failure(alloc, Wire.LEASE_GONE, "lease " + Long.toHexString(id) + " expired or was revoked;"
                    + " resolve the region again");
        }
        directory.renewed();
        return Wire.ok(alloc, 8).writeLong(directory.leaseDuration().toMillis());
    }

    private ByteBuf release(long id, ByteBufAllocator alloc) {
        ServerLease lease;
        synchronized (this) {
            lease = byId.get(id);
        }
        if (lease != null) {
            lease.end(LeaseEnd.RELEASED);
        }
        return Wire.ok(alloc, 0);
    }

    private Mono<ByteBuf> service(String name, ByteBuf request, ByteBufAllocator alloc) {
        MemoryService service = directory.service(name);
        if (service == null) {
            return Mono.just(Wire.failure(alloc, Wire.NO_SUCH, "no service '" + name + "' on this memory server"));
        }
        Mono<ByteBuf> answer;
        try {
            answer = service.handle(peer, request.slice());
        } catch (RuntimeException e) {
            answer = Mono.error(e);
        }
        if (answer == null) {
            answer = Mono.error(new NullPointerException("service '" + name + "' returned null"));
        }
        return answer
                .map(body -> Unpooled.wrappedBuffer(Wire.ok(alloc, 0), body))
                .switchIfEmpty(Mono.fromSupplier(() -> Wire.ok(alloc, 0)))
                .onErrorResume(e -> {
                    log.debug("service '{}' failed for {}", name, peer, e);
                    return Mono.just(Wire.failure(alloc, Wire.SERVICE_FAILED, "service '" + name + "' failed: "
                            + e));
                });
    }

    static int bits(java.util.Set<RegionAccess> rights) {
        return (rights.contains(RegionAccess.READ) ? Wire.READ_BIT : 0)
                | (rights.contains(RegionAccess.WRITE) ? Wire.WRITE_BIT : 0)
                | (rights.contains(RegionAccess.ATOMIC) ? Wire.ATOMIC_BIT : 0);
    }

    /** Tells the directory why lease {@code id} ended, for a client that asks after reconnecting. */
    void remember(long id, LeaseEnd why) {
        directory.remember(id, why);
    }

    /** Forgets a lease that ended (called by the lease, maybe under its region's lock). */
    synchronized void forget(ServerLease lease) {
        byRegion.remove(lease.region().name(), lease);
        byId.remove(lease.id(), lease);
    }

    synchronized int leaseCount() {
        return byId.size();
    }

    /** The session ended: every lease ends with it (its protection domain goes anyway; this frees the records). */
    void close() {
        List<ServerLease> open;
        synchronized (this) {
            closed = true;
            open = List.copyOf(byId.values());
        }
        open.forEach(l -> l.end(LeaseEnd.SESSION_ENDED));
    }

    long now() {
        return directory.timer().now(TimeUnit.MILLISECONDS);
    }
}
