package io.softrdma.memory.internal;

import io.softrdma.memory.RegionAccess;
import io.softrdma.reactive.RdmaSession;
import io.softrdma.verbs.RemoteMemory;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A lease as the client holds it: the session it is valid on (STags belong to that session's protection domain on
 * the server), the advertisement, the rights, and when it expires and should be renewed by this client's clock.
 *
 * <p>Thread safety: immutable but for the renewal flag, which makes one renewal at a time.
 *
 * @param expiresAt client clock millis when the server ends it unless renewed (measured from when the request was
 *     sent, so the client errs early)
 * @param renewAt client clock millis from which an operation renews it
 */
record ClientLease(RdmaSession session, long id, RemoteMemory remote, Set<RegionAccess> rights, long duration,
        long expiresAt, long renewAt, AtomicBoolean renewing) {

    static ClientLease of(RdmaSession session, long id, RemoteMemory remote, Set<RegionAccess> rights,
            long duration, long sentAt) {
        return new ClientLease(session, id, remote, rights, duration, sentAt + duration, sentAt + duration / 2,
                new AtomicBoolean());
    }

    /** This lease, renewed by a RENEW sent at {@code sentAt}. */
    ClientLease renewed(long newDuration, long sentAt) {
        return of(session, id, remote, rights, newDuration, sentAt);
    }

    /** How long before expiry the client stops using a lease and resolves instead: a tenth, at most a second. */
    long margin() {
        return Math.min(duration / 10, 1000);
    }
}
