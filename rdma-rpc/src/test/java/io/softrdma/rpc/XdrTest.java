package io.softrdma.rpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.softrdma.testing.Hex;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** XDR primitives (RFC 4506) over Netty buffers. */
class XdrTest {

    private static ByteBuf words(int... w) {
        ByteBuf b = Unpooled.buffer(4 * w.length);
        for (int x : w) {
            b.writeInt(x);
        }
        return b;
    }

    @Test
    void rfc4506Section4_10PadFillsToAMultipleOfFour() {
        for (int n = 0; n <= 7; n++) {
            assertThat(Xdr.pad(n)).as("pad(%d)", n).isEqualTo(new int[] {0, 3, 2, 1, 0, 3, 2, 1}[n]);
            assertThat((n + Xdr.pad(n)) % 4).isZero();
        }
        assertThat(Xdr.pad(400)).isZero();
        assertThat(Xdr.pad(401)).isEqualTo(3);
        assertThat(Xdr.pad(Integer.MAX_VALUE)).isEqualTo(1);
    }

    @ParameterizedTest(name = "{0} octets")
    @ValueSource(ints = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 255, 256, 400})
    void rfc4506Section4_10AnOpaqueRoundTripsWithZeroPadding(int n) {
        byte[] data = new byte[n];
        for (int i = 0; i < n; i++) {
            data[i] = (byte) (0xa0 + i);
        }
        ByteBuf b = Unpooled.buffer();
        Xdr.writeOpaque(b, data);
        int padded = (n + 3) / 4 * 4;
        assertThat(b.readableBytes()).isEqualTo(4 + padded).isEqualTo(4 + n + Xdr.pad(n));
        assertThat(b.getInt(0)).isEqualTo(n);
        for (int i = 4 + n; i < 4 + padded; i++) {
            assertThat(b.getByte(i)).as("pad octet %d", i).isZero();
        }
        b.writeInt(0x12345678); // what follows
        assertThat(Xdr.readOpaque(b, 400, "opaque")).isEqualTo(data);
        assertThat(b.readableBytes()).as("the padding is consumed").isEqualTo(4);
        assertThat(b.readInt()).isEqualTo(0x12345678);
    }

    @Test
    void rfc4506Section4_10TheWireLayoutOfAnOpaqueIsLengthDataPad() {
        ByteBuf b = Unpooled.buffer();
        Xdr.writeOpaque(b, new byte[] {1, 2, 3, 4, 5});
        assertThat(ByteBufUtil.hexDump(b)).isEqualTo("00000005" + "0102030405000000");
    }

    @Test
    void rfc4506Section4_11AStringIsAnOpaqueOfItsUtf8Octets() {
        ByteBuf b = Unpooled.buffer();
        Xdr.writeString(b, "siwhost");
        assertThat(ByteBufUtil.hexDump(b)).isEqualTo("00000007" + "736977686f737400");
        ByteBuf u = Unpooled.buffer();
        Xdr.writeString(u, "\u00e9");
        assertThat(ByteBufUtil.hexDump(u)).isEqualTo("00000002" + "c3a90000");
        assertThat(new String(Xdr.readOpaque(u, 255, "name"), StandardCharsets.UTF_8)).isEqualTo("\u00e9");
    }

    @Test
    void anOpaqueLongerThanItsMaximumIsRejected() {
        ByteBuf ok = Unpooled.buffer();
        Xdr.writeOpaque(ok, new byte[16]);
        assertThat(Xdr.readOpaque(ok, 16, "x")).hasSize(16);

        ByteBuf over = Unpooled.buffer();
        Xdr.writeOpaque(over, new byte[17]);
        assertThatThrownBy(() -> Xdr.readOpaque(over, 16, "machine name"))
                .isInstanceOf(RpcRdmaProtocolException.class)
                .hasMessage("machine name of 17 octets exceeds its maximum of 16");
        assertThatThrownBy(() -> Xdr.readOpaque(words(0xffffffff), Integer.MAX_VALUE, "x"))
                .isInstanceOf(RpcRdmaProtocolException.class)
                .hasMessage("x of 4294967295 octets exceeds its maximum of 2147483647");
    }

    @Test
    void anOpaqueLengthNearTwoGibibytesIsATruncationNotAnAllocation() {
        // Only four octets follow the length word, so the length can only be a truncation; in int arithmetic
        // 0x7fffffff plus its padding wrapped to Integer.MIN_VALUE and slipped past the check.
        ByteBuf in = words(0x7fffffff, 0);
        assertThatThrownBy(() -> Xdr.readOpaque(in, Integer.MAX_VALUE, "blob"))
                .isInstanceOf(RpcRdmaProtocolException.class)
                .hasMessageStartingWith("truncated: blob");
    }

    @Test
    void anOpaqueCutInItsDataOrItsPaddingIsRejected() {
        byte[] full = Hex.bytes("00000005 0102030405000000");
        for (int n = 0; n < full.length; n++) {
            ByteBuf cut = Unpooled.wrappedBuffer(full, 0, n);
            int len = n;
            assertThatThrownBy(() -> Xdr.readOpaque(cut, 400, "verf body")).as("%d octets", len)
                    .isInstanceOf(RpcRdmaProtocolException.class)
                    .hasMessageStartingWith("truncated: verf body");
        }
        assertThatThrownBy(() -> Xdr.readOpaque(Unpooled.wrappedBuffer(full, 0, 10), 400, "verf body"))
                .hasMessage("truncated: verf body needs 8 octets, 6 left");
        assertThatThrownBy(() -> Xdr.readOpaque(Unpooled.wrappedBuffer(full, 0, 2), 400, "verf body"))
                .hasMessage("truncated: verf body length needs 4 octets, 2 left");
    }

    @Test
    void rfc4506Section4_1IntegersAreBigEndianAndUnsignedWhereAsked() {
        ByteBuf b = Hex.buf("ffffffff ffffffff 01020304 0506070809 0a0b0c");
        assertThat(Xdr.readUnsignedInt(b, "u")).isEqualTo(4294967295L);
        assertThat(Xdr.readInt(b, "i")).isEqualTo(-1);
        assertThat(Xdr.readLong(b, "l")).isEqualTo(0x0102030405060708L);
        assertThat(b.readableBytes()).isEqualTo(4);
        assertThatThrownBy(() -> Xdr.readLong(b, "offset")).isInstanceOf(RpcRdmaProtocolException.class)
                .hasMessage("truncated: offset needs 8 octets, 4 left");
        assertThat(b.readableBytes()).as("nothing consumed by a failed read").isEqualTo(4);
        ByteBuf three = Hex.buf("000000");
        assertThatThrownBy(() -> Xdr.readInt(three, "xid")).isInstanceOf(RpcRdmaProtocolException.class)
                .hasMessage("truncated: xid needs 4 octets, 3 left");
        assertThatThrownBy(() -> Xdr.readUnsignedInt(three, "count")).isInstanceOf(RpcRdmaProtocolException.class)
                .hasMessage("truncated: count needs 4 octets, 3 left");
    }

    @Test
    void rfc4506Section4_4ABoolIsZeroOrOne() {
        ByteBuf b = words(0, 1);
        assertThat(Xdr.readBoolean(b, "flag")).isFalse();
        assertThat(Xdr.readBoolean(b, "flag")).isTrue();
        for (int v : new int[] {2, -1, 0x100, 0x01000000, Integer.MIN_VALUE}) {
            assertThatThrownBy(() -> Xdr.readBoolean(words(v), "flag")).isInstanceOf(RpcRdmaProtocolException.class)
                    .hasMessage("flag is " + v + ", not an XDR bool (0 or 1)");
        }
        assertThatThrownBy(() -> Xdr.readBoolean(Unpooled.buffer(0), "flag"))
                .isInstanceOf(RpcRdmaProtocolException.class).hasMessage("truncated: flag needs 4 octets, 0 left");
    }
}
