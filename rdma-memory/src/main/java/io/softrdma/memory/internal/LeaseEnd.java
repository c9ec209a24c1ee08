package io.softrdma.memory.internal;

/**
 * Why a lease ended, as the directory tells a client that resolves again after losing its connection (a
 * Terminate may not reach a client whose requests were still arriving: the server's close then resets the
 * connection). The codes are part of the wire format (docs/protocol.md, "Memory directory").
 */
public enum LeaseEnd {
    /** Unknown to the server (never lent here, or forgotten): the client cannot tell. */
    UNKNOWN(0, "ended"),
    EXPIRED(1, "expired (not renewed in time)"),
    REVOKED(2, "was revoked by the region's owner"),
    RESIZED(3, "ended because the owner resized the region"),
    DROPPED(4, "ended because the owner dropped the region"),
    RELEASED(5, "was released by this client"),
    SESSION_ENDED(6, "ended with its connection"),
    /** The lease is still valid on the server (the connection was lost for another reason). */
    VALID(7, "is still valid");

    private final int code;
    private final String words;

    LeaseEnd(int code, String words) {
        this.code = code;
        this.words = words;
    }

    public int code() {
        return code;
    }

    /** Completes "the lease on region 'x' ...". */
    public String words() {
        return words;
    }

    public static LeaseEnd of(int code) {
        for (LeaseEnd e : values()) {
            if (e.code == code) {
                return e;
            }
        }
        return UNKNOWN;
    }

    /** Whether the server ended the lease on purpose (the client should call it a revocation). */
    public boolean revoked() {
        return this == EXPIRED || this == REVOKED || this == RESIZED || this == DROPPED;
    }
}
