package io.softrdma.mpa;

import java.util.Objects;

/**
 * Fired through the pipeline, from the {@link MpaStartupHandler}'s place, when the full operation
 * phase begins: the FPDU codec is installed and the next {@code channelRead} carries ULPDUs.
 *
 * <p>Thread safety: immutable.
 *
 * @param negotiation what the startup settled
 */
public record MpaEstablishedEvent(MpaNegotiation negotiation) {
    public MpaEstablishedEvent {
        Objects.requireNonNull(negotiation, "negotiation");
    }
}
