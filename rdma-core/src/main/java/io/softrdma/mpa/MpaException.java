package io.softrdma.mpa;

/** Base type of every error the MPA layer reports. */
public class MpaException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public MpaException(String message) {
        super(message);
    }

    public MpaException(String message, Throwable cause) {
        super(message, cause);
    }
}
