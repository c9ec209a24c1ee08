package io.softrdma.rpc;

/**
 * The body of an {@code RDMA_ERROR} (RFC 8166 §4.2.3): {@code ERR_VERS} with the range of versions the responder
 * supports, or {@code ERR_CHUNK} (a malformed header, or chunks it cannot process).
 *
 * @param code {@link #ERR_VERS} or {@link #ERR_CHUNK}
 * @param low ERR_VERS: the lowest version supported
 * @param high ERR_VERS: the highest version supported
 */
public record RpcRdmaError(int code, int low, int high) {
    public static final int ERR_VERS = 1;
    public static final int ERR_CHUNK = 2;

    public static RpcRdmaError versions(int low, int high) {
        return new RpcRdmaError(ERR_VERS, low, high);
    }

    public static RpcRdmaError chunk() {
        return new RpcRdmaError(ERR_CHUNK, 0, 0);
    }

    @Override
    public String toString() {
        return code == ERR_VERS ? "ERR_VERS (versions " + low + " to " + high + ")" : "ERR_CHUNK";
    }
}
