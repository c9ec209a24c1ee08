package io.softrdma.samples.messaging;

import java.time.Instant;

/**
 * Something the client reports with fire-and-forget ({@code events.record}): no answer comes back.
 *
 * <p>Thread safety: immutable.
 *
 * @param type what happened, one of a few fixed words (it becomes a meter tag)
 * @param orderId the order it concerns
 * @param at when it happened
 */
public record Event(String type, String orderId, Instant at) {
}
