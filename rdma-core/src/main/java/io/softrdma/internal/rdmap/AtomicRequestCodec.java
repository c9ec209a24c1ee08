package io.softrdma.internal.rdmap;

import io.netty.buffer.ByteBuf;
import io.softrdma.rdmap.AtomicOperation;

/**
 * The Atomic Request header (RFC 7306 §5.2.1; RDMAP opcode 0xA, untagged, on the Read Request queue QN 1), which
 * follows the untagged DDP header: 52 octets.
 *
 * <pre>
 *     0                   1                   2                   3
 *     0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *    +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  0 |                   Reserved (28 bits)                  |AtomicOp|
 *    +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  4 |                      Request Identifier                       |
 *    +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  8 |                         Remote STag                           |
 *    +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * 12 +                  Remote Tagged Offset (64)                    +
 *    +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * 20 +                   Add or Swap Data (64)                       +
 *    +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * 28 +                   Add or Swap Mask (64)                       +
 *    +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * 36 +                     Compare Data (64)                         +
 *    +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * 44 +                     Compare Mask (64)                         +
 *    +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * </pre>
 *
 * <p>Thread safety: stateless static methods.
 */
public final class AtomicRequestCodec {
    public static final int OPCODE_OFFSET = 0;
    public static final int REQUEST_ID_OFFSET = 4;
    public static final int STAG_OFFSET = 8;
    public static final int TO_OFFSET = 12;
    public static final int ADD_OR_SWAP_DATA_OFFSET = 20;
    public static final int ADD_OR_SWAP_MASK_OFFSET = 28;
    public static final int COMPARE_DATA_OFFSET = 36;
    public static final int COMPARE_MASK_OFFSET = 44;
    public static final int LENGTH = 52;
    /** The operand is one 64-bit word, naturally aligned: its Remote TO is a multiple of 8. */
    public static final int OPERAND_LENGTH = 8;

    private AtomicRequestCodec() {
    }

    /** The AtomicOp field's value (the low 4 bits of the first word). */
    public static int atomicOpcode(ByteBuf buf, int offset) {
        return buf.getInt(offset + OPCODE_OFFSET) & 0xF;
    }

    /** The 28 reserved bits before AtomicOp: sent as zero, ignored on receipt. */
    public static int reserved(ByteBuf buf, int offset) {
        return buf.getInt(offset + OPCODE_OFFSET) >>> 4;
    }

    public static int requestId(ByteBuf buf, int offset) {
        return buf.getInt(offset + REQUEST_ID_OFFSET);
    }

    public static int remoteStag(ByteBuf buf, int offset) {
        return buf.getInt(offset + STAG_OFFSET);
    }

    public static long remoteTaggedOffset(ByteBuf buf, int offset) {
        return buf.getLong(offset + TO_OFFSET);
    }

    public static long addOrSwapData(ByteBuf buf, int offset) {
        return buf.getLong(offset + ADD_OR_SWAP_DATA_OFFSET);
    }

    public static long addOrSwapMask(ByteBuf buf, int offset) {
        return buf.getLong(offset + ADD_OR_SWAP_MASK_OFFSET);
    }

    public static long compareData(ByteBuf buf, int offset) {
        return buf.getLong(offset + COMPARE_DATA_OFFSET);
    }

    public static long compareMask(ByteBuf buf, int offset) {
        return buf.getLong(offset + COMPARE_MASK_OFFSET);
    }

    public static void write(ByteBuf out, AtomicOperation op, int requestId, int remoteStag, long remoteTaggedOffset,
            long addOrSwapData, long addOrSwapMask, long compareData, long compareMask) {
        out.writeInt(op.code());
        out.writeInt(requestId);
        out.writeInt(remoteStag);
        out.writeLong(remoteTaggedOffset);
        out.writeLong(addOrSwapData);
        out.writeLong(addOrSwapMask);
        out.writeLong(compareData);
        out.writeLong(compareMask);
    }

    /** Names every field, for logs and failing tests. */
    public static String describe(ByteBuf buf, int offset) {
        return String.format("atomic request {AtomicOp=%d ReqId=%d STag=0x%08x TO=0x%x AddSwapData=0x%x"
                + " AddSwapMask=0x%x CompareData=0x%x CompareMask=0x%x}", atomicOpcode(buf, offset),
                Integer.toUnsignedLong(requestId(buf, offset)), remoteStag(buf, offset),
                remoteTaggedOffset(buf, offset), addOrSwapData(buf, offset), addOrSwapMask(buf, offset),
                compareData(buf, offset), compareMask(buf, offset));
    }
}
