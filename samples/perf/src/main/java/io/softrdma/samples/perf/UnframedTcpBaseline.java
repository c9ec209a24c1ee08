package io.softrdma.samples.perf;

import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.softrdma.samples.perf.PerfProtocol.Test;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The raw TCP reference as it was before issue 18 ({@code --baseline old}), kept so that runs can show
 * what the framed one ({@link TcpBaseline}) changed: unframed octets, each message its own buffer.
 * Measured with plain Netty channels (same allocator, same water marks, one
 * event loop per side as SoftRDMA has):
 *
 * <ul>
 *   <li>{@link #stream}: messages one way as fast as the connection takes them; the receiver
 *       acknowledges every {@link #BATCH} messages with one octet, and the run ends when the last batch
 *       is acknowledged — the counterpart of Write and Send bandwidth;
 *   <li>{@link #requestResponse}: a request of one size answered by a response of another, with a
 *       window of requests in flight — Read bandwidth (16-octet requests, {@code size} responses) and,
 *       with a window of one, every latency (Write: size → 1, Read: 16 → size, Send: size → size);
 *   <li>{@link #atomic}: the same for RFC 7306 atomics, with content: requests laid out as the Atomic
 *       Request (52 octets), each applied by the server to an {@link AtomicLong} and answered with the
 *       Atomic Response (12 octets: the request's identifier and the value before).
 * </ul>
 * TCP frames nothing, so these are the floor any framing is compared with. A payload buffer is sent
 * as retained slices, so that, as with SoftRDMA, nothing is copied before the socket.
 *
 * <p>Why this class is long: it is the raw-TCP counterpart of every perf test, written out test by test so that each
 * baseline does the same exchange as the RDMA row beside it.
 */
final class UnframedTcpBaseline implements TcpReference {
    /** Stateless: one for every run. */
    static final UnframedTcpBaseline INSTANCE = new UnframedTcpBaseline();
    /** Messages per acknowledgement in a stream; a run is a whole number of batches. */
    static final int BATCH = 64;
    /** RFC 7306 §4's Atomic Request after the RDMAP header: what a raw TCP atomic request carries. */
    static final int ATOMIC_REQUEST = 52;
    /** The Atomic Response after the RDMAP header: Original Request Identifier and Original Remote Data Value. */
    static final int ATOMIC_RESPONSE = 12;
    /** RFC 7306's atomic opcodes, in the low 4 bits of the request's first word. */
    private static final int FETCH_ADD = 0;
    private static final int COMPARE_SWAP = 2;

    private UnframedTcpBaseline() {
    }

    /**
     * Streams {@code size}-octet messages for the warm-up budget, then, on the same connection, for the
     * measured one (each rounded up to whole batches); {@code measuring} runs when the warm-up is over.
     */
    @Override
    public Measured stream(Loopback loopback, ByteBuf payload, int size, Budget warmup, Budget budget, double rate,
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
    @Override
    public Measured requestResponse(Loopback loopback, ByteBuf payload, int requestSize, int responseSize,
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

    /**
     * Atomic operations on a server's {@link AtomicLong}, at most {@code window} outstanding, for the warm-up
     * budget and then, on the same connection, for the measured one, as SoftRDMA's: Fetch-and-Add adds 1
     * ({@code getAndAdd}); Compare-and-Swap ({@code compareAndExchange}) expects 0 and swaps in 0 with a window
     * above one, and with a window of one (latency) is the serial increment, each expecting what the one
     * before returned, plus 1. Each returned value is checked as it arrives (responses come in order), and the
     * server's word at the end goes into {@code check} (phase "latency" with a window of one, else
     * "bandwidth"). With a window of one, also fills {@code rtts} with the measured round trips.
     */
    @Override
    public Measured atomic(Loopback loopback, Test test, Budget warmup, Budget budget, double rate, int window,
            long[] rtts, AtomicLong progress, Runnable measuring, WordCheck check) throws Exception {
        CompletableFuture<Long> elapsed = new CompletableFuture<>();
        AtomicLong word = new AtomicLong();
        Channel server = loopback.bind(0, ch -> ch.pipeline().addLast(new AtomicResponder(word)));
        Channel client = null;
        try {
            AtomicRequester requester = new AtomicRequester(test, warmup, budget, rate, window, rtts, progress,
                    measuring, elapsed);
            client = loopback.connect(server, ch -> ch.pipeline().addLast(requester));
            long nanos = elapsed.get(timeoutSeconds(warmup) + timeoutSeconds(budget), TimeUnit.SECONDS);
            // The server applied every operation before it answered the last: its word is final.
            long n = requester.applied();
            boolean serial = window == 1;
            String row = "tcp-" + test.wireName();
            if (test == Test.FETCH_ADD) {
                check.verify(row, serial ? "latency" : "bandwidth", n + " fetch-adds of 1", n, word.get());
            } else if (serial) {
                check.verify(row, "latency", n + " serial compare-swaps of v for v+1, each swapping", n, word.get());
            } else {
                check.verify(row, "bandwidth", n + " compare-swaps of 0 for 0, each finding 0", 0, word.get());
            }
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

    /**
     * Fixed-size records out of a stream's reads: {@link #next} returns the buffer whose reader index is where
     * the next whole record starts — a record split across reads, completed first, or {@code in} itself — or
     * null when what is left of {@code in} is too short (it is kept for the next read).
     */
    private static final class Records {
        private final int size;
        private ByteBuf partial;

        Records(int size) {
            this.size = size;
        }

        ByteBuf next(ChannelHandlerContext ctx, ByteBuf in) {
            if (partial != null && partial.isReadable()) {
                partial.writeBytes(in, Math.min(size - partial.readableBytes(), in.readableBytes()));
                if (partial.readableBytes() < size) {
                    return null;
                }
                return partial;
            }
            if (in.readableBytes() >= size) {
                return in;
            }
            if (in.isReadable()) {
                if (partial == null) {
                    partial = ctx.alloc().buffer(size, size);
                }
                partial.writeBytes(in);
            }
            return null;
        }

        /** The record {@link #next} returned has been read: moves past it. */
        void consumed(ByteBuf from) {
            if (from == partial) {
                partial.clear();
            } else {
                from.skipBytes(size);
            }
        }

        void release() {
            if (partial != null) {
                partial.release();
                partial = null;
            }
        }
    }

    /** Applies each Atomic Request to the word and answers it; one response buffer per read. */
    private static final class AtomicResponder extends ChannelInboundHandlerAdapter {
        private final AtomicLong word;
        private final Records requests = new Records(ATOMIC_REQUEST);
        private ByteBuf responses;

        AtomicResponder(AtomicLong word) {
            this.word = word;
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            ByteBuf in = (ByteBuf) msg;
            try {
                for (ByteBuf r; (r = requests.next(ctx, in)) != null; requests.consumed(r)) {
                    int i = r.readerIndex();
                    // Opcode word, Request Identifier, Remote STag and TO (unused: one word), Add/Swap Data and
                    // Mask, Compare Data and Mask (RFC 7306 §4); the masks are the plain operations' (0, ~0).
                    int opcode = r.getInt(i) & 0xF;
                    long data = r.getLong(i + 20);
                    long original = opcode == FETCH_ADD ? word.getAndAdd(data)
                            : word.compareAndExchange(r.getLong(i + 36), data);
                    if (responses == null) {
                        responses = ctx.alloc().directBuffer(ATOMIC_RESPONSE * 32);
                    }
                    responses.writeInt(r.getInt(i + 4)).writeLong(original);
                }
            } finally {
                in.release();
            }
        }

        @Override
        public void channelReadComplete(ChannelHandlerContext ctx) {
            if (responses != null) {
                ctx.writeAndFlush(responses, ctx.voidPromise());
                responses = null;
            }
        }

        @Override
        public void handlerRemoved(ChannelHandlerContext ctx) {
            requests.release();
            if (responses != null) {
                responses.release();
                responses = null;
            }
        }
    }

    /** Sends Atomic Requests, {@code window} outstanding, and checks each response's value. */
    private static final class AtomicRequester extends PhasedClient {
        private final Test test;
        private final int window;
        private final long[] rtts;
        private final AtomicLong progress;
        private final Records responses = new Records(ATOMIC_RESPONSE);
        /** This phase's operations: fixed, or unbounded until a timed phase's deadline. */
        long total;
        private long sent;
        private long answered;
        /** Operations answered in earlier phases on this connection: the word has seen them. */
        private long before;
        /** Compare-and-Swap one at a time: what the next expects, what the one before swapped in. */
        private long expect;
        private long sentAt;

        AtomicRequester(Test test, Budget warmup, Budget budget, double rate, int window, long[] rtts,
                AtomicLong progress, Runnable measuring, CompletableFuture<Long> elapsed) {
            // Paced by the row's size, the word, as SoftRDMA's atomics are.
            super(warmup, budget, rate, PerfProtocol.ATOMIC_SIZE, measuring, elapsed);
            this.test = test;
            this.window = window;
            this.rtts = rtts;
            this.progress = progress;
        }

        /** Operations the server applied, every phase. */
        long applied() {
            return before + answered;
        }

        @Override
        void startPhase(Budget b) {
            total = b.timed() ? Long.MAX_VALUE : b.iterations();
            before += answered;
            sent = 0;
            answered = 0;
            proceed();
        }

        @Override
        void proceed() {
            if (total == Long.MAX_VALUE && pastDeadline()) {
                total = sent;
            }
            ByteBuf out = null;
            while (sent < total && sent - answered < window && pacer.mayStart(sent)) {
                if (out == null) {
                    out = ctx.alloc().directBuffer(ATOMIC_REQUEST * (int) Math.min(window, 32));
                }
                sentAt = System.nanoTime();
                // Fetch-and-Add 1 (mask 0); Compare-and-Swap all bits: expect 0, swap 0 — or, one at a time, the
                // serial increment.
                boolean add = test == Test.FETCH_ADD;
                long compare = add || window > 1 ? 0 : expect;
                long swapOrAdd = add ? 1 : window > 1 ? 0 : expect + 1;
                out.writeInt(add ? FETCH_ADD : COMPARE_SWAP).writeInt((int) sent).writeInt(0).writeLong(0)
                        .writeLong(swapOrAdd).writeLong(add ? 0 : -1L).writeLong(compare).writeLong(add ? 0 : -1L);
                sent++;
            }
            if (out != null) {
                ctx.writeAndFlush(out, ctx.voidPromise());
            }
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            ByteBuf in = (ByteBuf) msg;
            boolean any = false;
            try {
                for (ByteBuf r; (r = responses.next(ctx, in)) != null; responses.consumed(r)) {
                    long original = r.getLong(r.readerIndex() + 4);
                    long expected = test == Test.FETCH_ADD ? before + answered : window > 1 ? 0 : expect;
                    if (original != expected) {
                        failed(new IllegalStateException("tcp-" + test.wireName() + ": response " + answered
                                + " has " + original + ", expected " + expected));
                        total = answered; // send no more
                        return;
                    }
                    expect = original + 1;
                    if (rtts != null && measured()) {
                        rtts[(int) answered] = System.nanoTime() - sentAt;
                    }
                    answered++;
                    any = true;
                }
            } finally {
                in.release();
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

        @Override
        public void handlerRemoved(ChannelHandlerContext ctx) {
            responses.release();
        }
    }
}
