package io.softrdma.mpa;

/** Which side of the MPA startup an endpoint plays (RFC 5044 §7.1): unrelated to who opened TCP. */
public enum MpaRole {
    /** Sends the MPA Request and, after the Reply, the first FPDU. */
    INITIATOR,
    /** Waits for the Request, sends the Reply, and sends no FPDU before it has received one. */
    RESPONDER
}
