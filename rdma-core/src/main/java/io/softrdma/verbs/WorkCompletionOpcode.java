package io.softrdma.verbs;

/**
 * The kind of work request a completion reports.
 *
 * <p>Thread safety: an enum, immutable.
 */
public enum WorkCompletionOpcode {
    SEND, RDMA_WRITE, RDMA_READ, LOCAL_INVALIDATE, RECEIVE,
    /** RFC 7306: Immediate Data sent. */
    IMMEDIATE_DATA,
    /** RFC 7306: an RDMA Write followed by Immediate Data, sent. */
    RDMA_WRITE_WITH_IMMEDIATE,
    /** RFC 7306: a Fetch-and-Add answered ({@link WorkCompletion#atomicOriginalValue()}). */
    ATOMIC_FETCH_ADD,
    /** RFC 7306: a Compare-and-Swap answered ({@link WorkCompletion#atomicOriginalValue()}). */
    ATOMIC_COMPARE_AND_SWAP,
    /** RFC 7306: the peer's Immediate Data consumed a receive ({@link WorkCompletion#immediateData()}). */
    RECEIVE_IMMEDIATE
}
