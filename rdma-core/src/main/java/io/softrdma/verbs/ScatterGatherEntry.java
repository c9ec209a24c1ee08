package io.softrdma.verbs;

import java.util.Objects;

/**
 * A piece of registered memory a work request sends from or receives into: {@code length} octets at
 * {@code offset} (from the region's first octet, not a tagged offset).
 *
 * <p>Thread safety: immutable.
 *
 * @param region a region of the queue pair's protection domain
 * @param offset octets from the start of the region
 * @param length octets
 */
public record ScatterGatherEntry(MemoryRegion region, long offset, int length) {

    public ScatterGatherEntry {
        Objects.requireNonNull(region, "region");
        if (offset < 0 || length < 0 || offset + length > region.length()) {
            throw new IllegalArgumentException("[" + offset + ", " + (offset + length)
                    + ") is not within the region's " + region.length() + " octets");
        }
    }

    /** The whole region. */
    public static ScatterGatherEntry of(MemoryRegion region) {
        return new ScatterGatherEntry(region, 0, region.length());
    }

    /** {@code length} octets from the start of the region. */
    public static ScatterGatherEntry of(MemoryRegion region, int length) {
        return new ScatterGatherEntry(region, 0, length);
    }

    /** The tagged offset of the first octet: what a peer would use to address it. */
    public long taggedOffset() {
        return region.baseTaggedOffset() + offset;
    }
}
