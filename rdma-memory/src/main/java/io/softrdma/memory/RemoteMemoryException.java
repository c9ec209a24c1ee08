package io.softrdma.memory;

/**
 * A remote-memory operation or directory request failed: the common type of this package's errors. A plain
 * instance means the connection to the memory server was lost or refused (its cause says how); the subclasses say
 * what the server decided.
 *
 * <p>Thread safety: immutable once thrown.
 */
public class RemoteMemoryException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final String region;

    public RemoteMemoryException(String region, String message, Throwable cause) {
        super(message, cause);
        this.region = region;
    }

    public RemoteMemoryException(String region, String message) {
        this(region, message, null);
    }

    /** The region (or service) the operation was for; null if none. */
    public String region() {
        return region;
    }
}
