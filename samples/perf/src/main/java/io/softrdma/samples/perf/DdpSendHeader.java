package io.softrdma.samples.perf;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;

/**
 * The 18-octet untagged DDP header of an RDMAP Send (RFC 5040 Appendix A.4), so that the demo's
 * ULPDUs are real iWARP Send segments: QN 0, MSN per message from 1, MO per segment, L on the last.
 */
final class DdpSendHeader {
    static final int LENGTH = 18;

    private DdpSendHeader() {
    }

    static ByteBuf allocate(ByteBufAllocator alloc, int msn, int mo, boolean last) {
        ByteBuf h = alloc.ioBuffer(LENGTH);
        h.writeByte(last ? 0x41 : 0x01); // T=0, L, DV=1
        h.writeByte(0x43); // RV=1, opcode 3: Send
        h.writeInt(0); // Invalidate STag (none)
        h.writeInt(0); // QN 0
        h.writeInt(msn);
        h.writeInt(mo);
        return h;
    }
}
