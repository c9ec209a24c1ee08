package io.softrdma.rpc;

import io.netty.buffer.ByteBuf;
import io.netty.util.ReferenceCounted;
import java.util.Objects;

/**
 * A successful RPC reply: the XDR results after {@code accept_stat} that came inline (release them, or the reply,
 * when done), and what the responder RDMA-Wrote into the call's result sink (its Write chunk).
 *
 * @param xid the call's transaction id
 * @param results the inline results; reference counted, owned by the receiver of the reply
 * @param writeChunkOctets octets the responder wrote into the result sink (RFC 8166 §4.3: its echo of the chunk)
 * @param remotelyInvalidated whether the reply came as Send with Invalidate of this call's STag (RFC 8797 §4.1)
 */
public record RpcReply(int xid, ByteBuf results, long writeChunkOctets, boolean remotelyInvalidated)
        implements ReferenceCounted {

    public RpcReply {
        Objects.requireNonNull(results, "results");
    }

    @Override
    public int refCnt() {
        return results.refCnt();
    }

    @Override
    public RpcReply retain() {
        results.retain();
        return this;
    }

    @Override
    public RpcReply retain(int increment) {
        results.retain(increment);
        return this;
    }

    @Override
    public RpcReply touch() {
        results.touch();
        return this;
    }

    @Override
    public RpcReply touch(Object hint) {
        results.touch(hint);
        return this;
    }

    @Override
    public boolean release() {
        return results.release();
    }

    @Override
    public boolean release(int decrement) {
        return results.release(decrement);
    }
}
