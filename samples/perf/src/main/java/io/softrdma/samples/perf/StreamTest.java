package io.softrdma.samples.perf;

import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;

/**
 * One-way bandwidth: the client sends {@code iterations} messages as fast as the connection takes
 * them (pausing when the channel stops being writable); the server counts payload octets and answers
 * with a one-octet message when all have arrived. Time runs from the first write to that answer.
 */
final class StreamTest {
    private StreamTest() {
    }

    static PerfResult run(Loopback loopback, int port, Supplier<Wire> wires, ByteBuf payload, int size,
            long iterations, AtomicLong progress) throws Exception {
        CompletableFuture<Long> elapsed = new CompletableFuture<>();
        Wire serverWire = wires.get();
        Wire clientWire = wires.get();
        Channel server = loopback.bind(port, ch -> {
            serverWire.initPipeline(ch.pipeline(), true, new CompletableFuture<>());
            ch.pipeline().addLast(new Sink(serverWire, payload, (long) size * iterations));
        });
        Channel client = null;
        try {
            CompletableFuture<Void> ready = new CompletableFuture<>();
            client = loopback.connect(server, ch -> {
                clientWire.initPipeline(ch.pipeline(), false, ready);
                ch.pipeline().addLast(new Sender(clientWire, ready, payload, size, iterations, progress, elapsed));
            });
            long nanos = elapsed.get(10, TimeUnit.MINUTES);
            double seconds = nanos / 1e9;
            return new PerfResult(clientWire.name() + "-stream", size, iterations,
                    (double) size * iterations / seconds / (1024 * 1024), iterations / seconds, Double.NaN,
                    Double.NaN);
        } finally {
            if (client != null) {
                client.close().syncUninterruptibly();
            }
            server.close().syncUninterruptibly();
        }
    }

    private static final class Sender extends ChannelInboundHandlerAdapter {
        private final Wire wire;
        private final CompletableFuture<Void> ready;
        private final ByteBuf payload;
        private final int size;
        private final long iterations;
        private final AtomicLong progress;
        private final CompletableFuture<Long> elapsed;
        private ChannelHandlerContext ctx;
        private long sent;
        private long start;
        private boolean started;

        Sender(Wire wire, CompletableFuture<Void> ready, ByteBuf payload, int size, long iterations,
                AtomicLong progress, CompletableFuture<Long> elapsed) {
            this.wire = wire;
            this.ready = ready;
            this.payload = payload;
            this.size = size;
            this.iterations = iterations;
            this.progress = progress;
            this.elapsed = elapsed;
        }

        @Override
        public void handlerAdded(ChannelHandlerContext ctx) {
            this.ctx = ctx;
            ready.whenComplete((v, failure) -> {
                if (failure != null) {
                    elapsed.completeExceptionally(failure);
                } else {
                    started = true;
                    start = System.nanoTime();
                    pump();
                }
            });
        }

        private void pump() {
            Channel ch = ctx.channel();
            while (sent < iterations && ch.isWritable()) {
                wire.write(ctx, payload, size);
                sent++;
                if ((sent & 1023) == 0) {
                    progress.set(sent);
                }
            }
            progress.set(sent);
            ctx.flush();
        }

        @Override
        public void channelWritabilityChanged(ChannelHandlerContext ctx) {
            if (started && ctx.channel().isWritable()) {
                pump();
            }
            ctx.fireChannelWritabilityChanged();
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            ((ByteBuf) msg).release();
            elapsed.complete(System.nanoTime() - start);
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) {
            elapsed.completeExceptionally(new IllegalStateException("the connection closed during the test"));
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            elapsed.completeExceptionally(cause);
            ctx.close();
        }
    }

    private static final class Sink extends ChannelInboundHandlerAdapter {
        private final Wire wire;
        private final ByteBuf payload;
        private final long expected;
        private long received;

        Sink(Wire wire, ByteBuf payload, long expected) {
            this.wire = wire;
            this.payload = payload;
            this.expected = expected;
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            ByteBuf b = (ByteBuf) msg;
            received += wire.payloadLength(b);
            b.release();
            if (received == expected) {
                wire.write(ctx, payload, 1);
                ctx.flush();
            }
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            ctx.close();
        }
    }
}
