package io.softrdma.mpa;

import io.softrdma.internal.mpa.FpduCodec;
import io.softrdma.internal.mpa.MpaStartupFrameCodec;
import java.time.Duration;
import java.util.Objects;

/**
 * What an MPA endpoint declares and enforces at startup (RFC 5044 §7.1) and in full operation.
 *
 * <p>Start from {@link #defaults()} and change fields with the {@code with…} methods, or several at
 * once with {@link #toBuilder()}; every instance is immutable and validated when built.
 *
 * <p>Thread safety: immutable.
 *
 * @param revision the MPA revision an initiator sends, and the highest a responder answers with: 2 (the
 *     default, as Linux) sends RFC 6581's IRD/ORD block ahead of the private data; 1 is RFC 5044's
 *     (then the peers exchange no IRD/ORD, and a Linux peer can neither serve nor issue RDMA Reads)
 * @param crc this endpoint's CRC preference, the C bit (RFC 5044 §4.4: on unless an administrator
 *     turns it off; CRCs are off only where both ends send C = 0)
 * @param markers whether this endpoint requires Markers in the FPDUs it receives, the M bit (§4.3)
 * @param refuseMarkers refuse a peer that requires Markers from us, as Linux siw does: a responder
 *     rejects the Request, an initiator closes on the Reply
 * @param maxPrivateDataLength the most private data, in octets, this endpoint sends or accepts
 *     (0 to 512; RFC 5044 §7.1.1 allows 512, Linux caps at 256)
 * @param requestTimeout how long a responder waits for the complete MPA Request (siw: 5 s)
 * @param replyTimeout how long an initiator waits for the complete MPA Reply (siw: 10 s)
 * @param acceptTimeout how long a responder waits for its consumer to accept or reject a Request
 * @param maxUlpduLength a cap on the MULPDU offered to DDP, in octets (128 to 64768): the MULPDU is the
 *     smaller of this and the one derived from the TCP EMSS (§4.5). The encoder itself frames any ULPDU
 *     up to the 64768 octets RFC 5044 §3 allows.
 * @param peerToPeer RFC 6581 peer-to-peer mode: the RTR kinds an initiator offers, or a responder
 *     accepts (see {@link PeerToPeerMode}); needs revision 2
 * @param firstFpduProbe how long an initiator waits for any answer to its first FPDUs before it sends
 *     one zero-length RDMA Write (RFC 5040 §5.1 allows it; RFC 6581 uses it as RTR): Linux 6.1's siw
 *     responder sends its Reply before it watches the socket, and an FPDU that arrives in between is
 *     only read when more octets follow; {@code Duration.ZERO} turns the probe off
 * @param closeOnReject close the connection after a Reply with R = 1 (sent or received). RFC 5044
 *     §7.1.2 leaves the TCP connection open for the consumer to close or reuse; SoftRDMA's consumers
 *     close, so this is on by default. When off, the startup handler removes itself and leaves the
 *     channel (and any octets after the Reply) to the pipeline.
 */
public record MpaSettings(
        int revision,
        boolean crc,
        boolean markers,
        boolean refuseMarkers,
        int maxPrivateDataLength,
        Duration requestTimeout,
        Duration replyTimeout,
        Duration acceptTimeout,
        int maxUlpduLength,
        PeerToPeerMode peerToPeer,
        Duration firstFpduProbe,
        boolean closeOnReject) {

    /** The revision RFC 5044 defines. */
    public static final int REVISION_1 = 1;
    /** The revision RFC 6581 adds: IRD/ORD exchange and peer-to-peer setup. */
    public static final int REVISION_2 = 2;
    /** The longest first-FPDU probe delay: a probe is for a stalled startup, not for idle streams. */
    public static final Duration MAX_FIRST_FPDU_PROBE = Duration.ofMinutes(1);

    private static final MpaSettings DEFAULTS = new MpaSettings(REVISION_2, true, false, false,
            MpaStartupFrameCodec.MAX_PRIVATE_DATA_LENGTH, Duration.ofSeconds(5), Duration.ofSeconds(10),
            Duration.ofSeconds(10), FpduCodec.MAX_ULPDU_LENGTH, PeerToPeerMode.OFF, Duration.ofMillis(200), true);

    public MpaSettings {
        if (revision != REVISION_1 && revision != REVISION_2) {
            throw new IllegalArgumentException("MPA revision " + revision + " is not supported; use 2 (RFC 6581) or 1"
                    + " (RFC 5044)");
        }
        Objects.requireNonNull(peerToPeer, "peerToPeer");
        if (revision == REVISION_1 && peerToPeer != PeerToPeerMode.OFF) {
            throw new IllegalArgumentException("peer-to-peer mode " + peerToPeer + " needs MPA revision 2 (RFC 6581);"
                    + " set revision 2 or peerToPeer OFF");
        }
        Objects.requireNonNull(firstFpduProbe, "firstFpduProbe");
        if (firstFpduProbe.isNegative() || firstFpduProbe.compareTo(MAX_FIRST_FPDU_PROBE) > 0) {
            throw new IllegalArgumentException("firstFpduProbe " + firstFpduProbe + " is outside 0 (off) to "
                    + MAX_FIRST_FPDU_PROBE);
        }
        if (maxPrivateDataLength < 0 || maxPrivateDataLength > MpaStartupFrameCodec.MAX_PRIVATE_DATA_LENGTH) {
            throw new IllegalArgumentException("maxPrivateDataLength " + maxPrivateDataLength
                    + " is outside 0..512 octets (RFC 5044 §7.1.1)");
        }
        if (revision == REVISION_2 && maxPrivateDataLength < IrdOrdHeader.LENGTH) {
            throw new IllegalArgumentException("maxPrivateDataLength " + maxPrivateDataLength + " leaves no room for"
                    + " the 4-octet IRD/ORD block of MPA revision 2 (RFC 6581 §5)");
        }
        requirePositive(requestTimeout, "requestTimeout");
        requirePositive(replyTimeout, "replyTimeout");
        requirePositive(acceptTimeout, "acceptTimeout");
        if (maxUlpduLength < FpduCodec.MIN_MULPDU || maxUlpduLength > FpduCodec.MAX_ULPDU_LENGTH) {
            throw new IllegalArgumentException("maxUlpduLength " + maxUlpduLength
                    + " is outside 128..64768 octets (RFC 5044 §3)");
        }
    }

    private static void requirePositive(Duration d, String name) {
        Objects.requireNonNull(d, name);
        if (d.isNegative() || d.isZero()) {
            throw new IllegalArgumentException(name + " must be positive, was " + d);
        }
    }

    /**
     * Revision 2, CRC on, no Markers required, Markers accepted, 512 octets of private data, siw's
     * timeouts, no peer-to-peer mode, a first-FPDU probe after 200 ms.
     */
    public static MpaSettings defaults() {
        return DEFAULTS;
    }

    public MpaSettings withRevision(int revision) {
        return toBuilder().revision(revision).build();
    }

    public MpaSettings withPeerToPeer(PeerToPeerMode peerToPeer) {
        return toBuilder().peerToPeer(peerToPeer).build();
    }

    public MpaSettings withFirstFpduProbe(Duration firstFpduProbe) {
        return toBuilder().firstFpduProbe(firstFpduProbe).build();
    }

    public MpaSettings withCrc(boolean crc) {
        return toBuilder().crc(crc).build();
    }

    public MpaSettings withMarkers(boolean markers) {
        return toBuilder().markers(markers).build();
    }

    public MpaSettings withRefuseMarkers(boolean refuseMarkers) {
        return toBuilder().refuseMarkers(refuseMarkers).build();
    }

    public MpaSettings withMaxPrivateDataLength(int maxPrivateDataLength) {
        return toBuilder().maxPrivateDataLength(maxPrivateDataLength).build();
    }

    public MpaSettings withRequestTimeout(Duration requestTimeout) {
        return toBuilder().requestTimeout(requestTimeout).build();
    }

    public MpaSettings withReplyTimeout(Duration replyTimeout) {
        return toBuilder().replyTimeout(replyTimeout).build();
    }

    public MpaSettings withAcceptTimeout(Duration acceptTimeout) {
        return toBuilder().acceptTimeout(acceptTimeout).build();
    }

    public MpaSettings withMaxUlpduLength(int maxUlpduLength) {
        return toBuilder().maxUlpduLength(maxUlpduLength).build();
    }

    public MpaSettings withCloseOnReject(boolean closeOnReject) {
        return toBuilder().closeOnReject(closeOnReject).build();
    }

    /** A builder that starts from these settings. */
    public Builder toBuilder() {
        return new Builder(this);
    }

    /**
     * Collects settings field by field; {@link #build()} validates them together.
     *
     * <p>Thread safety: not thread-safe; build on one thread.
     */
    public static final class Builder {
        private int revision;
        private boolean crc;
        private boolean markers;
        private boolean refuseMarkers;
        private int maxPrivateDataLength;
        private Duration requestTimeout;
        private Duration replyTimeout;
        private Duration acceptTimeout;
        private int maxUlpduLength;
        private PeerToPeerMode peerToPeer;
        private Duration firstFpduProbe;
        private boolean closeOnReject;

        private Builder(MpaSettings from) {
            revision = from.revision;
            crc = from.crc;
            markers = from.markers;
            refuseMarkers = from.refuseMarkers;
            maxPrivateDataLength = from.maxPrivateDataLength;
            requestTimeout = from.requestTimeout;
            replyTimeout = from.replyTimeout;
            acceptTimeout = from.acceptTimeout;
            maxUlpduLength = from.maxUlpduLength;
            peerToPeer = from.peerToPeer;
            firstFpduProbe = from.firstFpduProbe;
            closeOnReject = from.closeOnReject;
        }

        public Builder revision(int revision) {
            this.revision = revision;
            return this;
        }

        public Builder crc(boolean crc) {
            this.crc = crc;
            return this;
        }

        public Builder markers(boolean markers) {
            this.markers = markers;
            return this;
        }

        public Builder refuseMarkers(boolean refuseMarkers) {
            this.refuseMarkers = refuseMarkers;
            return this;
        }

        public Builder maxPrivateDataLength(int maxPrivateDataLength) {
            this.maxPrivateDataLength = maxPrivateDataLength;
            return this;
        }

        public Builder requestTimeout(Duration requestTimeout) {
            this.requestTimeout = requestTimeout;
            return this;
        }

        public Builder replyTimeout(Duration replyTimeout) {
            this.replyTimeout = replyTimeout;
            return this;
        }

        public Builder acceptTimeout(Duration acceptTimeout) {
            this.acceptTimeout = acceptTimeout;
            return this;
        }

        public Builder maxUlpduLength(int maxUlpduLength) {
            this.maxUlpduLength = maxUlpduLength;
            return this;
        }

        public Builder peerToPeer(PeerToPeerMode peerToPeer) {
            this.peerToPeer = peerToPeer;
            return this;
        }

        public Builder firstFpduProbe(Duration firstFpduProbe) {
            this.firstFpduProbe = firstFpduProbe;
            return this;
        }

        public Builder closeOnReject(boolean closeOnReject) {
            this.closeOnReject = closeOnReject;
            return this;
        }

        /** @throws IllegalArgumentException naming the first setting that is out of range */
        public MpaSettings build() {
            return new MpaSettings(revision, crc, markers, refuseMarkers, maxPrivateDataLength, requestTimeout,
                    replyTimeout, acceptTimeout, maxUlpduLength, peerToPeer, firstFpduProbe, closeOnReject);
        }
    }

    /**
     * Fails fast when private data to be sent exceeds {@link #maxPrivateDataLength()}, less the IRD/ORD
     * block if the frame carries one.
     *
     * @throws IllegalArgumentException naming the limit
     */
    public void checkOutgoingPrivateData(byte[] privateData, boolean withIrdOrdBlock) {
        int room = maxPrivateDataLength - (withIrdOrdBlock ? IrdOrdHeader.LENGTH : 0);
        if (privateData.length > room) {
            throw new IllegalArgumentException(privateData.length + " octets of private data exceed the maximum of "
                    + room + " (MpaSettings.maxPrivateDataLength " + maxPrivateDataLength
                    + (withIrdOrdBlock ? " less RFC 6581's 4-octet IRD/ORD block" : "")
                    + "; RFC 5044 §7.1.1 allows 512)");
        }
    }

    /** The most private data the application may send: with revision 2, the IRD/ORD block takes 4 octets. */
    public int maxApplicationPrivateDataLength() {
        return maxPrivateDataLength - (revision == REVISION_2 ? IrdOrdHeader.LENGTH : 0);
    }
}
