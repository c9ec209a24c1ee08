package io.softrdma.memory;

/**
 * The memory server has no region (or service) of that name: never declared, or dropped.
 *
 * <p>Thread safety: immutable once thrown.
 */
public class NoSuchRegionException extends RemoteMemoryException {
    private static final long serialVersionUID = 1L;

    public NoSuchRegionException(String region, String message) {
        super(region, message);
    }
}
