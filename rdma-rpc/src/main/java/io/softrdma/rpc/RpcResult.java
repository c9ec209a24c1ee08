package io.softrdma.rpc;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.util.Objects;

/**
 * What an {@link RpcHandler} answers: the reply's status and its XDR results, and optionally one bulk data item
 * that ends the results (NFS READ's data). The server sends the bulk item in the call's first Write chunk when the
 * caller gave one (RFC 8166 §3.4.5: the data leaves the inline reply, its XDR length word stays), else inline,
 * padded to a multiple of 4. The server releases both buffers.
 *
 * @param status SUCCESS or the error to reply with
 * @param low PROG_MISMATCH: the lowest version this server has
 * @param high PROG_MISMATCH: the highest
 * @param results the XDR results of a SUCCESS, up to (and including) the bulk item's length word
 * @param bulk the bulk item's octets, or null
 */
public record RpcResult(RpcReplyHeader.AcceptStat status, int low, int high, ByteBuf results, ByteBuf bulk) {
    public RpcResult {
        Objects.requireNonNull(status, "status");
        Objects.requireNonNull(results, "results");
    }

    /** SUCCESS with these results. */
    public static RpcResult success(ByteBuf results) {
        return new RpcResult(RpcReplyHeader.AcceptStat.SUCCESS, 0, 0, results, null);
    }

    /** SUCCESS with results ending in a bulk data item. */
    public static RpcResult success(ByteBuf results, ByteBuf bulk) {
        return new RpcResult(RpcReplyHeader.AcceptStat.SUCCESS, 0, 0, results, Objects.requireNonNull(bulk, "bulk"));
    }

    /** An error status (PROG_UNAVAIL, PROC_UNAVAIL, GARBAGE_ARGS, SYSTEM_ERR) with no results. */
    public static RpcResult error(RpcReplyHeader.AcceptStat status) {
        if (status == RpcReplyHeader.AcceptStat.SUCCESS || status == RpcReplyHeader.AcceptStat.PROG_MISMATCH) {
            throw new IllegalArgumentException(status + " is not an error without data: use success() or"
                    + " programMismatch()");
        }
        return new RpcResult(status, 0, 0, Unpooled.EMPTY_BUFFER, null);
    }

    /** PROG_MISMATCH with the versions this server has. */
    public static RpcResult programMismatch(int low, int high) {
        return new RpcResult(RpcReplyHeader.AcceptStat.PROG_MISMATCH, low, high, Unpooled.EMPTY_BUFFER, null);
    }

    /** The RPC reply header for the call {@code xid}. */
    RpcReplyHeader header(int xid) {
        return status == RpcReplyHeader.AcceptStat.PROG_MISMATCH ? RpcReplyHeader.programMismatch(xid, low, high)
                : RpcReplyHeader.accepted(xid, status);
    }

    void release() {
        results.release();
        if (bulk != null) {
            bulk.release();
        }
    }
}
