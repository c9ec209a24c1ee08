package io.softrdma.verbs;

import io.netty.buffer.ByteBuf;
import java.util.Set;

/**
 * A buffer of direct memory registered with a {@link ProtectionDomain}: it has a 32-bit STag (a 24-bit
 * index and an 8-bit key, chosen at random as RFC 5040 §8.1.1 requirement 8 asks), a base tagged
 * offset, a length and access rights. Peers address it by STag and tagged offset; local work requests
 * by {@link ScatterGatherEntry} (region and offset).
 *
 * <p>Lifecycle: valid after registration; {@link #invalidate()} (or a local-invalidate work request, or a
 * peer's Send with Invalidate) makes its STag invalid, so every later use of that STag fails as
 * "invalid STag"; {@link #reregister()} makes it valid again under a new key, and the old STag stays
 * invalid; {@link #close()} deregisters it and releases the buffer.
 *
 * <p>Thread safety: all methods may be called from any thread. Invalidation takes effect for segments
 * processed after it returns.
 */
public interface MemoryRegion extends AutoCloseable {
    /** The current STag. */
    int stag();

    /** The tagged offset of the first octet: 0 for zero-based regions, or the address given at registration. */
    long baseTaggedOffset();

    /** Octets in the region. */
    int length();

    Set<Access> access();

    ProtectionDomain protectionDomain();

    /**
     * The registered memory (index 0 is the region's first octet). Not to be released by the caller;
     * reading or writing it while an operation uses it is indeterminate (RFC 5040 §5.5 rules 7 and 8).
     */
    ByteBuf buffer();

    /** Whether the current STag is valid. */
    boolean isValid();

    /** What the peer needs to RDMA Read or Write the whole region. */
    RemoteMemory advertise();

    /** Invalidates the STag at once (local invalidate). Idempotent. */
    void invalidate();

    /**
     * Makes the region valid again under a new key; the old STag stays invalid.
     *
     * @return the new STag
     * @throws IllegalStateException if the region was closed
     */
    int reregister();

    /** Deregisters the region: its STag is invalid from now on and the buffer is released. */
    @Override
    void close();
}
