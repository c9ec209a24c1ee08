package io.softrdma.mpa;

/**
 * The MPA startup phase (RFC 5044 §7.1) failed: the connection is closed and the failure is reported
 * locally, as §7.1.1 and §7.1.2 require.
 */
public class MpaStartupException extends MpaException {
    private static final long serialVersionUID = 1L;

    /** Why the startup failed. */
    public enum Reason {
        /** The 16-octet key is neither "MPA ID Req Frame" nor "MPA ID Rep Frame" (§7.1.1, §7.1.2 rule 5). */
        BAD_KEY,
        /** An initiator received a Request: both ends started as initiator (§7.1.2 rule 8). */
        BOTH_INITIATORS,
        /** A responder received a Reply where a Request was due. */
        UNEXPECTED_REPLY,
        /** The peer's revision is one this endpoint cannot interoperate with (§7.1.1 Rev). */
        UNSUPPORTED_REVISION,
        /** PD_Length exceeds 512 or the configured cap (§7.1.1 PD_Length, §7.1.2 rule 9). */
        PRIVATE_DATA_TOO_LONG,
        /** The stream ended inside a startup frame. */
        TRUNCATED_FRAME,
        /** No complete Request or Reply arrived in time (§7.1.2 rules 8 and 10). */
        TIMEOUT,
        /** The consumer did not accept or reject the Request in time. */
        ACCEPT_TIMEOUT,
        /** The peer requires Markers and this endpoint is configured to refuse them. */
        MARKERS_REFUSED,
        /** The responder's Reply carried R=1 (see {@link MpaRejectedException}). */
        REJECTED_BY_PEER,
        /** This endpoint's consumer rejected the Request; the Reply with R=1 was sent. */
        REJECTED_LOCALLY,
        /**
         * An enhanced frame (RFC 6581) without its IRD/ORD block, or an enhanced Request answered by a
         * Rev 2 Reply without the enhanced flag.
         */
        INVALID_ENHANCED_FRAME,
        /** The responder's ORD exceeds this initiator's IRD (RFC 6581 §5; Terminate 2/0/0x06). */
        INSUFFICIENT_IRD,
        /** Peer-to-peer mode found no RTR message both ends support (RFC 6581 §5; Terminate 2/0/0x07). */
        NO_MATCHING_RTR,
        /** The connection closed or failed before the startup completed. */
        CONNECTION_CLOSED
    }

    private final Reason reason;

    public MpaStartupException(Reason reason, String message) {
        super(message);
        this.reason = reason;
    }

    public MpaStartupException(Reason reason, String message, Throwable cause) {
        super(message, cause);
        this.reason = reason;
    }

    /** Why the startup failed. */
    public Reason reason() {
        return reason;
    }
}
