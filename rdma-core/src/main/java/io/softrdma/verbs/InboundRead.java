package io.softrdma.verbs;

import io.softrdma.rdmap.AtomicOperation;

/**
 * An accepted RDMA Read Request waiting for (or in) its Read Response: one of the IRD slots (RFC 5040
 * §5.2.2); or an RFC 7306 Atomic Request, which shares the Read Request queue (§5.2) and is validated on arrival
 * but carried out only when its Atomic Response is generated, so that it takes its turn among the Read
 * Responses (§7: neither kind of response is generated before the other kind's earlier one). Preallocated and
 * reused.
 *
 * <p>Note: event loop only.
 */
final class InboundRead {
    /** The source region, or null for a zero-length Read (§5.2.1: not validated); an atomic's target region. */
    DefaultMemoryRegion source;
    int sourceStag;
    long sourceTaggedOffset;
    long length;
    int sinkStag;
    long sinkTaggedOffset;
    long sent;
    /**
     * An Atomic Request on the word at {@link #sourceTaggedOffset} of {@link #source} through {@link #sourceStag},
     * answered with {@link #atomicRequestId}.
     */
    boolean atomic;
    AtomicOperation atomicOperation;
    long addOrSwapData;
    long addOrSwapMask;
    long compareData;
    long compareMask;
    int atomicRequestId;
    /** The Atomic Request's MSN on the Read Request queue: a Terminate for it names it (RFC 7306 §8.1 rule 2). */
    int atomicRequestMsn;
}
