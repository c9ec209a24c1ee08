package io.softrdma.mpa;

import java.time.Duration;
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
 * @param enhanced whether both frames carried RFC 6581's IRD/ORD block
 * @param ird the inbound RDMA Read queue depth this endpoint offered (its own value without an
 *     IRD/ORD exchange)
 * @param ord the outbound RDMA Read queue depth this endpoint may use: its own, no more than the
 *     peer's IRD (RFC 6581 §5)
 * @param readyToReceive the RTR message of a peer-to-peer startup, or {@link ReadyToReceive#NONE}
 * @param firstFpduProbe see {@link MpaSettings#firstFpduProbe()}; zero for a responder
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
        boolean enhanced,
        int ird,
        int ord,
        ReadyToReceive readyToReceive,
        Duration firstFpduProbe,
        MpaStartupFrame request,
        MpaStartupFrame reply) {

    public MpaNegotiation {
        Objects.requireNonNull(role, "role");
        Objects.requireNonNull(readyToReceive, "readyToReceive");
        Objects.requireNonNull(firstFpduProbe, "firstFpduProbe");
        Objects.requireNonNull(request, "request");
        Objects.requireNonNull(reply, "reply");
    }

    /** A copy of the private data the peer's application sent (without an IRD/ORD block). */
    public byte[] peerPrivateData() {
        return peerFrame().applicationPrivateData();
    }

    /** A copy of the private data this endpoint's application sent (without an IRD/ORD block). */
    public byte[] localPrivateData() {
        return (role == MpaRole.INITIATOR ? request : reply).applicationPrivateData();
    }

    /** The peer's IRD/ORD block, or null when the startup was not enhanced. */
    public IrdOrdHeader peerIrdOrd() {
        return enhanced ? peerFrame().irdOrd() : null;
    }

    private MpaStartupFrame peerFrame() {
        return role == MpaRole.INITIATOR ? reply : request;
    }
}
