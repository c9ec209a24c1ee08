package io.softrdma.mpa;

/**
 * The answer a responder's consumer gives to an MPA Request. Only the first call counts, and a decision
 * that arrives after {@link MpaSettings#acceptTimeout()} or after the connection closed is ignored:
 * {@link MpaStartupHandler#outcome()} tells what happened.
 *
 * <p>Thread safety: callable from any thread; the Reply is sent on the connection's event loop.
 */
public interface MpaResponderDecision {
    /**
     * Sends a Reply with R = 0 and enters full operation.
     *
     * @throws IllegalArgumentException if the private data is longer than the configured maximum
     */
    void accept(byte[] privateData);

    /**
     * Sends a Reply with R = 1 and this private data (for example the reason), then closes the
     * connection once the Reply is written (unless {@link MpaSettings#closeOnReject()} is off).
     *
     * @throws IllegalArgumentException if the private data is longer than the configured maximum
     */
    void reject(byte[] privateData);
}
