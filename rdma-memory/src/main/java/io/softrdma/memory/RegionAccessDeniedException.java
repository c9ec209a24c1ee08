package io.softrdma.memory;

/**
 * The server's {@link AccessPolicy} refused this peer the region, or the rights an operation needs (a Write on a
 * region lent for reading): {@link #getMessage()} carries the server's reason.
 *
 * <p>Thread safety: immutable once thrown.
 */
public class RegionAccessDeniedException extends RemoteMemoryException {
    private static final long serialVersionUID = 1L;

    public RegionAccessDeniedException(String region, String message) {
        super(region, message);
    }
}
