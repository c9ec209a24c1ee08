package io.softrdma.mpa;

import static io.softrdma.testing.Hex.bytes;
import static io.softrdma.testing.Hex.hex;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.softrdma.internal.mpa.MpaStartupFrameCodec;
import org.junit.jupiter.api.Test;

class MpaStartupFrameCodecTest {

    @Test
    void rfc5044Section7_1_1KeysAreTheAsciiOfMpaIdReqAndRepFrame() {
        assertThat(hex(MpaStartupFrameCodec.key(MpaStartupFrame.Type.REQUEST)))
                .isEqualTo("4d504120494420526571204672616d65");
        assertThat(hex(MpaStartupFrameCodec.key(MpaStartupFrame.Type.REPLY)))
                .isEqualTo("4d504120494420526570204672616d65");
    }

    @Test
    void rfc5044Section7_1_1EncodesEveryFieldAtItsOffset() {
        ByteBuf out = Unpooled.buffer();
        MpaStartupFrameCodec.encode(MpaStartupFrame.of(MpaStartupFrame.Type.REPLY, true, false, true, 0x10, 2,
                bytes("0a0b0c")), out);
        assertThat(hex(out)).isEqualTo("4d504120494420526570204672616d65" + "b0" + "02" + "0003" + "0a0b0c");
        assertThat(MpaStartupFrameCodec.flags(out, 0)).isEqualTo(0xB0);
        assertThat(MpaStartupFrameCodec.revision(out, 0)).isEqualTo(2);
        assertThat(MpaStartupFrameCodec.privateDataLength(out, 0)).isEqualTo(3);
        out.release();
    }

    @Test
    void decodesFlagsReservedBitsRevisionAndPrivateData() {
        ByteBuf in = Unpooled.wrappedBuffer(bytes("ff" + "4d504120494420526571204672616d65" + "5f" + "01" + "0002" + "cafe"));
        MpaStartupFrame f = MpaStartupFrameCodec.decode(in, 1, MpaStartupFrame.Type.REQUEST);
        assertThat(f.type()).isEqualTo(MpaStartupFrame.Type.REQUEST);
        assertThat(f.markers()).isFalse();
        assertThat(f.crc()).isTrue();
        assertThat(f.rejected()).isFalse();
        assertThat(f.reserved()).as("Res is carried, not checked (§7.1.1)").isEqualTo(0x1F);
        assertThat(f.revision()).isEqualTo(1);
        assertThat(f.privateData()).isEqualTo(bytes("cafe"));
        assertThat(in.readerIndex()).as("readers never move indexes").isZero();
    }

    @Test
    void keyMismatchIndexFindsTheFirstDifferingOctetOfAPartialKey() {
        ByteBuf in = Unpooled.wrappedBuffer("MPA ID Rep".getBytes(java.nio.charset.StandardCharsets.US_ASCII));
        assertThat(MpaStartupFrameCodec.keyMismatchIndex(in, 0, 10, MpaStartupFrame.Type.REPLY)).isEqualTo(-1);
        assertThat(MpaStartupFrameCodec.keyMismatchIndex(in, 0, 10, MpaStartupFrame.Type.REQUEST)).isEqualTo(9);
    }

    @Test
    void rfc5044Section7_1_1PrivateDataAbove512IsRefusedWhenBuildingAFrame() {
        assertThatThrownBy(() -> MpaStartupFrame.request(false, true, 1, new byte[513]))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("513 octets");
    }

    @Test
    void framesAreImmutableValues() {
        byte[] pd = bytes("01");
        MpaStartupFrame f = MpaStartupFrame.request(false, true, 1, pd);
        pd[0] = 9;
        assertThat(f.privateData()).isEqualTo(bytes("01"));
        f.privateData()[0] = 9;
        assertThat(f.privateData()).isEqualTo(bytes("01"));
        assertThat(f).isEqualTo(MpaStartupFrame.request(false, true, 1, bytes("01")));
        assertThat(f.toString()).contains("REQUEST").contains("C=1").contains("PD=01");
    }

    @Test
    void describeNamesEveryFieldOfAPartialOrCompleteFrame() {
        ByteBuf in = Unpooled.wrappedBuffer(bytes("4d504120494420526571204672616d65" + "c0010001" + "ee"));
        assertThat(MpaStartupFrameCodec.describe(in, 0))
                .isEqualTo("MPA startup frame {key=\"MPA ID Req Frame\" M=1 C=1 R=0 Res=0x0 Rev=1 PD_Length=1 PD=ee}");
        assertThat(MpaStartupFrameCodec.describe(in.slice(0, 3), 0)).contains("(3 of 20 header octets)");
    }
}
