package io.softrdma.samples.perf;

import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import java.util.Arrays;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;

/**
 * Round-trip latency: the client sends one message, the server echoes what it receives, and the
 * client sends the next message once the whole echo is back. The first {@code warmup} round trips
 * are not measured.
 */
final class PingPongTest {
    private PingPongTest() {
    }

    static PerfResult run(Loopback loopback, int port, Supplier<Wire> wires, ByteBuf payload, int size,
            long iterations, int warmup, AtomicLong progress) throws Exception {
        CompletableFuture<long[]> done = new CompletableFuture<>();
        Wire serverWire = wires.get();
        Wire clientWire = wires.get();
        Channel server = loopback.bind(port, ch -> {
            serverWire.initPipeline(ch.pipeline(), true, new CompletableFuture<>());
            ch.pipeline().addLast(new Echo());
        });
        Channel client = null;
        try {
            CompletableFuture<Void> ready = new CompletableFuture<>();
            PingPong pingPong = new PingPong(clientWire, ready, payload, size, iterations, warmup, progress, done);
            client = loopback.connect(server, ch -> {
                clientWire.initPipeline(ch.pipeline(), false, ready);
                ch.pipeline().addLast(pingPong);
            });
            long[] rtts = done.get(10, TimeUnit.MINUTES);
            long total = 0;
            for (long r : rtts) {
                total += r;
            }
            Arrays.sort(rtts);
            double seconds = total / 1e9;
            return new PerfResult(clientWire.name() + "-pingpong", size, iterations,
                    (double) size * iterations / seconds / (1024 * 1024), iterations / seconds,
                    rtts[rtts.length / 2] / 1e3, rtts[(int) Math.min(rtts.length - 1, rtts.length * 99L / 100)] / 1e3);
        } finally {
            if (client != null) {
                client.close().syncUninterruptibly();
            }
            server.close().syncUninterruptibly();
        }
    }

    /** Echoes every message back as it is; flushes once per read burst. */
    private static final class Echo extends ChannelInboundHandlerAdapter {
        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            ctx.write(msg, ctx.voidPromise());
        }

        @Override
        public void channelReadComplete(ChannelHandlerContext ctx) {
            ctx.flush();
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            ctx.close();
        }
    }

    private static final class PingPong extends ChannelInboundHandlerAdapter {
        private final Wire wire;
        private final CompletableFuture<Void> ready;
        private final ByteBuf payload;
        private final int size;
        private final int warmup;
        private final long total;
        private final AtomicLong progress;
        private final CompletableFuture<long[]> done;
        private final long[] rtts;
        private ChannelHandlerContext ctx;
        private long round;
        private long received;
        private long sentAt;

        PingPong(Wire wire, CompletableFuture<Void> ready, ByteBuf payload, int size, long iterations, int warmup,
                AtomicLong progress, CompletableFuture<long[]> done) {
            this.wire = wire;
            this.ready = ready;
            this.payload = payload;
            this.size = size;
            this.warmup = warmup;
            this.total = warmup + iterations;
            this.progress = progress;
            this.done = done;
            this.rtts = new long[Math.toIntExact(iterations)];
        }

        @Override
        public void handlerAdded(ChannelHandlerContext ctx) {
            this.ctx = ctx;
            ready.whenComplete((v, failure) -> {
                if (failure != null) {
                    done.completeExceptionally(failure);
                } else {
                    send();
                }
            });
        }

        private void send() {
            received = 0;
            sentAt = System.nanoTime();
            wire.write(ctx, payload, size);
            ctx.flush();
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            ByteBuf b = (ByteBuf) msg;
            received += wire.payloadLength(b);
            b.release();
            if (received < size) {
                return;
            }
            long rtt = System.nanoTime() - sentAt;
            if (round >= warmup) {
                rtts[(int) (round - warmup)] = rtt;
            }
            round++;
            progress.set(round);
            if (round < total) {
                send();
            } else {
                done.complete(rtts);
            }
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) {
            done.completeExceptionally(new IllegalStateException("the connection closed during the test"));
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            done.completeExceptionally(cause);
            ctx.close();
        }
    }
}
