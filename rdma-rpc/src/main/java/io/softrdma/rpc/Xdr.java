package io.softrdma.rpc;

import io.netty.buffer.ByteBuf;
import java.nio.charset.StandardCharsets;

/**
 * XDR (RFC 4506) primitives over a Netty buffer: big-endian 32- and 64-bit integers, and variable-length opaque
 * data and strings padded to a multiple of four octets with zeros.
 *
 * <p>Thread safety: stateless static methods.
 */
public final class Xdr {
    private Xdr() {
    }

    /** The zero octets that pad {@code length} octets to a multiple of 4 (RFC 4506 §4.10). */
    public static int pad(int length) {
        return -length & 3;
    }

    /** Writes a variable-length opaque: its length, the octets, and the padding. */
    public static void writeOpaque(ByteBuf out, byte[] data) {
        out.writeInt(data.length);
        out.writeBytes(data);
        out.writeZero(pad(data.length));
    }

    /** Writes a string as an opaque of its UTF-8 octets. */
    public static void writeString(ByteBuf out, String s) {
        writeOpaque(out, s.getBytes(StandardCharsets.UTF_8));
    }

    /**
     * Reads a variable-length opaque of at most {@code max} octets.
     *
     * @throws RpcRdmaProtocolException if it is longer than {@code max} or than what is left
     */
    public static byte[] readOpaque(ByteBuf in, int max, String what) {
        long length = readUnsignedInt(in, what + " length");
        if (length > max) {
            throw new RpcRdmaProtocolException(what + " of " + length + " octets exceeds its maximum of " + max);
        }
        int n = (int) length;
        // In long arithmetic: a length near 2^31 plus its padding must not wrap past the check.
        if (in.readableBytes() < length + pad(n)) {
            throw new RpcRdmaProtocolException("truncated: " + what + " needs " + (length + pad(n)) + " octets, "
                    + in.readableBytes() + " left");
        }
        byte[] b = new byte[n];
        in.readBytes(b);
        in.skipBytes(pad(n));
        return b;
    }

    /** Reads a 32-bit unsigned integer. */
    public static long readUnsignedInt(ByteBuf in, String what) {
        require(in, 4, what);
        return in.readUnsignedInt();
    }

    /** Reads a 32-bit integer. */
    public static int readInt(ByteBuf in, String what) {
        require(in, 4, what);
        return in.readInt();
    }

    /** Reads a 64-bit integer. */
    public static long readLong(ByteBuf in, String what) {
        require(in, 8, what);
        return in.readLong();
    }

    /** Reads an XDR bool: 0 or 1, anything else is malformed. */
    public static boolean readBoolean(ByteBuf in, String what) {
        int v = readInt(in, what);
        if (v != 0 && v != 1) {
            throw new RpcRdmaProtocolException(what + " is " + v + ", not an XDR bool (0 or 1)");
        }
        return v == 1;
    }

    static void require(ByteBuf in, int octets, String what) {
        if (in.readableBytes() < octets) {
            throw new RpcRdmaProtocolException("truncated: " + what + " needs " + octets + " octets, "
                    + in.readableBytes() + " left");
        }
    }
}
