package io.softrdma.testing;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import java.util.HexFormat;

/** Test helpers for byte vectors and for draining an {@link EmbeddedChannel}. */
public final class Hex {
    private Hex() {
    }

    /** Bytes from hex digits; spaces, newlines and {@code |} are ignored. */
    public static byte[] bytes(String hex) {
        return HexFormat.of().parseHex(hex.replaceAll("[\\s|]", ""));
    }

    public static ByteBuf buf(String hex) {
        return Unpooled.wrappedBuffer(bytes(hex));
    }

    public static String hex(byte[] b) {
        return HexFormat.of().formatHex(b);
    }

    public static String hex(ByteBuf b) {
        return ByteBufUtil.hexDump(b);
    }

    /** Every outbound buffer of the channel concatenated, the buffers released. */
    public static byte[] drainOutbound(EmbeddedChannel ch) {
        ByteBuf all = Unpooled.buffer();
        for (Object o; (o = ch.readOutbound()) != null; ) {
            ByteBuf b = (ByteBuf) o;
            all.writeBytes(b, b.readerIndex(), b.readableBytes());
            b.release();
        }
        return ByteBufUtil.getBytes(all);
    }

    /** The readable bytes of a buffer, which is released. */
    public static byte[] releaseToBytes(ByteBuf b) {
        try {
            return ByteBufUtil.getBytes(b);
        } finally {
            b.release();
        }
    }
}
