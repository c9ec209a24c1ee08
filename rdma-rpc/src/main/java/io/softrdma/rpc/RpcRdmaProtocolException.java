package io.softrdma.rpc;

/**
 * A malformed RPC-over-RDMA or ONC RPC message: the message names the rule broken. A connection that receives
 * one ends, failing every call outstanding on it.
 */
public class RpcRdmaProtocolException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public RpcRdmaProtocolException(String message) {
        super(message);
    }
}
