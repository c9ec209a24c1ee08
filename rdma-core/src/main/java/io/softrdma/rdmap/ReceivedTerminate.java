package io.softrdma.rdmap;

import io.netty.buffer.ByteBufUtil;

/**
 * A Terminate the peer sent, as decoded by the queue pair (RFC 5040 §4.8; Linux siw 6.1's layout too).
 *
 * <p>Thread safety: immutable (header arrays are copied out).
 *
 * @param code the reading of the control word this codec believes (the RFC's layout, or siw 6.1's)
 * @param otherReading the control word read the other way (Layer and EType nibbles swapped)
 * @param siwLayout whether the control word was read in siw 6.1's little-endian bitfield layout
 * @param m HdrCt M: the DDP segment length is valid
 * @param d HdrCt D: a terminated DDP header is included
 * @param r HdrCt R: a terminated RDMA header is included
 * @param segmentLength the DDP segment length, or -1 when absent
 * @param ddpHeader the terminated DDP header, or empty
 * @param rdmaHeader the terminated RDMA (Read Request) header, or empty
 */
public record ReceivedTerminate(TerminateCode code, TerminateCode otherReading, boolean siwLayout, boolean m,
        boolean d, boolean r, int segmentLength, byte[] ddpHeader, byte[] rdmaHeader) {

    public ReceivedTerminate {
        ddpHeader = ddpHeader.clone();
        rdmaHeader = rdmaHeader.clone();
    }

    @Override
    public byte[] ddpHeader() {
        return ddpHeader.clone();
    }

    @Override
    public byte[] rdmaHeader() {
        return rdmaHeader.clone();
    }

    /** Whether the two readings of the control word name different errors. */
    public boolean ambiguous() {
        return !code.equals(otherReading);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ReceivedTerminate t && t.code.equals(code) && t.otherReading.equals(otherReading)
                && t.siwLayout == siwLayout && t.m == m && t.d == d && t.r == r && t.segmentLength == segmentLength
                && java.util.Arrays.equals(t.ddpHeader, ddpHeader) && java.util.Arrays.equals(t.rdmaHeader, rdmaHeader);
    }

    @Override
    public int hashCode() {
        return code.hashCode() * 31 + java.util.Arrays.hashCode(ddpHeader);
    }

    @Override
    public String toString() {
        return "Terminate " + code + (siwLayout ? " (read in Linux siw's byte order)" : "")
                + (ambiguous() ? "; read the other way: " + otherReading : "")
                + " M=" + (m ? 1 : 0) + " D=" + (d ? 1 : 0) + " R=" + (r ? 1 : 0)
                + (segmentLength >= 0 ? " segment length " + segmentLength : "")
                + (ddpHeader.length > 0 ? " DDP header " + ByteBufUtil.hexDump(ddpHeader) : "")
                + (rdmaHeader.length > 0 ? " RDMA header " + ByteBufUtil.hexDump(rdmaHeader) : "");
    }
}
