package io.softrdma.memory;

import java.util.EnumSet;
import java.util.Objects;
import java.util.Set;

/**
 * What an {@link AccessPolicy} decided for one peer and one region: rights granted, or a refusal with a reason the
 * client receives (in its {@link RegionAccessDeniedException}).
 *
 * <p>Thread safety: immutable.
 */
public final class AccessDecision {
    private final Set<RegionAccess> rights;
    private final String reason;

    private AccessDecision(Set<RegionAccess> rights, String reason) {
        this.rights = rights;
        this.reason = reason;
    }

    /** Grants these rights (the server lends at most those the region itself allows). */
    public static AccessDecision grant(Set<RegionAccess> rights) {
        Objects.requireNonNull(rights, "rights");
        if (rights.isEmpty()) {
            throw new IllegalArgumentException("a grant needs at least one right; refuse(reason) grants none");
        }
        return new AccessDecision(java.util.Collections.unmodifiableSet(EnumSet.copyOf(rights)), null);
    }

    /** Grants these rights. */
    public static AccessDecision grant(RegionAccess first, RegionAccess... rest) {
        return grant(EnumSet.of(first, rest));
    }

    /** Refuses, saying why (sent to the client: say what to change, never a secret). */
    public static AccessDecision refuse(String reason) {
        Objects.requireNonNull(reason, "reason");
        return new AccessDecision(Set.of(), reason);
    }

    public boolean granted() {
        return reason == null;
    }

    /** The rights granted; empty if refused. */
    public Set<RegionAccess> rights() {
        return rights;
    }

    /** Why access was refused; null if granted. */
    public String reason() {
        return reason;
    }

    @Override
    public String toString() {
        return granted() ? "granted " + rights : "refused: " + reason;
    }
}
