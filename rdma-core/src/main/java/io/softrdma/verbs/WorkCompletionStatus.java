package io.softrdma.verbs;

/**
 * How a work request ended.
 *
 * <p>Thread safety: an enum, immutable.
 */
public enum WorkCompletionStatus {
    SUCCESS,
    /** An incoming Send was larger than the receive buffer (the peer got DDP "message too long"). */
    LOCAL_LENGTH_ERROR,
    /** Local memory of the request was invalid or not usable as asked when the request ran. */
    LOCAL_PROTECTION_ERROR,
    /** The queue pair failed while processing the request. */
    LOCAL_QP_OPERATION_ERROR,
    /** The peer refused access to its memory: it terminated with a protection error. */
    REMOTE_ACCESS_ERROR,
    /** The peer terminated the stream with another error while the request was outstanding. */
    REMOTE_OPERATION_ERROR,
    /** The request was not carried out: the queue pair went to ERROR first (RFC 5040 §6.2.1). */
    FLUSHED
}
