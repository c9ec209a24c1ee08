package io.softrdma.memory.cache.internal;

/**
 * A bucket of another table than the layout the reader holds: the owner was restarted (its table formatted anew,
 * perhaps with another size) since the reader read the header. The reader reads the header again and retries.
 *
 * <p>Thread safety: immutable.
 */
public final class StaleLayoutException extends RuntimeException {
    public StaleLayoutException(long expected, long found) {
        super("the cache table was formatted anew (table id " + Long.toHexString(found) + ", not "
                + Long.toHexString(expected) + ")", null, false, false);
    }
}
