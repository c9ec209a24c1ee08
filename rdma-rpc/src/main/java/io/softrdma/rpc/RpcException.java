package io.softrdma.rpc;

/** An RPC call that did not succeed: the server answered with an error, at the RPC or the transport level. */
public class RpcException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public RpcException(String message) {
        super(message);
    }
}
