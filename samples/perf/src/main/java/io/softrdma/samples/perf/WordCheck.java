package io.softrdma.samples.perf;

import java.util.Locale;

/**
 * The atomic tests' correctness check, one per row: after each phase the 64-bit word its operations
 * targeted must hold what they imply — N Fetch-and-Adds of 1 on a word that was 0 leave N; Compare-and-Swaps
 * of 0 with 0 leave 0; a serial Compare-and-Swap increment leaves its number of rounds. The word is read
 * after the last operation completed (SoftRDMA: an RDMA Read of it; raw TCP: the server's counter). A
 * mismatch fails the run; what matched is reported with the row.
 *
 * <p>Thread safety: one thread (the one that measures).
 */
final class WordCheck {
    private final StringBuilder report = new StringBuilder();

    /**
     * Checks one phase's word.
     *
     * @param row the row, for the message
     * @param phase "bandwidth" or "latency"
     * @param operations what the phase did to the word, e.g. "2200 fetch-adds of 1"
     * @param expected the value those operations imply
     * @param word the value read back
     * @throws IllegalStateException when they differ
     */
    void verify(String row, String phase, String operations, long expected, long word) {
        if (word != expected) {
            throw new IllegalStateException(String.format(Locale.ROOT,
                    "%s %s: the word is %d after %s, expected %d: an atomic operation was lost or applied twice",
                    row, phase, word, operations, expected));
        }
        if (!report.isEmpty()) {
            report.append("; ");
        }
        report.append(phase).append(": word ").append(word).append(" after ").append(operations);
    }

    /** What was verified, or null when nothing was (the row is not an atomic test). */
    String report() {
        return report.isEmpty() ? null : report.toString();
    }
}
