package io.softrdma.memory.cache.internal;

/**
 * A one-sided read saw a bucket or an entry while the owner was changing it (checksum mismatch, a slot pointing
 * outside the log, an entry whose hash or length disagrees with the slot): the reader retries from the bucket. Cheap
 * (no stack trace): it is control flow, expected under concurrent updates.
 *
 * <p>Thread safety: immutable.
 */
public final class TornReadException extends RuntimeException {
    public TornReadException(String what) {
        super(what + " changed while it was read", null, false, false);
    }
}
