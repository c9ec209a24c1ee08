package io.softrdma.internal.mpa;

import io.softrdma.mpa.IrdOrdHeader;
import io.softrdma.mpa.MpaSettings;

/**
 * The answer a responder's consumer gives to an MPA Request. Only the first call counts, and a decision
 * that arrives after {@link MpaSettings#acceptTimeout()} or after the connection closed is ignored:
 * {@link MpaStartupHandler#outcome()} tells what happened.
 *
 * <p>Thread safety: callable from any thread; the Reply is sent on the connection's event loop.
 */
public interface MpaResponderDecision {
    /**
     * Sends a Reply with R = 0 and enters full operation, offering Linux's IRD and ORD of 128 if the
     * Request was enhanced.
     *
     * @throws IllegalArgumentException if the private data is longer than the configured maximum
     */
    default void accept(byte[] privateData) {
        accept(privateData, IrdOrdHeader.LINUX_MAX_DEPTH, IrdOrdHeader.LINUX_MAX_DEPTH);
    }

    /**
     * Sends a Reply with R = 0 and enters full operation. If the Request was enhanced (RFC 6581 §5), the
     * Reply carries this responder's {@code ird} and {@code ord}, each cut to what the initiator offered.
     *
     * @throws IllegalArgumentException if the private data is longer than the configured maximum, or IRD
     *     or ORD do not fit 14 bits
     */
    void accept(byte[] privateData, int ird, int ord);

    /**
     * Sends a Reply with R = 1 and this private data (for example the reason), then closes the
     * connection once the Reply is written (unless {@link MpaSettings#closeOnReject()} is off).
     *
     * @throws IllegalArgumentException if the private data is longer than the configured maximum
     */
    void reject(byte[] privateData);
}
