package io.softrdma.samples.perftest;

/** A run failed; the message says at which step and why, in one line. Thread safety: immutable once thrown. */
final class PerftestException extends Exception {
    private static final long serialVersionUID = 1L;

    PerftestException(String message) {
        super(message);
    }

    PerftestException(String message, Throwable cause) {
        super(message, cause);
    }
}
