package io.softrdma.rpc;

/**
 * One entry of a Read list (RFC 8166 §4.1.2, {@code struct xdr_read_list}): an RDMA segment the responder
 * RDMA-Reads, and the XDR position in the RPC call where its data belongs. Position zero carries a whole RPC call
 * (a Long Call, with {@code RDMA_NOMSG}).
 *
 * @param position the XDR position, a multiple of 4
 * @param segment the requester's memory
 */
public record ReadSegment(int position, RdmaSegment segment) {
    /** Octets on the wire, after the discriminator. */
    public static final int LENGTH = 4 + RdmaSegment.LENGTH;
}
