package io.softrdma.samples.messaging;

/**
 * The request of {@code quotes.stream}: which symbol.
 *
 * <p>Thread safety: immutable.
 *
 * @param symbol what to quote
 */
public record QuoteRequest(String symbol) {
}
