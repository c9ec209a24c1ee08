package io.softrdma.mpa;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.softrdma.internal.mpa.FpduDecoder;
import io.softrdma.internal.mpa.FpduEncoder;
import io.softrdma.testing.Hex;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.CRC32C;

/**
 * Builds FPDU streams with the encoder, and checks them with an oracle written independently of the
 * codec: it removes every 4-octet chunk at a multiple of 512 (RFC 5044 §4.3), parses the rest as
 * FPDUs (§4.1), and checks each Marker's FPDUPTR and each CRC against that parse (§4.2, §4.4).
 */
final class FpduTestSupport {
    private FpduTestSupport() {
    }

    static byte[] encode(boolean crc, boolean markers, List<byte[]> ulpdus) {
        EmbeddedChannel ch = new EmbeddedChannel(new FpduEncoder(crc, markers, false));
        for (byte[] u : ulpdus) {
            ch.writeOutbound(Unpooled.wrappedBuffer(u));
        }
        byte[] wire = Hex.drainOutbound(ch);
        assertThat(ch.finish()).isFalse();
        return wire;
    }

    /** Checks the wire against the RFC's rules and returns the ULPDUs it carries. */
    static List<byte[]> oracleParse(byte[] wire, boolean crc, boolean markers) {
        // Map unmarked-stream indexes to wire indexes.
        int[] wireIndex = new int[wire.length];
        byte[] unmarked = new byte[wire.length];
        int u = 0;
        for (int w = 0; w < wire.length; ) {
            if (markers && w % 512 == 0) {
                w += 4;
                continue;
            }
            wireIndex[u] = w;
            unmarked[u++] = wire[w++];
        }
        List<byte[]> ulpdus = new ArrayList<>();
        List<int[]> fpdus = new ArrayList<>(); // wire start of length field, wire index of CRC
        int p = 0;
        while (p < u) {
            int len = ((unmarked[p] & 0xFF) << 8) | (unmarked[p + 1] & 0xFF);
            int pad = (4 - (2 + len) % 4) % 4;
            byte[] ulpdu = new byte[len];
            System.arraycopy(unmarked, p + 2, ulpdu, 0, len);
            ulpdus.add(ulpdu);
            for (int i = 0; i < pad; i++) {
                assertThat(unmarked[p + 2 + len + i]).as("PAD octet is zero (RFC 5044 §4.1)").isZero();
            }
            fpdus.add(new int[] {wireIndex[p], wireIndex[p + 2 + len + pad]});
            p += 2 + len + pad + 4;
        }
        assertThat(p).as("the stream ends on an FPDU boundary").isEqualTo(u);
        for (int k = 0; markers && k * 512 < wire.length; k++) {
            int m = k * 512;
            int pointer = ((wire[m + 2] & 0xFF) << 8) | (wire[m + 3] & 0xFF);
            assertThat(wire[m]).isZero();
            assertThat(wire[m + 1]).isZero();
            int expected = -1;
            for (int[] f : fpdus) {
                if (f[0] == m + 4) {
                    expected = 0; // between FPDUs: belongs to the next one
                } else if (f[0] < m && m < f[1] + 4) {
                    expected = m - f[0];
                }
            }
            assertThat(pointer).as("FPDUPTR of the Marker at stream octet %d (RFC 5044 §4.3)", m)
                    .isEqualTo(expected);
        }
        for (int[] f : fpdus) {
            int from = markers && f[0] >= 4 && (f[0] - 4) % 512 == 0 ? f[0] - 4 : f[0];
            int crcAt = f[1];
            CRC32C c = new CRC32C();
            c.update(wire, from, crcAt - from);
            int received = (wire[crcAt] & 0xFF) | (wire[crcAt + 1] & 0xFF) << 8 | (wire[crcAt + 2] & 0xFF) << 16
                    | (wire[crcAt + 3] & 0xFF) << 24;
            assertThat(received).as("CRC of the FPDU at %d (RFC 5044 §4.4)", f[0])
                    .isEqualTo(crc ? (int) c.getValue() : 0);
        }
        return ulpdus;
    }

    /** Feeds {@code wire} to a decoder in reads cut at {@code cuts} and returns what came out. */
    static List<byte[]> decode(byte[] wire, boolean crc, boolean markers, int... cuts) {
        EmbeddedChannel ch = new EmbeddedChannel(new FpduDecoder(crc, markers));
        int from = 0;
        for (int cut : cuts) {
            ch.writeInbound(Unpooled.wrappedBuffer(wire, from, cut - from));
            from = cut;
        }
        ch.writeInbound(Unpooled.wrappedBuffer(wire, from, wire.length - from));
        List<byte[]> out = new ArrayList<>();
        for (Object o; (o = ch.readInbound()) != null; ) {
            out.add(Hex.releaseToBytes((ByteBuf) o));
        }
        assertThat(ch.finish()).isFalse();
        return out;
    }

    static byte[] pattern(int length, int seed) {
        byte[] b = new byte[length];
        for (int i = 0; i < length; i++) {
            b[i] = (byte) (seed * 31 + i * 7);
        }
        return b;
    }

    static String hex(byte[] b) {
        return ByteBufUtil.hexDump(b);
    }
}
