package io.softrdma.memory;

import java.util.EnumSet;
import java.util.Objects;
import java.util.Set;

/**
 * Decides which rights a peer gets on a region, from the peer's identity (TLS principal or private-data credential)
 * and the region's name. The server asks when a client resolves a region; it lends the granted rights intersected
 * with the region's own {@link RegionSpec#access()}. The default of a {@link MemoryServer} is {@link #denyAll()}:
 * nothing is lent until the application grants it.
 *
 * <pre>{@code
 * AccessPolicy policy = AccessPolicy.grant("orders", "prices", RegionAccess.READ)
 *         .or(AccessPolicy.grant("CN=pricer", "prices", RegionAccess.READ, RegionAccess.WRITE));
 * }</pre>
 *
 * <p>Thread safety: implementations are called from event loops, concurrently; they must be thread-safe and must
 * not block.
 */
@FunctionalInterface
public interface AccessPolicy {
    /** Grants to everyone any region: {@code "*"} as the region name of {@link #grant}. */
    String ANY_REGION = "*";

    /**
     * What {@code peer} may do to {@code region}.
     *
     * @return never null
     */
    AccessDecision decide(PeerIdentity peer, String region);

    /** Grants nothing to anyone, saying so: the default. */
    static AccessPolicy denyAll() {
        return (peer, region) -> AccessDecision.refuse("no access is granted to " + peer.describe() + " on region '"
                + region + "' (the server's AccessPolicy grants nothing to it)");
    }

    /**
     * Grants {@code rights} on {@code region} ({@link #ANY_REGION} for all) to the peer {@code principalOrCredential}
     * names (see {@link PeerIdentity#isNamed}); refuses everyone else.
     */
    static AccessPolicy grant(String principalOrCredential, String region, RegionAccess first, RegionAccess... rest) {
        Objects.requireNonNull(principalOrCredential, "principalOrCredential");
        Objects.requireNonNull(region, "region");
        Set<RegionAccess> rights = java.util.Collections.unmodifiableSet(EnumSet.of(first, rest));
        return (peer, name) -> {
            if (!region.equals(ANY_REGION) && !region.equals(name)) {
                return AccessDecision.refuse("no access is granted on region '" + name + "' to " + peer.describe());
            }
            if (!peer.isNamed(principalOrCredential)) {
                return AccessDecision.refuse("region '" + name + "' is granted to other peers, not to "
                        + peer.describe());
            }
            return AccessDecision.grant(rights);
        };
    }

    /**
     * This policy or {@code other}: the rights either grants, united; refused only if both refuse (with this
     * policy's reason when both do, as the more specific one is usually listed first).
     */
    default AccessPolicy or(AccessPolicy other) {
        Objects.requireNonNull(other, "other");
        return (peer, region) -> {
            AccessDecision a = Objects.requireNonNull(decide(peer, region), "AccessPolicy.decide returned null");
            AccessDecision b = Objects.requireNonNull(other.decide(peer, region), "AccessPolicy.decide returned null");
            if (!a.granted()) {
                return b.granted() ? b : a;
            }
            if (!b.granted()) {
                return a;
            }
            EnumSet<RegionAccess> union = EnumSet.copyOf(a.rights());
            union.addAll(b.rights());
            return AccessDecision.grant(union);
        };
    }
}
