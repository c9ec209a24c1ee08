package io.softrdma.memory;

/**
 * What a memory server's directory has done since it started, for metrics and health: leases lent, renewed, and
 * ended by each cause. Counters only grow.
 *
 * <p>Thread safety: immutable (a snapshot; its counters are read one after another, not atomically together).
 *
 * @param lent leases lent (a RESOLVE that registered the region for a session)
 * @param renewed RENEWs granted, and RESOLVEs that returned a lease the session already held
 * @param expired leases that ended because nobody renewed them
 * @param revoked leases ended by {@link ServerRegion#revoke()}, {@link ServerRegion#resize(long)} or
 *     {@link ServerRegion#drop()}
 * @param released leases the client released, or that ended with their session
 * @param live leases valid now
 */
public record LeaseStatistics(long lent, long renewed, long expired, long revoked, long released, long live) {
}
