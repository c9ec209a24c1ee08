package io.softrdma.mpa;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.buffer.Unpooled;
import io.softrdma.internal.mpa.FpduCodec;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class FpduCodecTest {

    @ParameterizedTest(name = "EMSS {0}: MULPDU {1} without Markers, {2} with")
    @CsvSource({
        // EMSS - (6 + EMSS mod 4); EMSS - (6 + 4 * ceil(EMSS / 512) + EMSS mod 4)
        "1460, 1454, 1442",
        "1448, 1442, 1430",
        "1461, 1454, 1442",
        "9000, 8994, 8922",
        "536, 530, 522",
        // kept within [128, 64768] (RFC 5044 §3, §4.5)
        "100, 128, 128",
        "65483, 64768, 64768",
    })
    void rfc5044Section4_5MulpduFromEmss(int emss, int plain, int withMarkers) {
        assertThat(FpduCodec.mulpdu(emss, false)).isEqualTo(plain);
        assertThat(FpduCodec.mulpdu(emss, true)).isEqualTo(withMarkers);
    }

    @Test
    void rfc5044Section4_1FpduLengthAddsSixOctetsAndPad() {
        assertThat(FpduCodec.fpduLength(0)).isEqualTo(8);
        assertThat(FpduCodec.fpduLength(2)).isEqualTo(8);
        assertThat(FpduCodec.fpduLength(3)).isEqualTo(12);
        assertThat(FpduCodec.padLength(42)).isZero();
        assertThat(FpduCodec.padLength(43)).isEqualTo(3);
    }

    @Test
    void rfc5044Section4_2MarkerPointerIgnoresItsLowTwoBits() {
        assertThat(FpduCodec.markerFpduPointer(Unpooled.wrappedBuffer(new byte[] {0, 0, 0x01, (byte) 0xFF}), 0))
                .isEqualTo(0x1FC);
    }

    @Test
    void llpErrorCodesCarryTheirWireValues() {
        assertThat(LlpErrorCode.CRC_ERROR.code()).isEqualTo(2);
        assertThat(LlpErrorCode.fromCode(3)).isEqualTo(LlpErrorCode.MARKER_AND_ULPDU_LENGTH_MISMATCH);
        assertThat(LlpErrorCode.fromCode(7)).isEqualTo(LlpErrorCode.NO_MATCHING_RTR);
        assertThatThrownBy(() -> LlpErrorCode.fromCode(8)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> LlpErrorCode.fromCode(0)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void describeShowsLengthPadAndCrcs() {
        byte[] wire = FpduTestSupport.encode(true, false, java.util.List.of(new byte[] {1, 2, 3}));
        String d = FpduCodec.describe(Unpooled.wrappedBuffer(wire), 0);
        assertThat(d).startsWith("FPDU {ULPDU_Length=3 PAD=3 CRC(le)=0x").contains("ULPDU=010203");
    }

    @Test
    void settingsAreValidatedWithMessagesThatSayWhatToFix() {
        assertThatThrownBy(() -> MpaSettings.defaults().withMaxPrivateDataLength(513))
                .hasMessageContaining("maxPrivateDataLength 513 is outside 0..512");
        assertThatThrownBy(() -> MpaSettings.defaults().withMaxUlpduLength(64769))
                .hasMessageContaining("maxUlpduLength 64769 is outside 128..64768");
        assertThatThrownBy(() -> MpaSettings.defaults().withReplyTimeout(java.time.Duration.ZERO))
                .hasMessageContaining("replyTimeout must be positive");
    }
}
