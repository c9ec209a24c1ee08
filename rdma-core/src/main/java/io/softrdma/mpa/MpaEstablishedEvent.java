package io.softrdma.mpa;

import java.util.Objects;

/**
 * Fired through the pipeline, from the {@link MpaStartupHandler}'s place, when the full operation
 * phase begins: the FPDU codec is installed and the next {@code channelRead} carries ULPDUs.
 *
 * <p>When the startup frames were valid but settled something this endpoint cannot accept — a
 * responder's ORD above this initiator's IRD, or no common RTR message (RFC 6581 §5) — the event
 * carries that {@code refusal}: the layer above must send the Terminate it names (Layer 2, EType 0)
 * and close. {@link MpaStartupHandler#outcome()} has then failed.
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
    }

    /** A stream ready for use. */
    public MpaEstablishedEvent(MpaNegotiation negotiation) {
        this(negotiation, null, null);
    }
}
