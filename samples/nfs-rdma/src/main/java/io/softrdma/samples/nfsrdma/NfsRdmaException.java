package io.softrdma.samples.nfsrdma;

/** A run of the sample failed; the message is the one line printed after {@code "nfs-rdma: error: "}. */
public final class NfsRdmaException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public NfsRdmaException(String message) {
        super(message);
    }

    public NfsRdmaException(String message, Throwable cause) {
        super(message, cause);
    }
}
