package io.softrdma.memory;

/**
 * Part of a region, for {@link RemoteRegion#read(org.reactivestreams.Publisher)}: {@code length} octets from
 * {@code offset}.
 *
 * <p>Thread safety: immutable.
 *
 * @param offset octets from the region's start, not negative
 * @param length octets, at least 1
 */
public record RegionSlice(long offset, int length) {
    public RegionSlice {
        if (offset < 0 || length < 1) {
            throw new IllegalArgumentException("slice at " + offset + " of " + length + " octets: the offset must not"
                    + " be negative and the length must be at least 1");
        }
    }
}
