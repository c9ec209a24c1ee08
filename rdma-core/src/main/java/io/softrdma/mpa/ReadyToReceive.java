package io.softrdma.mpa;

/** The ready-to-receive message a peer-to-peer startup settled on (RFC 6581 §4), or none. */
public enum ReadyToReceive {
    /** Not peer-to-peer: the initiator's first ordinary FPDU lets the responder send (RFC 5044 §7.1.2). */
    NONE,
    /** The initiator sends a zero-length RDMA Write first. */
    WRITE,
    /** The initiator sends a zero-length RDMA Read Request first; the responder answers it. */
    READ
}
