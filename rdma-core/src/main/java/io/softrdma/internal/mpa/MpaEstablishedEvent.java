package io.softrdma.internal.mpa;

import io.softrdma.mpa.LlpErrorCode;
import io.softrdma.mpa.MpaNegotiation;
import java.util.Objects;

/**
 * Fired through the pipeline, from the {@link MpaStartupHandler}'s place, when the full operation
 * phase begins: the FPDU codec is installed and the next {@code channelRead} carries ULPDUs.
 *
 * <p>When the startup frames were valid but settled something this endpoint cannot accept — a
 * responder's ORD above this initiator's IRD, or no common RTR message (RFC 6581 §5) — the event
 * carries that {@code refusal}: the layer above sends the Terminate it names (Layer 2, EType 0) and
 * closes — the queue pair's handler does — and {@link MpaStartupHandler#outcome()} fails. Without such
 * a layer no Terminate goes out, and the startup handler closes the connection after
 * {@link MpaStartupHandler#REFUSAL_LINGER} all the same.
 *
 * <p>Thread safety: immutable.
 *
 * @param negotiation what the startup settled
 * @param refusal the LLP error to terminate with, or null when the stream may be used
 * @param reason why, for the Terminate's log and the local error; null without refusal
 */
public record MpaEstablishedEvent(MpaNegotiation negotiation, LlpErrorCode refusal, String reason) {
    public MpaEstablishedEvent {
        Objects.requireNonNull(negotiation, "negotiation");
        if ((refusal == null) != (reason == null)) {
            throw new IllegalArgumentException("a refusal needs its reason, and a reason its refusal");
        }
    }

    /** A stream ready for use. */
    public MpaEstablishedEvent(MpaNegotiation negotiation) {
        this(negotiation, null, null);
    }
}
