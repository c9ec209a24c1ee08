package io.softrdma.cm;

import java.util.Objects;

/**
 * What two peers' RFC 8797 exchange settles for one connection: the inline threshold in each direction
 * (RFC 8797 §4.2) and whether the responder may use RDMA Send with Invalidate (RFC 8797 §4.1). The settings hold
 * for the life of the connection; a reconnection exchanges them afresh (RFC 8797 §4).
 *
 * <p>The record is immutable and validated: the thresholds and the remote invalidation flag must be the ones
 * {@code local} and {@code peer} settle, so they cannot disagree with the blocks they came from.
 *
 * @param sendInlineThreshold the largest RPC-over-RDMA message, in octets, this side may transmit with one RDMA
 *        Send: the smaller of the local send size and the peer's receive size (RFC 8797 §4.2)
 * @param receiveInlineThreshold the largest Send, in octets, the peer may transmit to this side and have it
 *        accepted: the smaller of the local receive size and the peer's send size (RFC 8797 §4.2)
 * @param remoteInvalidation whether both blocks set R, so that the responder MAY use RDMA Send with Invalidate;
 *        when either side clears it, the responder MUST use only RDMA Send (RFC 8797 §4.1)
 * @param peerAdvertised whether a valid block was found in the peer's private data (RFC 8797 §5.2); if not,
 *        {@code peer} is {@link RpcRdmaPrivateData#defaults()} (RFC 8797 §5.1)
 * @param local the block this side sent, or the defaults if it sent none
 * @param peer the block the peer sent, or the defaults if it sent none
 */
public record RpcRdmaParameters(int sendInlineThreshold, int receiveInlineThreshold, boolean remoteInvalidation,
        boolean peerAdvertised, RpcRdmaPrivateData local, RpcRdmaPrivateData peer) {

    /**
     * Validates that every derived field is what {@code local} and {@code peer} settle (RFC 8797 §4.1, §4.2).
     *
     * @throws NullPointerException if {@code local} or {@code peer} is null
     * @throws IllegalArgumentException if a threshold or the remote invalidation flag disagrees with the two
     *         blocks, or the peer did not advertise a block but {@code peer} is not the defaults (RFC 8797 §5.1)
     */
    public RpcRdmaParameters {
        Objects.requireNonNull(local, "local");
        Objects.requireNonNull(peer, "peer");
        int send = Math.min(local.sendSize(), peer.receiveSize());
        if (sendInlineThreshold != send) {
            throw new IllegalArgumentException("sendInlineThreshold " + sendInlineThreshold + " must be " + send
                    + ", the smaller of the local send size and the peer's receive size (RFC 8797 §4.2)");
        }
        int receive = Math.min(local.receiveSize(), peer.sendSize());
        if (receiveInlineThreshold != receive) {
            throw new IllegalArgumentException("receiveInlineThreshold " + receiveInlineThreshold + " must be "
                    + receive + ", the smaller of the local receive size and the peer's send size (RFC 8797 §4.2)");
        }
        boolean invalidation = local.remoteInvalidation() && peer.remoteInvalidation();
        if (remoteInvalidation != invalidation) {
            throw new IllegalArgumentException("remoteInvalidation " + remoteInvalidation + " must be " + invalidation
                    + ": it holds only when both peers set R (RFC 8797 §4.1)");
        }
        if (!peerAdvertised && !peer.equals(RpcRdmaPrivateData.defaults())) {
            throw new IllegalArgumentException("a peer that advertised no block is taken to have sent the defaults,"
                    + " not " + peer + " (RFC 8797 §5.1)");
        }
    }

    /**
     * Settles the connection's parameters from the private data each side sent. Each is searched for a valid
     * block (RFC 8797 §5.2), and a side without one is taken to have sent {@link RpcRdmaPrivateData#defaults()}
     * (RFC 8797 §5.1). Then {@code sendInlineThreshold = min(local.sendSize, peer.receiveSize)},
     * {@code receiveInlineThreshold = min(local.receiveSize, peer.sendSize)} (RFC 8797 §4.2) and
     * {@code remoteInvalidation = local.R && peer.R} (RFC 8797 §4.1).
     *
     * @param localPrivateData the private data this side sent (its own block may be anywhere in it); {@code null}
     *        is taken as none
     * @param peerPrivateData the private data the peer sent, with the MPA revision 2 IRD/ORD block or without it;
     *        {@code null} is taken as none
     * @return the parameters
     */
    public static RpcRdmaParameters negotiate(byte[] localPrivateData, byte[] peerPrivateData) {
        RpcRdmaPrivateData local = RpcRdmaPrivateData.findOrDefaults(localPrivateData);
        var found = RpcRdmaPrivateData.find(peerPrivateData);
        RpcRdmaPrivateData peer = found.orElse(RpcRdmaPrivateData.defaults());
        return new RpcRdmaParameters(Math.min(local.sendSize(), peer.receiveSize()),
                Math.min(local.receiveSize(), peer.sendSize()),
                local.remoteInvalidation() && peer.remoteInvalidation(), found.isPresent(), local, peer);
    }
}
