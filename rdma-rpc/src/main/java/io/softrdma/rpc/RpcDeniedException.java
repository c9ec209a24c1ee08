package io.softrdma.rpc;

/**
 * The server denied the call (RFC 5531 §9 {@code MSG_DENIED}): RPC_MISMATCH (with the RPC versions it speaks) or
 * AUTH_ERROR (with the {@code auth_stat}).
 */
public class RpcDeniedException extends RpcException {
    private static final long serialVersionUID = 1L;
    private final int rejectStat;
    private final int low;
    private final int high;
    private final int authStat;

    public RpcDeniedException(String message, int rejectStat, int low, int high, int authStat) {
        super(message);
        this.rejectStat = rejectStat;
        this.low = low;
        this.high = high;
        this.authStat = authStat;
    }

    /** {@link RpcReplyHeader#RPC_MISMATCH} or {@link RpcReplyHeader#AUTH_ERROR}. */
    public int rejectStat() {
        return rejectStat;
    }

    public int low() {
        return low;
    }

    public int high() {
        return high;
    }

    public int authStat() {
        return authStat;
    }
}
