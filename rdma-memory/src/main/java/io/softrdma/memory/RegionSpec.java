package io.softrdma.memory;

import java.util.EnumSet;
import java.util.Objects;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * A named region a {@link MemoryServer} offers: its name (what clients resolve), its size in octets and the most
 * any peer may do to it. What one peer may do is this {@code access} intersected with what the server's
 * {@link AccessPolicy} grants that peer.
 *
 * <p>Thread safety: immutable.
 *
 * @param name 1 to 128 characters of letters, digits, '.', '_', '-' (it travels in directory messages and property
 *     names)
 * @param size octets, 8 to {@link #MAX_SIZE}, a multiple of 8 (64-bit words and records stay aligned)
 * @param access the rights this region may ever be lent with; not empty
 */
public record RegionSpec(String name, long size, Set<RegionAccess> access) {
    /** The largest region: one direct buffer's worth, rounded down to a multiple of 8. */
    public static final long MAX_SIZE = Integer.MAX_VALUE & ~7L;

    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9._-]{1,128}");

    public RegionSpec {
        Objects.requireNonNull(access, "access");
        checkName("region", name);
        checkSize(name, size);
        if (access.isEmpty()) {
            throw new IllegalArgumentException("region '" + name + "' has no access: give read, write and/or atomic");
        }
        access = java.util.Collections.unmodifiableSet(EnumSet.copyOf(access)); // enum order in messages
    }

    /** A region of {@code size} octets lent with at most these rights. */
    public static RegionSpec of(String name, long size, RegionAccess first, RegionAccess... rest) {
        return new RegionSpec(name, size, EnumSet.of(first, rest));
    }

    /** This region with another size (what {@link ServerRegion#resize(long)} does). */
    public RegionSpec withSize(long newSize) {
        return new RegionSpec(name, newSize, access);
    }

    /** Names of regions and services travel in directory messages and property names: keep them plain. */
    static void checkName(String what, String name) {
        Objects.requireNonNull(name, "name");
        if (!NAME.matcher(name).matches()) {
            throw new IllegalArgumentException(what + " name '" + name + "' must be 1 to 128 letters, digits, '.',"
                    + " '_' or '-'");
        }
    }

    static void checkSize(String name, long size) {
        if (size < 8 || size > MAX_SIZE || (size & 7) != 0) {
            throw new IllegalArgumentException("region '" + name + "' size " + size + " must be a multiple of 8 from 8"
                    + " to " + MAX_SIZE + " octets");
        }
    }
}
