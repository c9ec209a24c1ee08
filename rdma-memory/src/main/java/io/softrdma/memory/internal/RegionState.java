package io.softrdma.memory.internal;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.softrdma.memory.RegionAccess;
import io.softrdma.memory.RegionSpec;
import io.softrdma.reactive.LocalRegion;
import io.softrdma.reactive.RdmaSession;
import io.softrdma.verbs.Access;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.function.Supplier;

/**
 * One named region on the server: its spec, its one backing memory, and the leases lent on it (one per session
 * that resolved it, each its own registration of the backing memory in that session's protection domain).
 *
 * <p>Thread safety: lending, revoking, resizing and dropping hold this object's lock. They are called from many
 * event loops (every session's RESOLVE) and from the owner's threads, and each is a handful of registrations and
 * invalidations — never I/O — so one short lock per region keeps "no lease outlives a resize" simple to see.
 */
public final class RegionState {
    /** The memory and its word view, replaced together by a resize. */
    private record Memory(ByteBuf buffer, Words words) {
    }

    private volatile RegionSpec spec;
    private volatile Memory memory;
    private volatile boolean dropped;
    private final List<ServerLease> leases = new ArrayList<>();
    private final Records records;

    RegionState(RegionSpec spec) {
        this.spec = spec;
        this.memory = allocate(spec.size());
        this.records = new Records(spec.name(), this::buffer, this::words, 1000);
    }

    private static Memory allocate(long size) {
        // Unpooled: a region's memory lives as long as the region, and its capacity must be exactly its size
        // (a registration covers a buffer's whole capacity).
        ByteBuf buffer = Unpooled.directBuffer((int) size, (int) size);
        buffer.setZero(0, (int) size);
        return new Memory(buffer, new Words(buffer.nioBuffer(0, (int) size)));
    }

    public String name() {
        return spec.name();
    }

    public RegionSpec spec() {
        return spec;
    }

    public ByteBuf buffer() {
        Memory m = memory;
        if (dropped || m == null) {
            throw new IllegalStateException("region '" + spec.name() + "' was dropped");
        }
        return m.buffer();
    }

    public Words words() {
        Memory m = memory;
        if (dropped || m == null) {
            throw new IllegalStateException("region '" + spec.name() + "' was dropped");
        }
        return m.words();
    }

    public Records records() {
        return records;
    }

    public boolean isDropped() {
        return dropped;
    }

    public synchronized int leaseCount() {
        return leases.size();
    }

    /**
     * Registers the backing memory in {@code session}'s protection domain with {@code rights} and returns the lease,
     * or null if the region was dropped meanwhile.
     */
    synchronized ServerLease lend(SessionDirectory owner, RdmaSession session, Set<RegionAccess> rights, long id) {
        if (dropped) {
            return null;
        }
        Set<Access> access = verbs(rights);
        Access first = access.iterator().next();
        Access[] rest = access.stream().skip(1).toArray(Access[]::new);
        LocalRegion registration = session.register(memory.buffer(), first, rest);
        ServerLease lease = new ServerLease(id, this, owner, registration, rights);
        leases.add(lease);
        return lease;
    }

    /** Forgets a lease that ended on its own (expiry, release, session end). */
    synchronized void forget(ServerLease lease) {
        leases.remove(lease);
    }

    public int revoke() {
        List<ServerLease> revoked;
        synchronized (this) {
            revoked = new ArrayList<>(leases);
        }
        for (ServerLease lease : revoked) {
            lease.end(LeaseEnd.REVOKED); // invalidates the STag, then forgets itself here and in its session
        }
        return revoked.size();
    }

    public synchronized void resize(long newSize) {
        RegionSpec resized = spec.withSize(newSize);
        if (dropped) {
            throw new IllegalStateException("region '" + spec.name() + "' was dropped");
        }
        Memory old = memory;
        Memory grown = allocate(newSize);
        grown.buffer().setBytes(0, old.buffer(), 0, (int) Math.min(old.buffer().capacity(), newSize));
        for (ServerLease lease : new ArrayList<>(leases)) {
            lease.end(LeaseEnd.RESIZED);
        }
        memory = grown;
        spec = resized;
        old.buffer().release();
    }

    /** Drops the region: revokes every lease and frees the memory (each registration kept its own reference). */
    public void drop() {
        Memory old;
        synchronized (this) {
            if (dropped) {
                return;
            }
            dropped = true;
            for (ServerLease lease : new ArrayList<>(leases)) {
                lease.end(LeaseEnd.DROPPED);
            }
            old = memory;
        }
        old.buffer().release();
    }

    static Set<Access> verbs(Set<RegionAccess> rights) {
        EnumSet<Access> access = EnumSet.noneOf(Access.class);
        if (rights.contains(RegionAccess.READ)) {
            access.add(Access.REMOTE_READ);
        }
        if (rights.contains(RegionAccess.WRITE)) {
            access.add(Access.LOCAL_WRITE);
            access.add(Access.REMOTE_WRITE);
        }
        if (rights.contains(RegionAccess.ATOMIC)) {
            access.add(Access.LOCAL_WRITE);
            access.add(Access.REMOTE_ATOMIC);
        }
        return access;
    }

    Supplier<ByteBuf> memorySupplier() {
        return this::buffer;
    }

    @Override
    public String toString() {
        return spec.name() + " (" + spec.size() + " octets, " + spec.access() + (dropped ? ", dropped" : "") + ")";
    }
}
