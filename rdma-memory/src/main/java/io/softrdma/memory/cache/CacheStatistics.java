package io.softrdma.memory.cache;

/**
 * What one {@link RdmaCache} client has done since it was built: counts only grow.
 *
 * <p>Thread safety: immutable (a snapshot).
 *
 * @param hits GETs that found a live value
 * @param misses GETs that found none (absent or expired)
 * @param oneSidedGets GETs answered by RDMA Reads alone, the owner's code not running
 * @param retries bucket or entry reads that found the owner changing them and read again (concurrent updates)
 * @param ownerGets GETs that gave up on one-sided reads after the retries allowed and asked the owner
 * @param puts values stored (put, and putIfAbsent that stored)
 * @param deletes deletes that removed a value
 */
public record CacheStatistics(long hits, long misses, long oneSidedGets, long retries, long ownerGets, long puts,
                              long deletes) {
}
