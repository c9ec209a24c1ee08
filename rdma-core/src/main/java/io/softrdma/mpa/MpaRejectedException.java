package io.softrdma.mpa;

/**
 * The responder answered with an MPA Reply whose Rejected Connection bit is set (RFC 5044 §7.1.1 R,
 * §7.1.2 rule 3). Carries the private data the responder sent with its rejection.
 */
public final class MpaRejectedException extends MpaStartupException {
    private static final long serialVersionUID = 1L;

    private final transient MpaStartupFrame reply;

    public MpaRejectedException(MpaStartupFrame reply) {
        super(Reason.REJECTED_BY_PEER, "the MPA responder rejected the connection (Reply R=1, "
                + reply.privateDataLength() + " octets of private data)");
        this.reply = reply;
    }

    /** The rejecting Reply frame. */
    public MpaStartupFrame reply() {
        return reply;
    }

    /** A copy of the private data the responder's application sent with its rejection (without an IRD/ORD block). */
    public byte[] privateData() {
        return reply.applicationPrivateData();
    }
}
