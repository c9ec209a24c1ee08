package io.softrdma.memory;

/**
 * A versioned record stayed inconsistent (odd version, or a checksum that does not match its octets) for every
 * attempt a read made: a writer holds it for too long, died holding it, or its memory was changed outside the
 * record protocol. The torn value is never returned. See docs/protocol.md, "Versioned records".
 *
 * <p>Thread safety: immutable once thrown.
 */
public class TornRecordException extends RemoteMemoryException {
    private static final long serialVersionUID = 1L;

    public TornRecordException(String region, String message) {
        super(region, message);
    }
}
