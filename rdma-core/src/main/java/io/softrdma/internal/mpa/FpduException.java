package io.softrdma.internal.mpa;

import io.softrdma.mpa.LlpErrorCode;
import io.softrdma.mpa.MpaException;

/**
 * A framing error found by the {@link FpduDecoder} in the full operation phase: a bad CRC, a
 * ULPDU_Length that does not fit, or a Marker that does not point where it must (RFC 5044 §8).
 *
 * <p>MPA reports it upward through {@code exceptionCaught} and reads nothing more from the stream;
 * as RFC 5044 §8 requires for codes 2 and 3 it does not close the connection itself: the layer above
 * sends a Terminate with Layer 2, Error Type 0 and {@link #code()} and then closes.
 */
public final class FpduException extends MpaException {
    private static final long serialVersionUID = 1L;

    private final LlpErrorCode code;

    public FpduException(LlpErrorCode code, String message) {
        super(message);
        this.code = code;
    }

    /** The LLP error code to report in the Terminate. */
    public LlpErrorCode code() {
        return code;
    }
}
