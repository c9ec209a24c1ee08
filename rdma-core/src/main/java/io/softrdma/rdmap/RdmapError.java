package io.softrdma.rdmap;

/**
 * RDMAP errors reported in a Terminate with Layer 0 (RDMA), RFC 5040 §4.8 Figure 9: each constant is
 * an Error Type and an Error Code.
 *
 * <p>Thread safety: an enum, immutable.
 */
public enum RdmapError {
    /** EType 0: local catastrophic error; any code. */
    LOCAL_CATASTROPHIC(0, 0x00),
    /** EType 1 (remote protection) 0x00: invalid STag. */
    PROTECTION_INVALID_STAG(1, 0x00),
    /** EType 1 0x01: base or bounds violation. */
    PROTECTION_BASE_OR_BOUNDS(1, 0x01),
    /** EType 1 0x02: access rights violation. */
    PROTECTION_ACCESS_RIGHTS(1, 0x02),
    /** EType 1 0x03: STag not associated with the RDMAP stream. */
    PROTECTION_STAG_NOT_ASSOCIATED(1, 0x03),
    /** EType 1 0x04: TO wrap. */
    PROTECTION_TO_WRAP(1, 0x04),
    /** EType 1 0x09: STag cannot be invalidated. */
    PROTECTION_CANNOT_INVALIDATE(1, 0x09),
    /** EType 1 0xFF: unspecified. */
    PROTECTION_UNSPECIFIED(1, 0xFF),
    /** EType 2 (remote operation) 0x05: invalid RDMAP version. */
    OPERATION_INVALID_VERSION(2, 0x05),
    /** EType 2 0x06: unexpected opcode. */
    OPERATION_UNEXPECTED_OPCODE(2, 0x06),
    /** EType 2 0x07: catastrophic error, localized to the RDMAP stream. */
    OPERATION_CATASTROPHIC_STREAM(2, 0x07),
    /** EType 2 0x08: catastrophic error, global. */
    OPERATION_CATASTROPHIC_GLOBAL(2, 0x08),
    /** EType 2 0x09: STag cannot be invalidated. */
    OPERATION_CANNOT_INVALIDATE(2, 0x09),
    /** EType 2 0xFF: unspecified. */
    OPERATION_UNSPECIFIED(2, 0xFF);

    private final int errorType;
    private final int code;

    RdmapError(int errorType, int code) {
        this.errorType = errorType;
        this.code = code;
    }

    public int errorType() {
        return errorType;
    }

    public int code() {
        return code;
    }

    /** The constant for a wire Error Type and Error Code, or null when RFC 5040 defines none. */
    public static RdmapError of(int errorType, int code) {
        for (RdmapError e : values()) {
            if (e.errorType == errorType && (e.code == code || errorType == 0)) {
                return e;
            }
        }
        return null;
    }
}
