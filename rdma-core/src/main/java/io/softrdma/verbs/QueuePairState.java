package io.softrdma.verbs;

/**
 * The states of a queue pair (RFC 5040 §6, and the RDMA verbs the iWARP RNICs follow).
 *
 * <pre>
 *   IDLE ──connected──▶ RTS ──close()──▶ CLOSING ──stream closed──▶ ERROR
 *                        │                  │
 *                        └──protocol error or Terminate received──▶ TERMINATE ──stream closed──▶ ERROR
 *                        └──connection lost──────────────────────────────────────────────────▶ ERROR
 * </pre>
 *
 * <p>Thread safety: an enum, immutable.
 */
public enum QueuePairState {
    /** Created, not connected: receives may be posted, sends not yet. */
    IDLE,
    /** Ready to send: the stream is in RDMA mode. */
    RTS,
    /** Closing gracefully: no new work; what was posted is carried out, then the stream closes. */
    CLOSING,
    /** A Terminate was sent or received; the stream is being closed (RFC 5040 §6.2.1). */
    TERMINATE,
    /** The stream is gone; every outstanding work request was completed, flushed if not carried out. */
    ERROR
}
