package io.softrdma.verbs;

/**
 * The kind of work request a completion reports.
 *
 * <p>Thread safety: an enum, immutable.
 */
public enum WorkCompletionOpcode {
    SEND, RDMA_WRITE, RDMA_READ, LOCAL_INVALIDATE, RECEIVE
}
