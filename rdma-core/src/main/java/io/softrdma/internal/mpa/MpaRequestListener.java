package io.softrdma.internal.mpa;

import io.softrdma.mpa.MpaSettings;
import io.softrdma.mpa.MpaStartupFrame;

/**
 * The responder's consumer: sees each valid MPA Request (with the initiator's private data) and
 * decides whether to accept the connection (RFC 5044 §7.1.2 rules 2 and 6).
 *
 * <p>Thread safety: called on the connection's event loop; it must not block. The decision may be
 * taken later, from any thread, within {@link MpaSettings#acceptTimeout()}.
 */
@FunctionalInterface
public interface MpaRequestListener {
    /** Accepts every Request and replies without private data. */
    MpaRequestListener ACCEPT_ALL = (request, decision) -> decision.accept(new byte[0]);

    /** A valid Request arrived; call exactly one of {@code decision.accept} or {@code decision.reject}. */
    void onRequest(MpaStartupFrame request, MpaResponderDecision decision);
}
