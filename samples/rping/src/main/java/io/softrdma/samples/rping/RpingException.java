package io.softrdma.samples.rping;

/**
 * Why an rping run failed, in one line: what it was doing (connect, accept, which ping and step) and
 * what went wrong. {@link RpingMain} prints it after {@code "rping: error: "} and exits with 1.
 */
public final class RpingException extends Exception {
    private static final long serialVersionUID = 1L;

    public RpingException(String message) {
        super(message);
    }

    public RpingException(String message, Throwable cause) {
        super(message, cause);
    }
}
