package io.softrdma.mpa;

/**
 * The lower-layer (MPA) error codes that a Terminate reports with Layer 2 (LLP) and Error Type 0
 * (MPA): RFC 5044 §8 defines codes 1 to 4, RFC 6581 §4 adds 5 to 7.
 *
 * <p>MPA detects these; the DDP/RDMAP layer above turns them into a Terminate message.
 *
 * <p>Thread safety: an enum, immutable.
 */
public enum LlpErrorCode {
    /** RFC 5044 §8 code 1: the TCP connection was closed, reset or lost. */
    TCP_CONNECTION_CLOSED(0x01),
    /** RFC 5044 §8 code 2: the received CRC32c does not match the one computed over the FPDU. */
    CRC_ERROR(0x02),
    /** RFC 5044 §8 code 3: a Marker and the ULPDU_Length fields disagree on where an FPDU starts. */
    MARKER_AND_ULPDU_LENGTH_MISMATCH(0x03),
    /** RFC 5044 §8 code 4: an invalid MPA Request or Reply frame was received. */
    INVALID_MPA_REQUEST_OR_REPLY(0x04),
    /** RFC 6581 §4: local catastrophic error. */
    LOCAL_CATASTROPHIC(0x05),
    /** RFC 6581 §4: the responder's ORD exceeds the initiator's IRD. */
    INSUFFICIENT_IRD(0x06),
    /** RFC 6581 §4: the two ends have no ready-to-receive message type in common. */
    NO_MATCHING_RTR(0x07);

    private static final LlpErrorCode[] BY_CODE = new LlpErrorCode[8];

    static {
        for (LlpErrorCode c : values()) {
            BY_CODE[c.code] = c;
        }
    }

    private final int code;

    LlpErrorCode(int code) {
        this.code = code;
    }

    /** The Error Code octet of the Terminate control field. */
    public int code() {
        return code;
    }

    /**
     * The constant for a wire value.
     *
     * @throws IllegalArgumentException if no LLP error has that code
     */
    public static LlpErrorCode fromCode(int code) {
        LlpErrorCode c = code >= 0 && code < BY_CODE.length ? BY_CODE[code] : null;
        if (c == null) {
            throw new IllegalArgumentException("no LLP error code " + code + " (RFC 5044 §8 and RFC 6581 §4 define 1 to 7)");
        }
        return c;
    }
}
