package io.softrdma.samples.messaging;

/**
 * The request of {@code orders.get}: which order.
 *
 * <p>Thread safety: immutable.
 *
 * @param id the order's identifier
 */
public record OrderRequest(String id) {
}
