package io.softrdma.samples.messaging;

/**
 * {@code orders.get} was asked for an order the server does not have. The requester receives it as RSocket's
 * APPLICATION_ERROR, with this message.
 *
 * <p>Thread safety: immutable once thrown.
 */
public class UnknownOrderException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    UnknownOrderException(String id) {
        super("no order " + id);
    }
}
