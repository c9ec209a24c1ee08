package io.softrdma.memory.internal;

import io.softrdma.memory.RegionAccess;
import io.softrdma.reactive.LocalRegion;
import java.util.Set;
import reactor.core.Disposable;

/**
 * One lease: a region's memory registered in one session's protection domain, valid until it expires, is released
 * or revoked. Ending it invalidates the STag first (RFC 5040 §2.3: later access fails as "invalid STag", which
 * the responder answers with a Terminate, §7.2 / RFC 5041 §7.2) and only then deregisters it.
 *
 * <p>Thread safety: {@link #end} and {@link #extend} may race (the expiry timer, the owner's revoke, the session's
 * RENEW); this object's lock makes the first end win and every later one a no-op.
 */
final class ServerLease {
    private final long id;
    private final RegionState region;
    private final SessionDirectory owner;
    private final LocalRegion registration;
    private final Set<RegionAccess> rights;
    private Disposable expiry = () -> { };
    private boolean ended;

    ServerLease(long id, RegionState region, SessionDirectory owner, LocalRegion registration,
            Set<RegionAccess> rights) {
        this.id = id;
        this.region = region;
        this.owner = owner;
        this.registration = registration;
        this.rights = rights;
    }

    long id() {
        return id;
    }

    RegionState region() {
        return region;
    }

    LocalRegion registration() {
        return registration;
    }

    Set<RegionAccess> rights() {
        return rights;
    }

    /** Replaces the expiry timer; false if the lease already ended (the new timer is then cancelled). */
    synchronized boolean extend(Disposable timer) {
        if (ended) {
            timer.dispose();
            return false;
        }
        expiry.dispose();
        expiry = timer;
        return true;
    }

    synchronized boolean isEnded() {
        return ended;
    }

    /** Invalidates the STag, deregisters the memory, and forgets the lease in its region and session. Idempotent. */
    void end(LeaseEnd why) {
        synchronized (this) {
            if (ended) {
                return;
            }
            ended = true;
            expiry.dispose();
        }
        owner.remember(id, why);
        registration.dispose();
        region.forget(this);
        owner.forget(this);
    }

    @Override
    public String toString() {
        return "lease " + Long.toHexString(id) + " on " + region.name();
    }
}
