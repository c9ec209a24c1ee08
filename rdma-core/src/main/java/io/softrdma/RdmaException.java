package io.softrdma;

/**
 * Base type of the errors SoftRDMA reports to its consumers: Terminates, rejected connections, lost
 * connections.
 */
public class RdmaException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public RdmaException(String message) {
        super(message);
    }

    public RdmaException(String message, Throwable cause) {
        super(message, cause);
    }

    protected RdmaException(String message, Throwable cause, boolean enableSuppression, boolean writableStackTrace) {
        super(message, cause, enableSuppression, writableStackTrace);
    }
}
