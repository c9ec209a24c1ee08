package io.softrdma.reactive;

/** The peer's request handler failed; its message is what the peer's ERROR reply said. */
public final class RdmaRemoteException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public RdmaRemoteException(String message) {
        super("the peer answered with an error: " + message);
    }
}
