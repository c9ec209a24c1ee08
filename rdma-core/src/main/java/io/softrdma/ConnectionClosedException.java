package io.softrdma;

/**
 * The connection under an RDMAP stream closed or failed without a Terminate (RFC 5040 §6.2 "LLP
 * Abortive Termination"): every operation still pending on it fails with this.
 */
public final class ConnectionClosedException extends RdmaException {
    private static final long serialVersionUID = 1L;

    public ConnectionClosedException(String message) {
        super(message);
    }

    public ConnectionClosedException(String message, Throwable cause) {
        super(message, cause);
    }
}
