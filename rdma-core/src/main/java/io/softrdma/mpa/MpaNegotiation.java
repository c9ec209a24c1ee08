package io.softrdma.mpa;

import java.util.Objects;

/**
 * The outcome of a successful MPA startup: what the two frames settled for the full operation phase.
 *
 * <p>Thread safety: immutable.
 *
 * @param role this endpoint's role
 * @param revision the revision both ends use
 * @param crc whether CRCs are generated and checked (C = 1 in either frame, RFC 5044 §7.1.1 C)
 * @param markersSent whether this endpoint inserts Markers (the peer's frame had M = 1)
 * @param markersReceived whether the peer inserts Markers (this endpoint's frame had M = 1)
 * @param mulpdu the largest ULPDU DDP should hand to MPA (RFC 5044 §4.5)
 * @param request the MPA Request frame
 * @param reply the MPA Reply frame
 */
public record MpaNegotiation(
        MpaRole role,
        int revision,
        boolean crc,
        boolean markersSent,
        boolean markersReceived,
        int mulpdu,
        MpaStartupFrame request,
        MpaStartupFrame reply) {

    public MpaNegotiation {
        Objects.requireNonNull(role, "role");
        Objects.requireNonNull(request, "request");
        Objects.requireNonNull(reply, "reply");
    }

    /** A copy of the private data the peer sent. */
    public byte[] peerPrivateData() {
        return (role == MpaRole.INITIATOR ? reply : request).privateData();
    }

    /** A copy of the private data this endpoint sent. */
    public byte[] localPrivateData() {
        return (role == MpaRole.INITIATOR ? request : reply).privateData();
    }
}
