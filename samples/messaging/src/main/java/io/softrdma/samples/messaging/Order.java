package io.softrdma.samples.messaging;

import java.math.BigDecimal;

/**
 * An order, as it travels in JSON: what the channel {@code orders.process} takes and {@code orders.get} answers.
 *
 * <p>Thread safety: immutable.
 *
 * @param id the order's identifier
 * @param product what is ordered
 * @param quantity how many; at least 1 for the order to be accepted
 * @param unitPrice the price of one
 */
public record Order(String id, String product, int quantity, BigDecimal unitPrice) {

    /** The order's total: quantity times unit price. */
    public BigDecimal total() {
        return unitPrice.multiply(BigDecimal.valueOf(quantity));
    }
}
