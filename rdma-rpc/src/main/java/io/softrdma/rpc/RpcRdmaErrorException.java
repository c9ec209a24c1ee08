package io.softrdma.rpc;

/**
 * The responder answered with {@code RDMA_ERROR} (RFC 8166 §4.5): {@link RpcRdmaError#ERR_VERS} with the versions
 * it supports ({@link #low()}, {@link #high()}), or {@link RpcRdmaError#ERR_CHUNK}.
 */
public class RpcRdmaErrorException extends RpcException {
    private static final long serialVersionUID = 1L;
    private final RpcRdmaError error;

    public RpcRdmaErrorException(String message, RpcRdmaError error) {
        super(message);
        this.error = error;
    }

    public RpcRdmaError error() {
        return error;
    }

    public boolean isVersionError() {
        return error.code() == RpcRdmaError.ERR_VERS;
    }

    public int low() {
        return error.low();
    }

    public int high() {
        return error.high();
    }
}
