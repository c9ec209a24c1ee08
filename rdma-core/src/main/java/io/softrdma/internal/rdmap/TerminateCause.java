package io.softrdma.internal.rdmap;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.softrdma.internal.ddp.TaggedHeaderCodec;
import io.softrdma.internal.ddp.UntaggedHeaderCodec;
import io.softrdma.rdmap.TerminateCode;
import java.util.Objects;

/**
 * Why this endpoint terminates a stream: the code, and the headers of the offending segment that RFC
 * 5040 §7.1 and Figure 10 ask the Terminate to carry back.
 *
 * <ul>
 *   <li>Errors not tied to an incoming message (local catastrophic, LLP errors such as a bad CRC):
 *       no headers (§7.1 rule 1).
 *   <li>Errors on an incoming Write, Send, or Read Response, and DDP errors: M and D, the DDP segment
 *       length and the segment's DDP header (§7.1 rule 2).
 *   <li>Errors on an incoming Read Request: M, D and R, with the Read Request header too (rule 3).
 * </ul>
 *
 * <p>Thread safety: immutable (the header arrays are never exposed).
 *
 * @param code Layer, Error Type and Error Code
 * @param segmentLength the DDP segment (ULPDU) length, valid when {@code hasSegment}
 * @param ddpHeader the offending segment's DDP header (14 or 18 octets), or empty
 * @param rdmaHeader the offending Read Request's header (28 octets), or empty
 * @param reason what was expected and what was received, for logs and the local consumer
 */
public record TerminateCause(TerminateCode code, int segmentLength, byte[] ddpHeader, byte[] rdmaHeader,
        String reason) {

    private static final byte[] NONE = new byte[0];

    public TerminateCause {
        Objects.requireNonNull(code, "code");
        Objects.requireNonNull(reason, "reason");
        ddpHeader = ddpHeader.clone();
        rdmaHeader = rdmaHeader.clone();
    }

    /** An error not associated with an incoming message (§7.1 rule 1): no headers. */
    public static TerminateCause withoutHeaders(TerminateCode code, String reason) {
        return new TerminateCause(code, 0, NONE, NONE, reason);
    }

    /**
     * An error on the incoming segment {@code ulpdu} (its readable octets): carries its length and DDP
     * header (M and D), and, when {@code includeReadRequest}, the Read Request header after it (R).
     */
    public static TerminateCause forSegment(TerminateCode code, ByteBuf ulpdu, boolean tagged,
            boolean includeReadRequest, String reason) {
        int start = ulpdu.readerIndex();
        int headerLength = tagged ? TaggedHeaderCodec.LENGTH : UntaggedHeaderCodec.LENGTH;
        byte[] ddp = new byte[Math.min(headerLength, ulpdu.readableBytes())];
        ulpdu.getBytes(start, ddp);
        byte[] rdma = NONE;
        if (includeReadRequest && ulpdu.readableBytes() >= headerLength + ReadRequestCodec.LENGTH) {
            rdma = new byte[ReadRequestCodec.LENGTH];
            ulpdu.getBytes(start + headerLength, rdma);
        }
        return new TerminateCause(code, ulpdu.readableBytes(), ddp, rdma, reason);
    }

    /** M: the DDP segment length is valid. */
    public boolean hasSegmentLength() {
        return ddpHeader.length > 0;
    }

    /** D: the Terminated DDP Header is included. */
    public boolean hasDdpHeader() {
        return ddpHeader.length > 0;
    }

    /** R: the Terminated RDMA Header is included. */
    public boolean hasRdmaHeader() {
        return rdmaHeader.length > 0;
    }

    @Override
    public byte[] ddpHeader() {
        return ddpHeader.clone();
    }

    @Override
    public byte[] rdmaHeader() {
        return rdmaHeader.clone();
    }

    byte[] ddpHeaderUnsafe() {
        return ddpHeader;
    }

    byte[] rdmaHeaderUnsafe() {
        return rdmaHeader;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof TerminateCause c && c.code.equals(code) && c.segmentLength == segmentLength
                && java.util.Arrays.equals(c.ddpHeader, ddpHeader) && java.util.Arrays.equals(c.rdmaHeader, rdmaHeader)
                && c.reason.equals(reason);
    }

    @Override
    public int hashCode() {
        return Objects.hash(code, segmentLength, reason) * 31 + java.util.Arrays.hashCode(ddpHeader);
    }

    @Override
    public String toString() {
        return code + ": " + reason + (hasDdpHeader() ? " [segment length " + segmentLength + ", DDP header "
                + ByteBufUtil.hexDump(ddpHeader) + "]" : "")
                + (hasRdmaHeader() ? " [RDMA header " + ByteBufUtil.hexDump(rdmaHeader) + "]" : "");
    }
}
