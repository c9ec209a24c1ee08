package io.softrdma.ddp;

/**
 * DDP errors reported in a Terminate with Layer 1 (DDP), RFC 5041 §7.2 ("DDP Error Types and Codes"):
 * each constant is an Error Type and an Error Code.
 *
 * <p>Thread safety: an enum, immutable.
 */
public enum DdpError {
    /** EType 0: local catastrophic error; no code. */
    LOCAL_CATASTROPHIC(0, 0x00),
    /** EType 1 code 0: invalid STag (unknown, stale key, invalidated). */
    TAGGED_INVALID_STAG(1, 0x00),
    /** EType 1 code 1: the segment falls outside the tagged buffer. */
    TAGGED_BASE_OR_BOUNDS(1, 0x01),
    /** EType 1 code 2: the STag is not associated with this DDP stream (another protection domain). */
    TAGGED_STAG_NOT_ASSOCIATED(1, 0x02),
    /** EType 1 code 3: TO + length wraps past 2^64. */
    TAGGED_TO_WRAP(1, 0x03),
    /** EType 1 code 4: the DDP version of a tagged segment is not 1. */
    TAGGED_INVALID_VERSION(1, 0x04),
    /** EType 2 code 1: invalid queue number. */
    UNTAGGED_INVALID_QN(2, 0x01),
    /** EType 2 code 2: invalid MSN, no buffer available. */
    UNTAGGED_NO_BUFFER(2, 0x02),
    /** EType 2 code 3: invalid MSN, MSN range not valid. */
    UNTAGGED_MSN_RANGE(2, 0x03),
    /** EType 2 code 4: invalid MO. */
    UNTAGGED_INVALID_MO(2, 0x04),
    /** EType 2 code 5: DDP message too long for the available buffer. */
    UNTAGGED_MESSAGE_TOO_LONG(2, 0x05),
    /** EType 2 code 6: the DDP version of an untagged segment is not 1. */
    UNTAGGED_INVALID_VERSION(2, 0x06);

    private final int errorType;
    private final int code;

    DdpError(int errorType, int code) {
        this.errorType = errorType;
        this.code = code;
    }

    public int errorType() {
        return errorType;
    }

    public int code() {
        return code;
    }

    /** The constant for a wire Error Type and Error Code, or null when DDP defines none. */
    public static DdpError of(int errorType, int code) {
        for (DdpError e : values()) {
            if (e.errorType == errorType && (e.code == code || errorType == 0)) {
                return e;
            }
        }
        return null;
    }
}
