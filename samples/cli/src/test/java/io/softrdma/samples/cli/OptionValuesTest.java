package io.softrdma.samples.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class OptionValuesTest {
    @Test
    void onOff() {
        assertThat(OptionValues.onOff("on", "--crc")).isTrue();
        assertThat(OptionValues.onOff("off", "--crc")).isFalse();
        assertThatThrownBy(() -> OptionValues.onOff("On", "--markers")).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("--markers On: use on or off");
    }

    @Test
    void wholeNumberWithinItsRange() {
        assertThat(OptionValues.wholeNumber("0", "-p", 0, 65535)).isZero();
        assertThat(OptionValues.wholeNumber(" 65535 ", "-p", 0, 65535)).isEqualTo(65535);
        assertThat(OptionValues.wholeNumber("4294967295", "--uid", 0, 0xFFFF_FFFFL)).isEqualTo(0xFFFF_FFFFL);
    }

    @Test
    void wholeNumberOutsideItsRangeOrNoNumber() {
        assertThatThrownBy(() -> OptionValues.wholeNumber("65536", "-p", 0, 65535))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("-p 65536 must be a whole number from 0 to 65535");
        assertThatThrownBy(() -> OptionValues.wholeNumber("1.5", "-p", 0, 65535))
                .hasMessage("-p 1.5 must be a whole number from 0 to 65535");
        assertThatThrownBy(() -> OptionValues.wholeNumber("0", "--credits", 1, 1024, " (calls outstanding)"))
                .hasMessage("--credits 0 must be a whole number from 1 to 1024 (calls outstanding)");
        assertThatThrownBy(() -> OptionValues.wholeNumber("99999999999999999999", "--offset", 0, Long.MAX_VALUE))
                .hasMessage("--offset 99999999999999999999 must be a whole number from 0 to " + Long.MAX_VALUE);
    }

    @Test
    void timeoutInSeconds() {
        assertThat(OptionValues.timeout("2.5", "--timeout")).isEqualTo(Duration.ofMillis(2500));
        assertThat(OptionValues.timeout(" 86400 ", "--timeout")).isEqualTo(Duration.ofDays(1));
        assertThat(OptionValues.timeout("0.0000001", "--timeout")).isEqualTo(Duration.ofMillis(1));
    }

    @Test
    void timeoutAboveZeroAndAtMostADay() {
        for (String v : new String[] {"0", "-1", "86401", "abc", "NaN", "Infinity"}) {
            assertThatThrownBy(() -> OptionValues.timeout(v, "--timeout")).isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("--timeout " + v + " must be a number of seconds above 0 (at most 86400)");
        }
    }
}
