package io.softrdma.rpc;

/**
 * The server accepted the call but could not carry it out (RFC 5531 §9 {@code accept_stat}): PROG_UNAVAIL,
 * PROC_UNAVAIL, GARBAGE_ARGS, SYSTEM_ERR, or PROG_MISMATCH ({@link RpcProgramMismatchException}).
 */
public class RpcAcceptedException extends RpcException {
    private static final long serialVersionUID = 1L;
    private final RpcReplyHeader.AcceptStat stat;

    public RpcAcceptedException(String message, RpcReplyHeader.AcceptStat stat) {
        super(message);
        this.stat = stat;
    }

    public RpcReplyHeader.AcceptStat stat() {
        return stat;
    }
}
