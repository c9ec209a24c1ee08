package io.softrdma.rpc;

import io.netty.buffer.ByteBuf;
import java.util.Objects;

/**
 * The header of an ONC RPC reply (RFC 5531 §9, {@code reply_body}): accepted (with a verifier and an
 * {@code accept_stat}, and for SUCCESS the results after it) or denied ({@code RPC_MISMATCH} with the versions
 * supported, or {@code AUTH_ERROR} with an {@code auth_stat}).
 *
 * <pre>
 *  xid | 1 (REPLY) | 0 MSG_ACCEPTED | verf | accept_stat [ | low | high for PROG_MISMATCH ]
 *  xid | 1 (REPLY) | 1 MSG_DENIED   | 0 RPC_MISMATCH | low | high    or    1 AUTH_ERROR | auth_stat
 * </pre>
 *
 * <p>Thread safety: immutable.
 *
 * @param xid the call's transaction id
 * @param accepted MSG_ACCEPTED or MSG_DENIED
 * @param verifier an accepted reply's verifier (AUTH_NONE when denied)
 * @param acceptStat accepted: the status
 * @param rejectStat denied: {@link #RPC_MISMATCH} or {@link #AUTH_ERROR}
 * @param low PROG_MISMATCH or RPC_MISMATCH: the lowest version supported
 * @param high PROG_MISMATCH or RPC_MISMATCH: the highest version supported
 * @param authStat AUTH_ERROR: why
 */
public record RpcReplyHeader(int xid, boolean accepted, RpcAuth verifier, AcceptStat acceptStat, int rejectStat,
        int low, int high, int authStat) {
    public static final int MSG_ACCEPTED = 0;
    public static final int MSG_DENIED = 1;
    public static final int RPC_MISMATCH = 0;
    public static final int AUTH_ERROR = 1;

    /** {@code accept_stat} (RFC 5531 §9). */
    public enum AcceptStat {
        SUCCESS, PROG_UNAVAIL, PROG_MISMATCH, PROC_UNAVAIL, GARBAGE_ARGS, SYSTEM_ERR;

        static AcceptStat fromCode(int code) {
            if (code < 0 || code >= values().length) {
                throw new RpcRdmaProtocolException("unknown accept_stat " + code + " (RFC 5531 §9)");
            }
            return values()[code];
        }
    }

    public RpcReplyHeader {
        Objects.requireNonNull(verifier, "verifier");
        if (accepted) {
            Objects.requireNonNull(acceptStat, "acceptStat");
        }
    }

    /** An accepted reply with {@code stat} (SUCCESS: the results follow). */
    public static RpcReplyHeader accepted(int xid, AcceptStat stat) {
        return new RpcReplyHeader(xid, true, RpcAuth.none(), stat, 0, 0, 0, 0);
    }

    /** PROG_MISMATCH with the versions of the program supported. */
    public static RpcReplyHeader programMismatch(int xid, int low, int high) {
        return new RpcReplyHeader(xid, true, RpcAuth.none(), AcceptStat.PROG_MISMATCH, 0, low, high, 0);
    }

    /** MSG_DENIED, RPC_MISMATCH: only RPC version 2 is supported. */
    public static RpcReplyHeader rpcMismatch(int xid) {
        return new RpcReplyHeader(xid, false, RpcAuth.none(), null, RPC_MISMATCH, 2, 2, 0);
    }

    /** MSG_DENIED, AUTH_ERROR with {@code authStat}. */
    public static RpcReplyHeader authError(int xid, int authStat) {
        return new RpcReplyHeader(xid, false, RpcAuth.none(), null, AUTH_ERROR, 0, 0, authStat);
    }

    public boolean isSuccess() {
        return accepted && acceptStat == AcceptStat.SUCCESS;
    }

    public int encodedLength() {
        if (!accepted) {
            return 16 + (rejectStat == RPC_MISMATCH ? 8 : 4);
        }
        return 12 + verifier.encodedLength() + 4 + (acceptStat == AcceptStat.PROG_MISMATCH ? 8 : 0);
    }

    public void encode(ByteBuf out) {
        out.writeInt(xid);
        out.writeInt(RpcCallHeader.REPLY);
        if (!accepted) {
            out.writeInt(MSG_DENIED);
            out.writeInt(rejectStat);
            if (rejectStat == RPC_MISMATCH) {
                out.writeInt(low);
                out.writeInt(high);
            } else {
                out.writeInt(authStat);
            }
            return;
        }
        out.writeInt(MSG_ACCEPTED);
        verifier.encode(out);
        out.writeInt(acceptStat.ordinal());
        if (acceptStat == AcceptStat.PROG_MISMATCH) {
            out.writeInt(low);
            out.writeInt(high);
        }
    }

    /**
     * Reads a reply header, leaving the reader index on the results of a SUCCESS.
     *
     * @throws RpcRdmaProtocolException if it is truncated, not a REPLY, or has an unknown status
     */
    public static RpcReplyHeader decode(ByteBuf in) {
        int xid = Xdr.readInt(in, "xid");
        int type = Xdr.readInt(in, "msg_type");
        if (type != RpcCallHeader.REPLY) {
            throw new RpcRdmaProtocolException("msg_type " + type + " where a REPLY (1) belongs (RFC 5531 §9)");
        }
        int stat = Xdr.readInt(in, "reply_stat");
        if (stat == MSG_ACCEPTED) {
            RpcAuth verf = RpcAuth.decode(in, "verf");
            AcceptStat accept = AcceptStat.fromCode(Xdr.readInt(in, "accept_stat"));
            if (accept == AcceptStat.PROG_MISMATCH) {
                return new RpcReplyHeader(xid, true, verf, accept, 0, Xdr.readInt(in, "low"), Xdr.readInt(in, "high"),
                        0);
            }
            return new RpcReplyHeader(xid, true, verf, accept, 0, 0, 0, 0);
        }
        if (stat != MSG_DENIED) {
            throw new RpcRdmaProtocolException("unknown reply_stat " + stat + " (RFC 5531 §9)");
        }
        int reject = Xdr.readInt(in, "reject_stat");
        return switch (reject) {
            case RPC_MISMATCH -> new RpcReplyHeader(xid, false, RpcAuth.none(), null, reject, Xdr.readInt(in, "low"),
                    Xdr.readInt(in, "high"), 0);
            case AUTH_ERROR -> new RpcReplyHeader(xid, false, RpcAuth.none(), null, reject, 0, 0,
                    Xdr.readInt(in, "auth_stat"));
            default -> throw new RpcRdmaProtocolException("unknown reject_stat " + reject + " (RFC 5531 §9)");
        };
    }

    /** The typed exception for a reply that is not SUCCESS, or null. */
    public RpcException toException(int program, int version, int procedure) {
        String call = "program " + program + " version " + version + " procedure " + procedure;
        if (!accepted) {
            return rejectStat == RPC_MISMATCH ? new RpcDeniedException(call + ": RPC version mismatch, the server"
                    + " speaks " + low + " to " + high, rejectStat, low, high, 0)
                    : new RpcDeniedException(call + ": authentication error, auth_stat " + authStat, rejectStat, 0, 0,
                            authStat);
        }
        return switch (acceptStat) {
            case SUCCESS -> null;
            case PROG_MISMATCH -> new RpcProgramMismatchException(call + ": program version mismatch, the server"
                    + " has versions " + low + " to " + high, low, high);
            default -> new RpcAcceptedException(call + ": " + acceptStat, acceptStat);
        };
    }
}
