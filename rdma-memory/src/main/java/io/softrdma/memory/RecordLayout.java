package io.softrdma.memory;

/**
 * The layout of a versioned record in a region (docs/protocol.md, "Versioned records"): a 16-octet header — a
 * 64-bit version (even: stable; odd: a writer holds it), a 32-bit payload length and a CRC32C of version, length and
 * payload — then the payload, padded to a multiple of 8 so the next record's version word stays aligned for RFC 7306
 * atomics.
 *
 * <p>Thread safety: constants and pure functions.
 */
public final class RecordLayout {
    /** Octets before the payload. */
    public static final int HEADER = 16;
    /** Offset of the version word within a record. */
    public static final int VERSION = 0;
    /** Offset of the payload length. */
    public static final int LENGTH = 8;
    /** Offset of the CRC32C. */
    public static final int CHECKSUM = 12;

    private RecordLayout() {
    }

    /** Octets a record of up to {@code capacity} octets of payload occupies: header, payload, padding to 8. */
    public static long footprint(int capacity) {
        if (capacity < 0) {
            throw new IllegalArgumentException("capacity " + capacity + " must not be negative");
        }
        return HEADER + ((capacity + 7L) & ~7L);
    }
}
