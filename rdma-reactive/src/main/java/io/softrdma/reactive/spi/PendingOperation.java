package io.softrdma.reactive.spi;

import io.softrdma.verbs.WorkCompletion;

/**
 * What waits for one posted work request's completion.
 *
 * <p>Thread safety: called on the session's event loop.
 */
public interface PendingOperation {
    /** The work request completed, successfully or not; {@code c} is valid only during the call. */
    void complete(WorkCompletion c);

    /** The work request could not be posted, or the session ended before it completed. */
    void fail(Throwable cause);
}
