package io.softrdma.samples.rping;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.util.HexFormat;
import org.junit.jupiter.api.Test;

/** The 16-octet rping_rdma_info, against the bytes Linux rping sent in the siw capture. */
class RpingInfoTest {
    /**
     * The payload of the rping client's first Send ("First FPDU from the rping client",
     * /work/shared/interop/siw-vm/README.md): its start buffer at 0x000055c794009370, STag 0x90236100,
     * 64 octets.
     */
    private static final byte[] SIW_READ_ADV = HexFormat.ofDelimiter(" ").parseHex(
            "00 00 55 c7 94 00 93 70 90 23 61 00 00 00 00 40");

    @Test
    void decodesTheCapturedAdvertisement() {
        RpingInfo info = RpingInfo.decode(SIW_READ_ADV);
        assertThat(info.buf()).isEqualTo(0x0000_55c7_9400_9370L);
        assertThat(info.rkey()).isEqualTo(0x90236100);
        assertThat(info.size()).isEqualTo(64);
        assertThat(info).hasToString("buf=0x000055c794009370 rkey=0x90236100 size=64");
    }

    @Test
    void encodesTheSameOctets() {
        RpingInfo info = new RpingInfo(0x0000_55c7_9400_9370L, 0x90236100, 64);
        assertThat(info.encode()).containsExactly(SIW_READ_ADV);
        ByteBuf buf = Unpooled.buffer(20);
        try {
            buf.writerIndex(20);
            info.encode(buf, 2);
            byte[] out = new byte[16];
            buf.getBytes(2, out);
            assertThat(out).containsExactly(SIW_READ_ADV);
            assertThat(RpingInfo.decode(buf, 2)).isEqualTo(info);
            assertThat(buf.readerIndex()).as("indices untouched").isZero();
        } finally {
            buf.release();
        }
    }

    @Test
    void goAheadIsSixteenZeros() {
        assertThat(RpingInfo.GO_AHEAD.encode()).containsExactly(new byte[16]);
    }

    @Test
    void highBitsSurviveTheRoundTrip() {
        RpingInfo info = new RpingInfo(0xFFFF_8000_0000_0001L, 0xFFFFFFFF, -1);
        assertThat(RpingInfo.decode(info.encode())).isEqualTo(info);
        assertThat(info.unsignedSize()).isEqualTo(0xFFFF_FFFFL);
    }

    @Test
    void onlySixteenOctetsAreAnInfo() {
        assertThatThrownBy(() -> RpingInfo.decode(new byte[15])).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("16");
    }
}
