package io.softrdma.verbs;

/**
 * An accepted RDMA Read Request waiting for (or in) its Read Response: one of the IRD slots (RFC 5040
 * §5.2.2); or an RFC 7306 Atomic Request, which shares the Read Request queue, carried out on arrival and
 * waiting for its Atomic Response. Preallocated and reused.
 *
 * <p>Note: event loop only.
 */
final class InboundRead {
    /** The source region, or null for a zero-length Read (§5.2.1: not validated). */
    DefaultMemoryRegion source;
    int sourceStag;
    long sourceTaggedOffset;
    long length;
    int sinkStag;
    long sinkTaggedOffset;
    long sent;
    /** An Atomic Request: answered with {@link #atomicRequestId} and {@link #atomicOriginal}. */
    boolean atomic;
    int atomicRequestId;
    long atomicOriginal;
}
