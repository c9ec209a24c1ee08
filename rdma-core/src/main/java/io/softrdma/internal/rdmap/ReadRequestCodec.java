package io.softrdma.internal.rdmap;

import io.netty.buffer.ByteBuf;

/**
 * The RDMA Read Request header, RFC 5040 §4.4 Figure 6, which follows the untagged DDP header:
 *
 * <pre>
 *     0                   1                   2                   3
 *     0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *    +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  0 |                   Data Sink STag (SinkSTag)                   |
 *    +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  4 +               Data Sink Tagged Offset (SinkTO)                +
 *    +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * 12 |                RDMA Read Message Size (RDMARDSZ)              |
 *    +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * 16 |                  Data Source STag (SrcSTag)                   |
 *    +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * 20 +              Data Source Tagged Offset (SrcTO)                +
 *    +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * </pre>
 *
 * <p>Thread safety: stateless static methods.
 */
public final class ReadRequestCodec {
    public static final int SINK_STAG_OFFSET = 0;
    public static final int SINK_TO_OFFSET = 4;
    public static final int SIZE_OFFSET = 12;
    public static final int SOURCE_STAG_OFFSET = 16;
    public static final int SOURCE_TO_OFFSET = 20;
    /** §4.4: 224 bits, as the Terminated RDMA Header of §4.8. */
    public static final int LENGTH = 28;

    private ReadRequestCodec() {
    }

    public static int sinkStag(ByteBuf buf, int offset) {
        return buf.getInt(offset + SINK_STAG_OFFSET);
    }

    public static long sinkTaggedOffset(ByteBuf buf, int offset) {
        return buf.getLong(offset + SINK_TO_OFFSET);
    }

    /** RDMARDSZ, 0 to 2^32-1 octets. */
    public static long size(ByteBuf buf, int offset) {
        return buf.getUnsignedInt(offset + SIZE_OFFSET);
    }

    public static int sourceStag(ByteBuf buf, int offset) {
        return buf.getInt(offset + SOURCE_STAG_OFFSET);
    }

    public static long sourceTaggedOffset(ByteBuf buf, int offset) {
        return buf.getLong(offset + SOURCE_TO_OFFSET);
    }

    public static void write(ByteBuf out, int sinkStag, long sinkTaggedOffset, int size, int sourceStag,
            long sourceTaggedOffset) {
        out.writeInt(sinkStag);
        out.writeLong(sinkTaggedOffset);
        out.writeInt(size);
        out.writeInt(sourceStag);
        out.writeLong(sourceTaggedOffset);
    }

    /** Names every field, for logs and failing tests. */
    public static String describe(ByteBuf buf, int offset) {
        return String.format("read request {SinkSTag=0x%08x SinkTO=0x%x RDMARDSZ=%d SrcSTag=0x%08x SrcTO=0x%x}",
                sinkStag(buf, offset), sinkTaggedOffset(buf, offset), size(buf, offset), sourceStag(buf, offset),
                sourceTaggedOffset(buf, offset));
    }
}
