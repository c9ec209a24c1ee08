package io.softrdma.internal.transport;

import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOutboundHandlerAdapter;
import io.netty.channel.ChannelPromise;

/**
 * Sits between MPA and a TLS handler ({@code SslHandler}) and turns each {@link WriteBarrier} into an empty
 * buffer with the same promise. A TLS handler refuses anything but buffers; it queues an empty one behind
 * the data written before it and completes its promise with theirs, once their encrypted records are handed
 * to TCP — which is what the barrier asks (RFC 5040 §5.5 rule 14).
 *
 * <p>Thread safety: stateless and {@link ChannelHandler.Sharable}.
 */
@ChannelHandler.Sharable
public final class TlsBarrierAdapter extends ChannelOutboundHandlerAdapter {
    /** The adapter. */
    public static final TlsBarrierAdapter INSTANCE = new TlsBarrierAdapter();

    /** Its name in a pipeline. */
    public static final String NAME = "rdma-tls-barrier";

    private TlsBarrierAdapter() {
    }

    @Override
    public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
        ctx.write(msg == WriteBarrier.INSTANCE ? Unpooled.EMPTY_BUFFER : msg, promise);
    }
}
