package io.softrdma;

/**
 * The connection under an RDMAP stream closed or failed without a Terminate (RFC 5040 §6.2): every operation still
 * pending on it fails with this. A queue pair's message says how it went (docs/protocol.md, "A stream that ends
 * without a Terminate"): the peer's FIN (RFC 5044 §7.2), a failed connection (§8 code 1, the I/O error as the cause),
 * or a channel closed on this side.
 *
 * <p>Thread safety: immutable once thrown.
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
