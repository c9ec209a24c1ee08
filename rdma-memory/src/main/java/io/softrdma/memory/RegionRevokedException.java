package io.softrdma.memory;

/**
 * The lease the operation used is gone: it expired, the owner revoked it, or resized or dropped the region, so the
 * server invalidated its STag and answered the operation with a Terminate (RFC 5040 §7: Remote Protection Error,
 * invalid STag), which ends the connection. The {@link RemoteRegion} resolves the region again, on a new
 * connection, before its next operation: retry the operation ({@code retryWhen(Retry.max(1).filter(
 * RegionRevokedException.class::isInstance))}) if it is safe to repeat.
 *
 * <p>Thread safety: immutable once thrown.
 */
public class RegionRevokedException extends RemoteMemoryException {
    private static final long serialVersionUID = 1L;

    public RegionRevokedException(String region, String message, Throwable cause) {
        super(region, message, cause);
    }
}
