package io.softrdma.samples.perf;

import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The raw TCP reference, measured with plain Netty channels (same allocator, same water marks, one
 * event loop per side as SoftRDMA has):
 *
 * <ul>
 *   <li>{@link #stream}: messages one way as fast as the connection takes them; the receiver
 *       acknowledges every {@link #BATCH} messages with one octet, and the run ends when the last batch
 *       is acknowledged — the counterpart of Write and Send bandwidth;
 *   <li>{@link #requestResponse}: a request of one size answered by a response of another, with a
 *       window of requests in flight — Read bandwidth (16-octet requests, {@code size} responses) and,
 *       with a window of one, every latency (Write: size → 1, Read: 16 → size, Send: size → size).
 * </ul>
 * TCP frames nothing, so these are the floor any framing is compared with. A payload buffer is sent
 * as retained slices, so that, as with SoftRDMA, nothing is copied before the socket.
 */
final class TcpBaseline {
    /** Messages per acknowledgement in a stream; a run is a whole number of batches. */
    static final int BATCH = 64;

    private TcpBaseline() {
    }

    /**
     * Streams {@code size}-octet messages for the warm-up budget, then, on the same connection, for the
     * measured one (each rounded up to whole batches); {@code measuring} runs when the warm-up is over.
     */
    static Measured stream(Loopback loopback, ByteBuf payload, int size, Budget warmup, Budget budget, double rate,
            AtomicLong progress, Runnable measuring) throws Exception {
        CompletableFuture<Long> elapsed = new CompletableFuture<>();
        long batchBytes = (long) size * BATCH;
        Channel server = loopback.bind(0, ch -> ch.pipeline().addLast(new ChannelInboundHandlerAdapter() {
            private long received;
            private int acks;

            @Override
            public void channelRead(ChannelHandlerContext ctx, Object msg) {
                ByteBuf b = (ByteBuf) msg;
                received += b.readableBytes();
                b.release();
                for (; received >= batchBytes; received -= batchBytes) {
                    acks++;
                }
            }

            @Override
            public void channelReadComplete(ChannelHandlerContext ctx) {
                if (acks > 0) {
                    for (int n; acks > 0; acks -= n) {
                        n = Math.min(acks, payload.capacity());
                        ctx.write(payload.retainedSlice(0, n), ctx.voidPromise());
                    }
                    ctx.flush();
                }
            }
        }));
        Channel client = null;
        try {
            Sender sender = new Sender(payload, size, warmup, budget, rate, progress, measuring, elapsed);
            client = loopback.connect(server, ch -> ch.pipeline().addLast(sender));
            long nanos = elapsed.get(timeoutSeconds(warmup) + timeoutSeconds(budget), TimeUnit.SECONDS);
            return new Measured(sender.iterations, nanos);
        } finally {
            close(client, server);
        }
    }

    /**
     * Exchanges requests and responses with at most {@code window} requests outstanding, for the
     * warm-up budget and then, on the same connection, for the measured one; with a window of one, also
     * fills {@code rtts} with the measured exchanges' round trips. {@code measuring} runs when the
     * warm-up is over.
     */
    static Measured requestResponse(Loopback loopback, ByteBuf payload, int requestSize, int responseSize,
            Budget warmup, Budget budget, double rate, int window, long[] rtts, AtomicLong progress,
            Runnable measuring) throws Exception {
        CompletableFuture<Long> elapsed = new CompletableFuture<>();
        Channel server = loopback.bind(0, ch -> ch.pipeline().addLast(new ChannelInboundHandlerAdapter() {
            private long received;

            @Override
            public void channelRead(ChannelHandlerContext ctx, Object msg) {
                ByteBuf b = (ByteBuf) msg;
                received += b.readableBytes();
                b.release();
                while (received >= requestSize) {
                    received -= requestSize;
                    ctx.write(payload.retainedSlice(0, responseSize), ctx.voidPromise());
                }
            }

            @Override
            public void channelReadComplete(ChannelHandlerContext ctx) {
                ctx.flush();
            }
        }));
        Channel client = null;
        try {
            Requester requester = new Requester(payload, requestSize, responseSize, warmup, budget, rate, window,
                    rtts, progress, measuring, elapsed);
            client = loopback.connect(server, ch -> ch.pipeline().addLast(requester));
            long nanos = elapsed.get(timeoutSeconds(warmup) + timeoutSeconds(budget), TimeUnit.SECONDS);
            return new Measured(requester.total, nanos);
        } finally {
            close(client, server);
        }
    }

    private static long timeoutSeconds(Budget budget) {
        return 60 + budget.duration().toSeconds() + budget.iterations() / 1000;
    }

    private static void close(Channel client, Channel server) {
        if (client != null) {
            client.close().syncUninterruptibly();
        }
        server.close().syncUninterruptibly();
    }

    /**
     * A client that runs a warm-up phase (unless empty) and then the measured one on its connection,
     * each for its budget, paced when a rate is given.
     */
    private abstract static class PhasedClient extends ChannelInboundHandlerAdapter {
        private final Budget[] phases;
        private final double rate;
        private final int pacedSize;
        private final Runnable measuring;
        private final CompletableFuture<Long> elapsed;
        ChannelHandlerContext ctx;
        Pacer pacer;
        private int phase;
        private long start;
        long deadline;

        PhasedClient(Budget warmup, Budget budget, double rate, int pacedSize, Runnable measuring,
                CompletableFuture<Long> elapsed) {
            this.phases = warmup.isEmpty() ? new Budget[] {budget} : new Budget[] {warmup, budget};
            this.rate = rate;
            this.pacedSize = pacedSize;
            this.measuring = measuring;
            this.elapsed = elapsed;
        }

        @Override
        public void channelActive(ChannelHandlerContext ctx) {
            this.ctx = ctx;
            this.pacer = new Pacer(rate, pacedSize, ctx.executor(), this::proceed);
            begin();
        }

        private void begin() {
            if (measured()) {
                measuring.run();
            }
            start = System.nanoTime();
            deadline = phases[phase].deadline(start);
            pacer.start(start);
            startPhase(phases[phase]);
        }

        boolean measured() {
            return phase == phases.length - 1;
        }

        /** The current phase is over: the next begins, or the run ends. */
        void phaseDone() {
            if (++phase < phases.length) {
                begin();
            } else {
                elapsed.complete(System.nanoTime() - start);
            }
        }

        boolean pastDeadline() {
            return System.nanoTime() - deadline >= 0;
        }

        /** Resets the counters for a phase of this budget and starts it. */
        abstract void startPhase(Budget budget);

        /** Sends what may be sent now. */
        abstract void proceed();
    }

    private static final class Sender extends PhasedClient {
        private final ByteBuf payload;
        private final int size;
        private final AtomicLong progress;
        /** This phase's messages: fixed (whole batches), or unbounded until a timed phase's deadline. */
        long iterations;
        private long sent;
        private long acknowledged;

        Sender(ByteBuf payload, int size, Budget warmup, Budget budget, double rate, AtomicLong progress,
                Runnable measuring, CompletableFuture<Long> elapsed) {
            super(warmup, budget, rate, size, measuring, elapsed);
            this.payload = payload;
            this.size = size;
            this.progress = progress;
        }

        private static long roundUp(long n) {
            return (n + BATCH - 1) / BATCH * BATCH;
        }

        @Override
        void startPhase(Budget b) {
            iterations = b.timed() ? Long.MAX_VALUE : roundUp(b.iterations());
            sent = 0;
            acknowledged = 0;
            proceed();
        }

        @Override
        void proceed() {
            if (iterations == Long.MAX_VALUE && pastDeadline()) {
                iterations = roundUp(sent + 1);
            }
            while (sent < iterations && ctx.channel().isWritable() && pacer.mayStart(sent)) {
                ctx.write(payload.retainedSlice(0, size), ctx.voidPromise());
                sent++;
            }
            ctx.flush();
        }

        @Override
        public void channelWritabilityChanged(ChannelHandlerContext ctx) {
            if (ctx.channel().isWritable() && this.ctx != null) {
                proceed();
            }
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            ByteBuf b = (ByteBuf) msg;
            acknowledged += (long) b.readableBytes() * BATCH;
            b.release();
            if (measured()) {
                progress.set(acknowledged);
            }
            if (acknowledged >= iterations) {
                phaseDone();
            } else if (iterations == Long.MAX_VALUE) {
                // Check the deadline even while the channel stays writable.
                proceed();
            }
        }
    }

    private static final class Requester extends PhasedClient {
        private final ByteBuf payload;
        private final int requestSize;
        private final int responseSize;
        private final int window;
        private final long[] rtts;
        private final AtomicLong progress;
        /** This phase's exchanges: fixed, or unbounded until a timed phase's deadline. */
        long total;
        private long sent;
        private long answered;
        private long received;
        private long sentAt;

        Requester(ByteBuf payload, int requestSize, int responseSize, Budget warmup, Budget budget, double rate,
                int window, long[] rtts, AtomicLong progress, Runnable measuring, CompletableFuture<Long> elapsed) {
            // Paced by what the requests ask for: the responses.
            super(warmup, budget, rate, responseSize, measuring, elapsed);
            this.payload = payload;
            this.requestSize = requestSize;
            this.responseSize = responseSize;
            this.window = window;
            this.rtts = rtts;
            this.progress = progress;
        }

        @Override
        void startPhase(Budget b) {
            total = b.timed() ? Long.MAX_VALUE : b.iterations();
            sent = 0;
            answered = 0;
            proceed();
        }

        @Override
        void proceed() {
            if (total == Long.MAX_VALUE && pastDeadline()) {
                total = sent;
            }
            while (sent < total && sent - answered < window && pacer.mayStart(sent)) {
                sentAt = System.nanoTime();
                ctx.write(payload.retainedSlice(0, requestSize), ctx.voidPromise());
                sent++;
            }
            ctx.flush();
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            ByteBuf b = (ByteBuf) msg;
            received += b.readableBytes();
            b.release();
            boolean any = false;
            while (received >= responseSize) {
                received -= responseSize;
                if (rtts != null && measured()) {
                    rtts[(int) answered] = System.nanoTime() - sentAt;
                }
                answered++;
                any = true;
            }
            if (!any) {
                return;
            }
            if (measured()) {
                progress.set(answered);
            }
            proceed();
            if (answered == total) {
                phaseDone();
            }
        }
    }
}
