package io.softrdma.rdmap;

import io.softrdma.internal.ddp.UntaggedHeaderCodec;
import io.softrdma.internal.rdmap.AtomicRequestCodec;
import io.softrdma.internal.rdmap.AtomicResponseCodec;
import io.softrdma.internal.rdmap.ImmediateDataCodec;
import io.softrdma.internal.rdmap.ReadRequestCodec;
import io.softrdma.internal.rdmap.TerminateCodec;

/**
 * RDMA message types, RFC 5040 §4.2 Figure 4 and Figure 5 and the four of RFC 7306 (Immediate Data, Immediate
 * Data with Solicited Event, Atomic Request, Atomic Response): the wire opcode, whether DDP tags it, the untagged
 * queue it uses, and the RDMAP header that follows the DDP header.
 *
 * <p>The RFC 7306 messages are all untagged and one segment each: Immediate Data on the Send queue (QN 0, it
 * consumes a posted receive), Atomic Request on the Read Request queue (QN 1, under ORD/IRD), Atomic Response on
 * its own queue (QN 3). A queue pair sends and accepts them only when both ends agreed to them at connection
 * setup ({@link RdmapExtensions}); otherwise they are reserved opcodes, as for Linux siw.
 *
 * <p>Thread safety: an enum, immutable.
 */
public enum RdmapOpcode {
    RDMA_WRITE(0x0, true, -1, 0),
    RDMA_READ_REQUEST(0x1, false, UntaggedHeaderCodec.QN_READ_REQUEST, ReadRequestCodec.LENGTH),
    RDMA_READ_RESPONSE(0x2, true, -1, 0),
    SEND(0x3, false, UntaggedHeaderCodec.QN_SEND, 0),
    SEND_WITH_INVALIDATE(0x4, false, UntaggedHeaderCodec.QN_SEND, 0),
    SEND_WITH_SE(0x5, false, UntaggedHeaderCodec.QN_SEND, 0),
    SEND_WITH_SE_AND_INVALIDATE(0x6, false, UntaggedHeaderCodec.QN_SEND, 0),
    TERMINATE(0x7, false, UntaggedHeaderCodec.QN_TERMINATE, TerminateCodec.CONTROL_LENGTH),
    IMMEDIATE_DATA(0x8, false, UntaggedHeaderCodec.QN_SEND, ImmediateDataCodec.LENGTH),
    IMMEDIATE_DATA_WITH_SE(0x9, false, UntaggedHeaderCodec.QN_SEND, ImmediateDataCodec.LENGTH),
    ATOMIC_REQUEST(0xA, false, UntaggedHeaderCodec.QN_READ_REQUEST, AtomicRequestCodec.LENGTH),
    ATOMIC_RESPONSE(0xB, false, UntaggedHeaderCodec.QN_ATOMIC_RESPONSE, AtomicResponseCodec.LENGTH);

    private static final RdmapOpcode[] BY_CODE = new RdmapOpcode[16];

    static {
        for (RdmapOpcode o : values()) {
            BY_CODE[o.code] = o;
        }
    }

    private final int code;
    private final boolean tagged;
    private final int queueNumber;
    private final int headerLength;

    RdmapOpcode(int code, boolean tagged, int queueNumber, int headerLength) {
        this.code = code;
        this.tagged = tagged;
        this.queueNumber = queueNumber;
        this.headerLength = headerLength;
    }

    /** The 4-bit opcode of the RDMAP control field. */
    public int code() {
        return code;
    }

    /** Whether the message uses DDP's Tagged Buffer Model (T = 1). */
    public boolean tagged() {
        return tagged;
    }

    /** The untagged queue number (QN), or -1 for tagged messages. */
    public int queueNumber() {
        return queueNumber;
    }

    /** Octets of RDMAP header after the DDP header (the minimum, for Terminate). */
    public int headerLength() {
        return headerLength;
    }

    /** Send, Send with Invalidate, Send with SE, Send with SE and Invalidate (RFC 5040 §5.3). */
    public boolean isSendType() {
        return code >= SEND.code && code <= SEND_WITH_SE_AND_INVALIDATE.code;
    }

    /** Immediate Data or Immediate Data with SE (RFC 7306). */
    public boolean isImmediateData() {
        return this == IMMEDIATE_DATA || this == IMMEDIATE_DATA_WITH_SE;
    }

    /** One of the four messages RFC 7306 adds (opcodes 0x8 to 0xB). */
    public boolean isExtension() {
        return code >= IMMEDIATE_DATA.code;
    }

    /** Send with Invalidate or Send with SE and Invalidate: the RsvdULP carries an STag to invalidate. */
    public boolean invalidates() {
        return this == SEND_WITH_INVALIDATE || this == SEND_WITH_SE_AND_INVALIDATE;
    }

    /** Send with SE, Send with SE and Invalidate, Immediate Data with SE: the receiver may raise a Solicited Event. */
    public boolean solicited() {
        return this == SEND_WITH_SE || this == SEND_WITH_SE_AND_INVALIDATE || this == IMMEDIATE_DATA_WITH_SE;
    }

    /** The opcode for a wire value, or null for a reserved one (12 to 15; 8 to 11 are RFC 7306's). */
    public static RdmapOpcode fromCode(int code) {
        return code >= 0 && code < BY_CODE.length ? BY_CODE[code] : null;
    }
}
