package io.softrdma.mpa;

/**
 * Peer-to-peer connection setup (RFC 6581 §4): which zero-length message may serve as the
 * ready-to-receive (RTR) message that lets the responder start sending.
 *
 * <p>An initiator offers the kinds named here ({@link #OFF}: it does not ask for peer-to-peer mode).
 * A responder accepts the kinds named here; {@link #OFF} and {@link #ANY} both accept whatever the
 * initiator offers, as Linux does, preferring a Write.
 */
public enum PeerToPeerMode {
    /** Initiator: no peer-to-peer mode. Responder: accept any offer. */
    OFF(true, true),
    /** A zero-length RDMA Write is the RTR message. */
    WRITE(true, false),
    /** A zero-length RDMA Read (Request and Response) is the RTR message. */
    READ(false, true),
    /** Either; Linux siw's {@code peer_to_peer=1} offers both. */
    ANY(true, true);

    private final boolean write;
    private final boolean read;

    PeerToPeerMode(boolean write, boolean read) {
        this.write = write;
        this.read = read;
    }

    /** Whether a zero-length Write is offered or accepted. */
    public boolean write() {
        return write;
    }

    /** Whether a zero-length Read is offered or accepted. */
    public boolean read() {
        return read;
    }
}
