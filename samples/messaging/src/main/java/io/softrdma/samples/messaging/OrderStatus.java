package io.softrdma.samples.messaging;

import java.math.BigDecimal;

/**
 * What the channel {@code orders.process} answers for each order it takes, in the order they came.
 *
 * <p>Thread safety: immutable.
 *
 * @param orderId the order's identifier
 * @param state {@code ACCEPTED} or {@code REJECTED}
 * @param total the order's total if accepted, else zero
 * @param reason why it was rejected; empty if accepted
 */
public record OrderStatus(String orderId, State state, BigDecimal total, String reason) {

    /** What became of an order. */
    public enum State {
        /** Stored: {@code orders.get} finds it. */
        ACCEPTED,
        /** Not stored; the reason says why. */
        REJECTED
    }
}
