package io.softrdma.rpc;

/**
 * The {@code rdma_proc} values of RFC 8166 §4.2.2. {@code RDMA_MSGP} and {@code RDMA_DONE} are reserved: version 1
 * does not use them.
 */
public enum RpcRdmaProcedure {
    RDMA_MSG(0), RDMA_NOMSG(1), RDMA_MSGP(2), RDMA_DONE(3), RDMA_ERROR(4);

    private final int code;

    RpcRdmaProcedure(int code) {
        this.code = code;
    }

    public int code() {
        return code;
    }

    /** The procedure for a wire value, or null. */
    public static RpcRdmaProcedure fromCode(int code) {
        return code >= 0 && code < values().length ? values()[code] : null;
    }
}
