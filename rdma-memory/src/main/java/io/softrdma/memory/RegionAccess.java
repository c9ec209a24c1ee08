package io.softrdma.memory;

import java.util.EnumSet;
import java.util.Set;

/**
 * What a peer may do to a named region with one-sided operations: RDMA Read (RFC 5040 §4.4), RDMA Write (§4.3),
 * RFC 7306 atomics (Fetch-and-Add, Compare-and-Swap on 64-bit words).
 *
 * <p>Thread safety: an enum, immutable.
 */
public enum RegionAccess {
    /** RDMA Read: {@code read}, {@code getLong}, {@code readRecord}. */
    READ,
    /** RDMA Write: {@code write}, {@code putLong}, {@code writeRecord} (which also needs {@link #ATOMIC}). */
    WRITE,
    /** RFC 7306 atomics: {@code fetchAdd}, {@code compareAndSwap}. */
    ATOMIC;

    /** Every right: READ, WRITE and ATOMIC. */
    public static Set<RegionAccess> all() {
        return EnumSet.allOf(RegionAccess.class);
    }

    /**
     * Parses a comma-separated list such as {@code "read,write"} (case and spaces ignored), as properties give it.
     *
     * @throws IllegalArgumentException naming the word that is not read, write or atomic
     */
    public static Set<RegionAccess> parse(String list) {
        EnumSet<RegionAccess> rights = EnumSet.noneOf(RegionAccess.class);
        for (String word : list.split(",")) {
            String w = word.trim();
            if (w.isEmpty()) {
                continue;
            }
            try {
                rights.add(RegionAccess.valueOf(w.toUpperCase(java.util.Locale.ROOT)));
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("'" + w + "' is not an access right: use read, write or atomic");
            }
        }
        return java.util.Collections.unmodifiableSet(rights);
    }
}
