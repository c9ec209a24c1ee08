package io.softrdma.samples.perf;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelPipeline;
import io.softrdma.mpa.GatheredUlpdu;
import io.softrdma.mpa.MpaRequestListener;
import io.softrdma.mpa.MpaSettings;
import io.softrdma.mpa.MpaStartupHandler;
import io.softrdma.transport.PipelineNames;
import java.util.concurrent.CompletableFuture;

/**
 * How a test's messages travel: over MPA (each message cut into ULPDUs no larger than the MULPDU, each
 * ULPDU a well-formed DDP untagged Send segment so that Wireshark can dissect the stream), or over raw
 * TCP (the payload as is) as the baseline. One instance per connection end.
 */
abstract class Wire {
    /** Name prefix in results: {@code mpa} or {@code tcp}. */
    abstract String name();

    /** Adds the handlers below the test's; completes {@code ready} on the event loop when data may flow. */
    abstract void initPipeline(ChannelPipeline pipeline, boolean server, CompletableFuture<Void> ready);

    /** Writes (without flushing) one message of {@code length} octets from {@code source}, which it does not own. */
    abstract void write(ChannelHandlerContext ctx, ByteBuf source, int length);

    /** Payload octets in a received message. */
    abstract int payloadLength(ByteBuf received);

    static Wire mpa(MpaSettings settings) {
        return new Mpa(settings);
    }

    static Wire tcp() {
        return new Tcp();
    }

    private static final class Mpa extends Wire {
        private final MpaSettings settings;
        private int segmentPayload;
        private int msn;

        Mpa(MpaSettings settings) {
            this.settings = settings;
        }

        @Override
        String name() {
            return "mpa";
        }

        @Override
        void initPipeline(ChannelPipeline pipeline, boolean server, CompletableFuture<Void> ready) {
            MpaStartupHandler startup = server ? MpaStartupHandler.responder(settings, MpaRequestListener.ACCEPT_ALL)
                    : MpaStartupHandler.initiator(settings, new byte[0]);
            pipeline.addLast(PipelineNames.MPA_STARTUP, startup);
            startup.outcome().whenComplete((negotiation, failure) -> {
                if (failure != null) {
                    ready.completeExceptionally(failure);
                } else {
                    segmentPayload = negotiation.mulpdu() - DdpSendHeader.LENGTH;
                    ready.complete(null);
                }
            });
        }

        @Override
        void write(ChannelHandlerContext ctx, ByteBuf source, int length) {
            int messageSequence = ++msn;
            int offset = 0;
            do {
                int n = Math.min(segmentPayload, length - offset);
                boolean last = offset + n == length;
                ByteBuf header = DdpSendHeader.allocate(ctx.alloc(), messageSequence, offset, last);
                ctx.write(GatheredUlpdu.newInstance(header, source.retainedSlice(offset, n)), ctx.voidPromise());
                offset += n;
            } while (offset < length);
        }

        @Override
        int payloadLength(ByteBuf received) {
            return received.readableBytes() - DdpSendHeader.LENGTH;
        }
    }

    private static final class Tcp extends Wire {
        @Override
        String name() {
            return "tcp";
        }

        @Override
        void initPipeline(ChannelPipeline pipeline, boolean server, CompletableFuture<Void> ready) {
            pipeline.addLast(new ChannelInboundHandlerAdapter() {
                @Override
                public void handlerAdded(ChannelHandlerContext ctx) {
                    if (ctx.channel().isActive()) {
                        ready.complete(null);
                    }
                }

                @Override
                public void channelActive(ChannelHandlerContext ctx) {
                    ready.complete(null);
                    ctx.fireChannelActive();
                }
            });
        }

        @Override
        void write(ChannelHandlerContext ctx, ByteBuf source, int length) {
            ctx.write(source.retainedSlice(0, length), ctx.voidPromise());
        }

        @Override
        int payloadLength(ByteBuf received) {
            return received.readableBytes();
        }
    }
}
