package io.softrdma.internal.mpa;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.softrdma.mpa.MpaStartupFrame;
import java.nio.charset.StandardCharsets;

/**
 * Wire format of the MPA Request and Reply frames, RFC 5044 §7.1.1 (Figure 8):
 *
 * <pre>
 *     0                   1                   2                   3
 *     0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *    +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  0 |                                                               |
 *    +         Key (16 bytes containing "MPA ID Req Frame")          +
 *  4 |       (4D 50 41 20 49 44 20 52 65 71 20 46 72 61 6D 65)       |
 *    +         Or  (16 bytes containing "MPA ID Rep Frame")          +
 *  8 |       (4D 50 41 20 49 44 20 52 65 70 20 46 72 61 6D 65)       |
 *    +                                                               +
 * 12 |                                                               |
 *    +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * 16 |M|C|R| Res     |     Rev       |          PD_Length            |
 *    +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *    ~                         Private Data                          ~
 * </pre>
 *
 * <p>Readers take a buffer and an absolute offset and never move the buffer's indexes.
 *
 * <p>Thread safety: stateless static methods.
 */
public final class MpaStartupFrameCodec {
    /** "MPA ID Req Frame", RFC 5044 §7.1.1 Key. */
    static final byte[] REQUEST_KEY = "MPA ID Req Frame".getBytes(StandardCharsets.US_ASCII);
    /** "MPA ID Rep Frame", RFC 5044 §7.1.1 Key. */
    static final byte[] REPLY_KEY = "MPA ID Rep Frame".getBytes(StandardCharsets.US_ASCII);

    public static final int KEY_OFFSET = 0;
    public static final int KEY_LENGTH = 16;
    public static final int FLAGS_OFFSET = 16;
    public static final int REV_OFFSET = 17;
    public static final int PD_LENGTH_OFFSET = 18;
    /** Octets before the private data. */
    public static final int HEADER_LENGTH = 20;

    /** §7.1.1 M: Markers required in the other direction. */
    public static final int FLAG_M = 0x80;
    /** §7.1.1 C: CRC preferred. */
    public static final int FLAG_C = 0x40;
    /** §7.1.1 R: connection rejected (Reply only). */
    public static final int FLAG_R = 0x20;
    /**
     * RFC 6581 §5 as Linux marks it: the first of the Res bits says an IRD/ORD block leads the private
     * data (Linux MPA_RR_FLAG_ENHANCED; meaningful with Rev 2 only).
     */
    public static final int FLAG_ENHANCED = 0x10;
    /** §7.1.1 Res: reserved, sent as zero, not checked. */
    public static final int RES_MASK = 0x1F;

    /** §7.1.1 Private Data: "MUST be between 0 and 512 octets in length". */
    public static final int MAX_PRIVATE_DATA_LENGTH = 512;

    private MpaStartupFrameCodec() {
    }

    /** The key a frame of this type starts with. */
    public static byte[] key(MpaStartupFrame.Type type) {
        return (type == MpaStartupFrame.Type.REQUEST ? REQUEST_KEY : REPLY_KEY).clone();
    }

    static byte[] keyUnsafe(MpaStartupFrame.Type type) {
        return type == MpaStartupFrame.Type.REQUEST ? REQUEST_KEY : REPLY_KEY;
    }

    /** Appends the frame to {@code out}. */
    public static void encode(MpaStartupFrame frame, ByteBuf out) {
        out.writeBytes(keyUnsafe(frame.type()));
        int flags = (frame.markers() ? FLAG_M : 0) | (frame.crc() ? FLAG_C : 0) | (frame.rejected() ? FLAG_R : 0)
                | frame.reserved();
        out.writeByte(flags);
        out.writeByte(frame.revision());
        out.writeShort(frame.privateDataLength());
        out.writeBytes(frame.privateData()); // a copy: once per connection
    }

    /**
     * Compares the first {@code available} octets of a key (at most 16) with the expected key.
     *
     * @return the index of the first octet that differs, or -1 if the octets so far match
     */
    public static int keyMismatchIndex(ByteBuf buf, int offset, int available, MpaStartupFrame.Type expected) {
        byte[] key = keyUnsafe(expected);
        int n = Math.min(available, KEY_LENGTH);
        for (int i = 0; i < n; i++) {
            if (buf.getByte(offset + KEY_OFFSET + i) != key[i]) {
                return i;
            }
        }
        return -1;
    }

    public static int flags(ByteBuf buf, int offset) {
        return buf.getUnsignedByte(offset + FLAGS_OFFSET);
    }

    public static int revision(ByteBuf buf, int offset) {
        return buf.getUnsignedByte(offset + REV_OFFSET);
    }

    public static int privateDataLength(ByteBuf buf, int offset) {
        return buf.getUnsignedShort(offset + PD_LENGTH_OFFSET);
    }

    /**
     * Decodes a complete frame whose key has already been checked against {@code type}.
     * The caller has made sure {@code HEADER_LENGTH + privateDataLength} octets are readable.
     */
    public static MpaStartupFrame decode(ByteBuf buf, int offset, MpaStartupFrame.Type type) {
        int flags = flags(buf, offset);
        int pdLength = privateDataLength(buf, offset);
        byte[] pd = new byte[pdLength];
        buf.getBytes(offset + HEADER_LENGTH, pd);
        return MpaStartupFrame.of(type, (flags & FLAG_M) != 0, (flags & FLAG_C) != 0, (flags & FLAG_R) != 0,
                flags & RES_MASK, revision(buf, offset), pd);
    }

    /** Names every field of the (possibly partial) frame at {@code offset}, for logs and failing tests. */
    public static String describe(ByteBuf buf, int offset) {
        int readable = buf.writerIndex() - offset;
        StringBuilder sb = new StringBuilder("MPA startup frame {");
        int keyLen = Math.min(readable, KEY_LENGTH);
        sb.append("key=\"");
        for (int i = 0; i < keyLen; i++) {
            int c = buf.getUnsignedByte(offset + i);
            sb.append(c >= 0x20 && c < 0x7F ? (char) c : '.');
        }
        sb.append('"');
        if (readable >= HEADER_LENGTH) {
            int flags = flags(buf, offset);
            sb.append(" M=").append((flags & FLAG_M) != 0 ? 1 : 0)
                    .append(" C=").append((flags & FLAG_C) != 0 ? 1 : 0)
                    .append(" R=").append((flags & FLAG_R) != 0 ? 1 : 0)
                    .append(" Res=0x").append(Integer.toHexString(flags & RES_MASK))
                    .append(" Rev=").append(revision(buf, offset))
                    .append(" PD_Length=").append(privateDataLength(buf, offset));
            int pd = Math.min(readable - HEADER_LENGTH, privateDataLength(buf, offset));
            if (pd > 0) {
                sb.append(" PD=").append(ByteBufUtil.hexDump(buf, offset + HEADER_LENGTH, Math.min(pd, 64)));
            }
        } else {
            sb.append(" (").append(readable).append(" of ").append(HEADER_LENGTH).append(" header octets)");
        }
        return sb.append('}').toString();
    }
}
