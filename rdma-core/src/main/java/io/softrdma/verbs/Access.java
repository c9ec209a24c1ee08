package io.softrdma.verbs;

import java.util.EnumSet;
import java.util.Set;

/**
 * Access rights of a memory region (RFC 5040 §8.1.1 requirement 5: read, write, or read and write for
 * remote access; local write for buffers that incoming data is placed into), and the right to remote atomic
 * operations that RFC 7306 adds.
 *
 * <p>Thread safety: an enum, immutable.
 */
public enum Access {
    /** Incoming data may be placed here: receive buffers, RDMA Read sinks. */
    LOCAL_WRITE,
    /** The peer may RDMA Read from the region. */
    REMOTE_READ,
    /** The peer may RDMA Write into the region (requires {@link #LOCAL_WRITE}, as in verbs). */
    REMOTE_WRITE,
    /**
     * The peer may apply RFC 7306 atomic operations to 64-bit words of the region (requires {@link #LOCAL_WRITE},
     * as in verbs: an atomic writes the word).
     */
    REMOTE_ATOMIC;

    /** Every right: LOCAL_WRITE, REMOTE_READ, REMOTE_WRITE and REMOTE_ATOMIC. */
    public static Set<Access> all() {
        return EnumSet.allOf(Access.class);
    }

    /** The set of the given rights. */
    public static Set<Access> of(Access first, Access... rest) {
        return EnumSet.of(first, rest);
    }
}
