package io.softrdma.rpc;

/** PROG_MISMATCH (RFC 5531 §9): the server has the program, in versions {@link #low()} to {@link #high()}. */
public class RpcProgramMismatchException extends RpcAcceptedException {
    private static final long serialVersionUID = 1L;
    private final int low;
    private final int high;

    public RpcProgramMismatchException(String message, int low, int high) {
        super(message, RpcReplyHeader.AcceptStat.PROG_MISMATCH);
        this.low = low;
        this.high = high;
    }

    public int low() {
        return low;
    }

    public int high() {
        return high;
    }
}
