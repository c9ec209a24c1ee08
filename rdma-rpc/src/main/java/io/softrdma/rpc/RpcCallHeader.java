package io.softrdma.rpc;

import io.netty.buffer.ByteBuf;
import java.util.Objects;

/**
 * The header of an ONC RPC call (RFC 5531 §9, {@code call_body} after {@code xid} and {@code CALL}): the procedure
 * arguments follow it.
 *
 * <pre>
 *  xid | 0 (CALL) | rpcvers 2 | prog | vers | proc | cred (flavor, opaque) | verf (flavor, opaque)
 * </pre>
 *
 * <p>Thread safety: immutable.
 *
 * @param xid the transaction id
 * @param rpcVersion {@link #RPC_VERSION}; a peer's other value is kept so a responder can deny it
 * @param program the program number (100003 for NFS)
 * @param version the program version
 * @param procedure the procedure number
 * @param credential the caller's credential
 * @param verifier the caller's verifier
 */
public record RpcCallHeader(int xid, int rpcVersion, int program, int version, int procedure, RpcAuth credential,
        RpcAuth verifier) {
    public static final int CALL = 0;
    public static final int REPLY = 1;
    public static final int RPC_VERSION = 2;

    public RpcCallHeader {
        Objects.requireNonNull(credential, "credential");
        Objects.requireNonNull(verifier, "verifier");
    }

    public static RpcCallHeader of(int xid, int program, int version, int procedure, RpcAuth credential) {
        return new RpcCallHeader(xid, RPC_VERSION, program, version, procedure, credential, RpcAuth.none());
    }

    public int encodedLength() {
        return 24 + credential.encodedLength() + verifier.encodedLength();
    }

    public void encode(ByteBuf out) {
        out.writeInt(xid);
        out.writeInt(CALL);
        out.writeInt(rpcVersion);
        out.writeInt(program);
        out.writeInt(version);
        out.writeInt(procedure);
        credential.encode(out);
        verifier.encode(out);
    }

    /**
     * Reads a call header, leaving the reader index on the arguments.
     *
     * @throws RpcRdmaProtocolException if it is truncated or not a CALL
     */
    public static RpcCallHeader decode(ByteBuf in) {
        int xid = Xdr.readInt(in, "xid");
        int type = Xdr.readInt(in, "msg_type");
        if (type != CALL) {
            throw new RpcRdmaProtocolException("msg_type " + type + " where a CALL (0) belongs (RFC 5531 §9)");
        }
        int rpcVersion = Xdr.readInt(in, "rpcvers");
        int program = Xdr.readInt(in, "prog");
        int version = Xdr.readInt(in, "vers");
        int procedure = Xdr.readInt(in, "proc");
        RpcAuth cred = RpcAuth.decode(in, "cred");
        RpcAuth verf = RpcAuth.decode(in, "verf");
        return new RpcCallHeader(xid, rpcVersion, program, version, procedure, cred, verf);
    }
}
