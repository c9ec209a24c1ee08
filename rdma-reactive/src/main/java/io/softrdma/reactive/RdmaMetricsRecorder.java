package io.softrdma.reactive;

import io.softrdma.rdmap.TerminateException;

/**
 * What the sessions of an {@link RdmaServer} or {@link RdmaClient} do, for metrics: sessions opening and
 * closing, operations completing with their latency, Terminates, and connections that never became
 * sessions. Counts of messages and octets per opcode and direction, credits and read queues are not pushed:
 * a recorder reads them from the live sessions ({@link RdmaSession#statistics()}) when asked.
 *
 * <p>Thread safety: called on the sessions' event loops, concurrently for different sessions; implementations
 * must be thread-safe, must not block, and should not allocate per call.
 */
public interface RdmaMetricsRecorder {
    /** Records nothing. */
    RdmaMetricsRecorder NONE = new RdmaMetricsRecorder() {
    };

    /** The operations whose latency is recorded: from subscription to completion. */
    enum Operation {
        /** {@link RdmaSession#write}: until the Write is complete at this end (RFC 5040 §5.5). */
        WRITE,
        /** {@link RdmaSession#read(io.softrdma.verbs.RemoteMemory)}: until the Read Response is placed. */
        READ,
        /** {@link RdmaSession#request}: until the response (or error reply) arrives. */
        REQUEST,
        /** {@link RdmaSession#fetchAdd}, {@link RdmaSession#compareAndSwap}: until the Atomic Response arrives. */
        ATOMIC
    }

    /** Why a connection ended before it became a session. */
    enum StartupFailure {
        /** The server's accept function refused the MPA Request, or the server refused the client. */
        REJECTED,
        /** The MPA startup failed: a malformed or late frame, a timeout, a lost connection. */
        FAILED
    }

    /**
     * A session is established and usable.
     *
     * @param session the session
     */
    default void sessionOpened(RdmaSession session) {
    }

    /**
     * A session ended: closed gracefully ({@code cause} null) or lost.
     *
     * @param session the session; its {@link RdmaSession#statistics()} are final
     * @param cause why, or null
     */
    default void sessionClosed(RdmaSession session, Throwable cause) {
    }

    /**
     * An operation completed.
     *
     * @param operation which
     * @param octets octets written or read (the request's for {@code REQUEST}); 0 if it failed
     * @param nanos from subscription to completion
     * @param success whether it succeeded
     */
    default void operation(Operation operation, long octets, long nanos, boolean success) {
    }

    /**
     * A Terminate was sent ({@link TerminateException#remote()} false) or received on a session's stream.
     *
     * @param terminate its Layer, EType and Code
     */
    default void terminate(TerminateException terminate) {
    }

    /**
     * A connection ended before it became a session.
     *
     * @param failure why
     */
    default void startupFailed(StartupFailure failure) {
    }
}
