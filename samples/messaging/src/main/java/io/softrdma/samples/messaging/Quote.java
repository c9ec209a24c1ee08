package io.softrdma.samples.messaging;

import java.math.BigDecimal;
import java.time.Instant;

/**
 * One price of the stream {@code quotes.stream}.
 *
 * <p>Thread safety: immutable.
 *
 * @param symbol what is quoted
 * @param sequence its place in the stream, from 0, without gaps
 * @param price the price
 * @param at when the server made it
 */
public record Quote(String symbol, long sequence, BigDecimal price, Instant at) {
}
