package io.softrdma.samples.cli;

import java.time.Duration;

/**
 * Option values more than one sample reads, each checked, with a message that repeats the option and the value
 * given and says what would do.
 *
 * <p>Thread safety: stateless.
 */
public final class OptionValues {
    /** The longest {@link #timeout}: a day. */
    public static final int MAX_TIMEOUT_SECONDS = 86_400;

    private OptionValues() {
    }

    /**
     * {@code on} or {@code off}.
     *
     * @throws IllegalArgumentException {@code --crc maybe: use on or off}
     */
    public static boolean onOff(String value, String option) {
        return switch (value) {
            case "on" -> true;
            case "off" -> false;
            default -> throw new IllegalArgumentException(option + " " + value + ": use on or off");
        };
    }

    /**
     * A whole number from {@code min} to {@code max}; blanks around it are allowed.
     *
     * @throws IllegalArgumentException {@code -p x must be a whole number from 0 to 65535}
     */
    public static long wholeNumber(String value, String option, long min, long max) {
        return wholeNumber(value, option, min, max, "");
    }

    /**
     * A whole number from {@code min} to {@code max}; blanks around it are allowed.
     *
     * @param what said after the range when the value is refused, e.g. {@code " (calls outstanding)"}
     * @throws IllegalArgumentException {@code --credits 0 must be a whole number from 1 to 1024 (calls outstanding)}
     */
    public static long wholeNumber(String value, String option, long min, long max, String what) {
        try {
            long n = Long.parseLong(value.trim());
            if (n >= min && n <= max) {
                return n;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw new IllegalArgumentException(option + " " + value + " must be a whole number from " + min + " to "
                + max + what);
    }

    /**
     * A bound on a wait, in seconds: above 0 and at most {@value #MAX_TIMEOUT_SECONDS}, fractions allowed; less
     * than a millisecond counts as one.
     *
     * @throws IllegalArgumentException {@code --timeout 0 must be a number of seconds above 0 (at most 86400)}
     */
    public static Duration timeout(String value, String option) {
        try {
            double s = Double.parseDouble(value.trim());
            if (s > 0 && s <= MAX_TIMEOUT_SECONDS) {
                return Duration.ofNanos(Math.max(1_000_000L, (long) (s * 1e9)));
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw new IllegalArgumentException(option + " " + value + " must be a number of seconds above 0 (at most "
                + MAX_TIMEOUT_SECONDS + ")");
    }
}
