package io.softrdma.rpc;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Objects;

/**
 * An ONC RPC credential or verifier (RFC 5531 §8.2, {@code opaque_auth}): a flavor and up to 400 octets of body.
 * {@link #none()} is AUTH_NONE; {@link #sys} builds AUTH_SYS (RFC 5531 Appendix A).
 *
 * <p>Thread safety: immutable (the body is copied in and out).
 *
 * @param flavor the auth flavor
 * @param body the opaque body
 */
public record RpcAuth(int flavor, byte[] body) {
    public static final int AUTH_NONE = 0;
    public static final int AUTH_SYS = 1;
    /** RFC 5531 §8.2: at most 400 octets of body. */
    public static final int MAX_BODY = 400;

    private static final RpcAuth NONE = new RpcAuth(AUTH_NONE, new byte[0]);

    public RpcAuth {
        body = Objects.requireNonNull(body, "body").clone();
        if (body.length > MAX_BODY) {
            throw new IllegalArgumentException("an auth body of " + body.length + " octets exceeds RFC 5531's 400");
        }
    }

    @Override
    public byte[] body() {
        return body.clone();
    }

    public static RpcAuth none() {
        return NONE;
    }

    /**
     * AUTH_SYS: {@code stamp}, {@code machineName} (at most 255 octets), {@code uid}, {@code gid} and at most 16
     * supplementary {@code gids}.
     */
    public static RpcAuth sys(int stamp, String machineName, int uid, int gid, int... gids) {
        byte[] machine = machineName.getBytes(StandardCharsets.UTF_8);
        if (machine.length > 255) {
            throw new IllegalArgumentException("AUTH_SYS machine name of " + machine.length + " octets exceeds 255");
        }
        if (gids.length > 16) {
            throw new IllegalArgumentException("AUTH_SYS carries at most 16 gids, not " + gids.length);
        }
        ByteBuf b = Unpooled.buffer();
        b.writeInt(stamp);
        Xdr.writeOpaque(b, machine);
        b.writeInt(uid);
        b.writeInt(gid);
        b.writeInt(gids.length);
        for (int g : gids) {
            b.writeInt(g);
        }
        byte[] body = new byte[b.readableBytes()];
        b.readBytes(body);
        return new RpcAuth(AUTH_SYS, body);
    }

    public int encodedLength() {
        return 8 + body.length + Xdr.pad(body.length);
    }

    public void encode(ByteBuf out) {
        out.writeInt(flavor);
        Xdr.writeOpaque(out, body);
    }

    public static RpcAuth decode(ByteBuf in, String what) {
        int flavor = Xdr.readInt(in, what + " flavor");
        return new RpcAuth(flavor, Xdr.readOpaque(in, MAX_BODY, what + " body"));
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof RpcAuth a && a.flavor == flavor && Arrays.equals(a.body, body);
    }

    @Override
    public int hashCode() {
        return 31 * flavor + Arrays.hashCode(body);
    }

    @Override
    public String toString() {
        return flavor == AUTH_NONE ? "AUTH_NONE" : flavor == AUTH_SYS ? "AUTH_SYS(" + body.length + " octets)"
                : "auth flavor " + flavor;
    }
}
