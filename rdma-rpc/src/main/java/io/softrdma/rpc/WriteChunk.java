package io.softrdma.rpc;

import java.util.List;

/**
 * A Write chunk (RFC 8166 §4.1.2, {@code struct xdr_write_chunk}): RDMA segments of the requester's memory that the
 * responder RDMA-Writes a result data item (or, as the Reply chunk, a whole RPC reply) into, in order. In a reply
 * the responder echoes each chunk with each segment's length set to the octets it wrote there.
 *
 * @param segments the segments, at least one
 */
public record WriteChunk(List<RdmaSegment> segments) {
    public WriteChunk {
        segments = List.copyOf(segments);
        if (segments.isEmpty()) {
            throw new IllegalArgumentException("a Write chunk has at least one segment (RFC 8166 §4.1.2)");
        }
    }

    /** A chunk of one segment. */
    public static WriteChunk of(int handle, int length, long offset) {
        return new WriteChunk(List.of(new RdmaSegment(handle, length, offset)));
    }

    /** The octets of all segments: the chunk's capacity, or in an echo what was written. */
    public long length() {
        long n = 0;
        for (RdmaSegment s : segments) {
            n += s.unsignedLength();
        }
        return n;
    }
}
