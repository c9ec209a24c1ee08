package io.softrdma.samples.perf;

import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.socket.SocketChannel;
import io.softrdma.samples.perf.PerfProtocol.Test;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

/**
 * The raw TCP reference: what a well-written Netty application gets
 * from the same transport and the same model as SoftRDMA (plain channels, one event loop per side, the pooled
 * allocator, the same water marks). Every message is a frame, a 4-octet length and a body, as any protocol over
 * TCP must delimit its messages (SoftRDMA's are MPA FPDUs); what makes it fast is what such an application does:
 *
 * <ul>
 *   <li>frames go out batched ({@link FrameWriter}): small ones encoded together into one pooled buffer, many
 *       per write and one flush per burst; 64 KiB ones as a header (padded to 64 octets, so that bodies stay
 *       aligned) and a retained slice of the payload, not copied;
 *   <li>frames come in decoded in place ({@link FrameReader}): no object per frame;
 *   <li>responses go out {@link #RESPONSES_PER_FLUSH} at a time, written and flushed as soon as that many are due,
 *       even in the middle of a read, and the rest at its end ({@code channelReadComplete}); requests are written
 *       together, for all the responses a read brought.
 * </ul>
 * The exchanges, each the counterpart of the RDMA row beside it:
 * <ul>
 *   <li>{@link #stream}: frames one way as fast as the connection takes them; the receiver acknowledges
 *       every {@link #BATCH} frames with one octet, and the run ends when the last batch is acknowledged —
 *       Write and Send bandwidth;
 *   <li>{@link #requestResponse}: request frames answered by response frames, at most a window outstanding —
 *       Read bandwidth and, with a window of one (one frame, flush, one response: a ping-pong), every latency;
 *   <li>{@link #atomic}: RFC 7306 atomics with content: request frames laid out as the Atomic Request
 *       (52 octets), each applied by the server to an {@link AtomicLong} and answered with an Atomic Response
 *       frame (12 octets: the request's identifier and the value before).
 * </ul>
 *
 * <p>Why this class is long: it is the raw-TCP counterpart of every perf test, written out exchange by exchange so
 * that each baseline does the same work as the RDMA row beside it.
 */
final class TcpBaseline implements TcpReference {
    /** Stateless: one for every run. */
    static final TcpBaseline INSTANCE = new TcpBaseline();
    /** Frames per acknowledgement in a stream; a run is a whole number of batches. */
    static final int BATCH = 64;
    /** RFC 7306 §5.2.1's Atomic Request after the RDMAP header: what a raw TCP atomic request carries. */
    private static final int ATOMIC_REQUEST = 52;
    /** The Atomic Response after the RDMAP header: Original Request Identifier and Original Remote Data Value. */
    private static final int ATOMIC_RESPONSE = 12;
    /** RFC 7306's atomic opcodes, in the low 4 bits of the request's first word. */
    private static final int FETCH_ADD = 0;
    private static final int COMPARE_SWAP = 2;

    /**
     * Responses written and flushed at once, in the middle of a read, once this many are due: the requester starts
     * on them while the responder answers the rest of the read, rather than each side idling while the other works
     * through a whole window. With 128 outstanding this raised the 64 B request/response rows 1.5× over one flush per
     * read; 8 was slower than 16, and 32 gained less (docs/benchmarks.md, "Read cycles of 32 segments").
     */
    static final int RESPONSES_PER_FLUSH = 16;

    private TcpBaseline() {
    }

    /**
     * The channel's only handler. Reads use Netty's adaptive read buffers: fixed 64 KiB ones, as SoftRDMA's, cost
     * more CPU per Read response here, and fixed 256 KiB ones gained nothing measurable.
     */
    private static Consumer<SocketChannel> init(ChannelInboundHandlerAdapter handler) {
        return ch -> ch.pipeline().addLast(handler);
    }

    @Override
    public Measured stream(Loopback loopback, ByteBuf payload, int size, Budget warmup, Budget budget, double rate,
            AtomicLong progress, Runnable measuring) throws Exception {
        CompletableFuture<Long> elapsed = new CompletableFuture<>();
        Channel server = loopback.bind(0, ch -> init(new StreamReceiver(payload, size)).accept(ch));
        Channel client = null;
        try {
            Sender sender = new Sender(payload, size, warmup, budget, rate, progress, measuring, elapsed);
            client = loopback.connect(server, init(sender));
            long nanos = elapsed.get(warmup.timeoutSeconds() + budget.timeoutSeconds(), TimeUnit.SECONDS);
            return new Measured(sender.iterations, nanos);
        } finally {
            close(client, server);
        }
    }

    @Override
    public Measured requestResponse(Loopback loopback, ByteBuf payload, int requestSize, int responseSize,
            Budget warmup, Budget budget, double rate, int window, long[] rtts, AtomicLong progress,
            Runnable measuring) throws Exception {
        CompletableFuture<Long> elapsed = new CompletableFuture<>();
        Channel server = loopback.bind(0, ch -> init(new Responder(payload, requestSize, responseSize)).accept(ch));
        Channel client = null;
        try {
            Requester requester = new Requester(payload, requestSize, responseSize, warmup, budget, rate, window,
                    rtts, progress, measuring, elapsed);
            client = loopback.connect(server, init(requester));
            long nanos = elapsed.get(warmup.timeoutSeconds() + budget.timeoutSeconds(), TimeUnit.SECONDS);
            return new Measured(requester.total, nanos);
        } finally {
            close(client, server);
        }
    }

    @Override
    public Measured atomic(Loopback loopback, Test test, Budget warmup, Budget budget, double rate, int window,
            long[] rtts, AtomicLong progress, Runnable measuring, WordCheck check) throws Exception {
        CompletableFuture<Long> elapsed = new CompletableFuture<>();
        AtomicLong word = new AtomicLong();
        Channel server = loopback.bind(0, ch -> init(new AtomicResponder(word)).accept(ch));
        Channel client = null;
        try {
            AtomicRequester requester = new AtomicRequester(test, warmup, budget, rate, window, rtts, progress,
                    measuring, elapsed);
            client = loopback.connect(server, init(requester));
            long nanos = elapsed.get(warmup.timeoutSeconds() + budget.timeoutSeconds(), TimeUnit.SECONDS);
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

    private static void close(Channel client, Channel server) {
        if (client != null) {
            client.close().syncUninterruptibly();
        }
        server.close().syncUninterruptibly();
    }

    /** Counts a stream's frames and acknowledges each {@link #BATCH} with one octet, once per read. */
    private static final class StreamReceiver extends ChannelInboundHandlerAdapter {
        private final ByteBuf payload;
        private final FrameReader frames;
        private long received;
        private int acks;

        StreamReceiver(ByteBuf payload, int size) {
            this.payload = payload;
            this.frames = new FrameReader(size);
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            ByteBuf in = (ByteBuf) msg;
            try {
                received += frames.skip(in);
            } finally {
                in.release();
            }
            for (; received >= BATCH; received -= BATCH) {
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
    }

    /** Streams frames while the channel is writable, many per buffer and per flush. */
    private static final class Sender extends PhasedClient {
        private final ByteBuf payload;
        private final int size;
        private final int perWrite;
        private final AtomicLong progress;
        /** This phase's frames: fixed (whole batches), or unbounded until a timed phase's deadline. */
        long iterations;
        private long sent;
        private long acknowledged;

        Sender(ByteBuf payload, int size, Budget warmup, Budget budget, double rate, AtomicLong progress,
                Runnable measuring, CompletableFuture<Long> elapsed) {
            super(warmup, budget, rate, size, measuring, elapsed);
            this.payload = payload;
            this.size = size;
            // Frames between writability checks: one encoded buffer's worth.
            this.perWrite = Math.max(1, FrameWriter.BUFFER_OCTETS / (FrameReader.headerOctets(size) + size));
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
            while (sent < iterations && ctx.channel().isWritable()) {
                long n = 0;
                while (n < perWrite && sent + n < iterations && pacer.mayStart(sent + n)) {
                    n++;
                }
                if (n == 0) {
                    break;
                }
                FrameWriter.write(ctx, payload, size, n);
                sent += n;
            }
            // One flush for the burst: flushing each buffer measured no faster and costs a system call each.
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

    /** Answers each request frame with a response frame, {@link #RESPONSES_PER_FLUSH} per flush. */
    private static final class Responder extends ChannelInboundHandlerAdapter {
        private final ByteBuf payload;
        private final int responseSize;
        private final FrameReader requests;
        private long pending;

        Responder(ByteBuf payload, int requestSize, int responseSize) {
            this.payload = payload;
            this.responseSize = responseSize;
            this.requests = new FrameReader(requestSize);
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            ByteBuf in = (ByteBuf) msg;
            try {
                pending += requests.skip(in);
            } finally {
                in.release();
            }
            while (pending >= RESPONSES_PER_FLUSH) {
                FrameWriter.write(ctx, payload, responseSize, RESPONSES_PER_FLUSH);
                pending -= RESPONSES_PER_FLUSH;
                ctx.flush();
            }
        }

        @Override
        public void channelReadComplete(ChannelHandlerContext ctx) {
            if (pending > 0) {
                FrameWriter.write(ctx, payload, responseSize, pending);
                pending = 0;
                ctx.flush();
            }
        }
    }

    /** Sends request frames, {@code window} outstanding, refilled once per read. */
    private static final class Requester extends PhasedClient {
        private final ByteBuf payload;
        private final int requestSize;
        private final int window;
        private final long[] rtts;
        private final AtomicLong progress;
        private final FrameReader responses;
        /** This phase's exchanges: fixed, or unbounded until a timed phase's deadline. */
        long total;
        private long sent;
        private long answered;
        private boolean answers;
        private long sentAt;

        Requester(ByteBuf payload, int requestSize, int responseSize, Budget warmup, Budget budget, double rate,
                int window, long[] rtts, AtomicLong progress, Runnable measuring, CompletableFuture<Long> elapsed) {
            // Paced by what the requests ask for: the responses.
            super(warmup, budget, rate, responseSize, measuring, elapsed);
            this.payload = payload;
            this.requestSize = requestSize;
            this.window = window;
            this.rtts = rtts;
            this.progress = progress;
            this.responses = new FrameReader(responseSize);
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
            long n = 0;
            while (sent + n < total && sent + n - answered < window && pacer.mayStart(sent + n)) {
                n++;
            }
            if (n > 0) {
                sentAt = System.nanoTime();
                FrameWriter.write(ctx, payload, requestSize, n);
                sent += n;
                ctx.flush();
            }
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            ByteBuf in = (ByteBuf) msg;
            long n;
            try {
                n = responses.skip(in);
            } finally {
                in.release();
            }
            if (n == 0) {
                return;
            }
            if (rtts != null && measured()) {
                // One outstanding: this is its response.
                rtts[(int) answered] = System.nanoTime() - sentAt;
            }
            answered += n;
            answers = true;
        }

        @Override
        public void channelReadComplete(ChannelHandlerContext ctx) {
            if (!answers) {
                return;
            }
            answers = false;
            if (measured()) {
                progress.set(answered);
            }
            proceed();
            if (answered == total) {
                phaseDone();
            }
        }
    }

    /** Applies each Atomic Request frame to the word and answers it, {@link #RESPONSES_PER_FLUSH} per flush. */
    private static final class AtomicResponder extends ChannelInboundHandlerAdapter {
        private final AtomicLong word;
        private final FrameReader requests = new FrameReader(ATOMIC_REQUEST);
        private final FrameReader.Sink apply = this::apply;
        private ChannelHandlerContext ctx;
        private ByteBuf responses;

        AtomicResponder(AtomicLong word) {
            this.word = word;
        }

        @Override
        public void handlerAdded(ChannelHandlerContext ctx) {
            this.ctx = ctx;
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            ByteBuf in = (ByteBuf) msg;
            try {
                requests.read(ctx.alloc(), in, apply);
            } finally {
                in.release();
            }
        }

        private boolean apply(ByteBuf r, int i, int length) {
            // Opcode word, Request Identifier, Remote STag and TO (unused: one word), Add/Swap Data and Mask,
            // Compare Data and Mask (RFC 7306 §5.2.1); the masks are the plain operations' (0, ~0).
            int opcode = r.getInt(i) & 0xF;
            long data = r.getLong(i + 20);
            long original = opcode == FETCH_ADD ? word.getAndAdd(data) : word.compareAndExchange(r.getLong(i + 36), data);
            if (responses == null) {
                responses = ctx.alloc().directBuffer((FrameReader.HEADER + ATOMIC_RESPONSE) * RdmaPerfClient.WINDOW);
            }
            responses.writeInt(ATOMIC_RESPONSE).writeInt(r.getInt(i + 4)).writeLong(original);
            if (responses.readableBytes() >= RESPONSES_PER_FLUSH * (FrameReader.HEADER + ATOMIC_RESPONSE)) {
                ctx.writeAndFlush(responses, ctx.voidPromise());
                responses = null;
            }
            return true;
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

    /** Sends Atomic Request frames, {@code window} outstanding, and checks each response's value. */
    private static final class AtomicRequester extends PhasedClient {
        private final Test test;
        private final int window;
        private final long[] rtts;
        private final AtomicLong progress;
        private final FrameReader responses = new FrameReader(ATOMIC_RESPONSE);
        private final FrameReader.Sink check = this::check;
        /** This phase's operations: fixed, or unbounded until a timed phase's deadline. */
        long total;
        private long sent;
        private long answered;
        private boolean answers;
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
            long n = 0;
            while (sent + n < total && sent + n - answered < window && pacer.mayStart(sent + n)) {
                n++;
            }
            if (n == 0) {
                return;
            }
            ByteBuf out = ctx.alloc().directBuffer((int) n * (FrameReader.HEADER + ATOMIC_REQUEST));
            boolean add = test == Test.FETCH_ADD;
            for (long end = sent + n; sent < end; sent++) {
                // Fetch-and-Add 1 (mask 0); Compare-and-Swap all bits: expect 0, swap 0 — or, one at a time, the
                // serial increment.
                long compare = add || window > 1 ? 0 : expect;
                long swapOrAdd = add ? 1 : window > 1 ? 0 : expect + 1;
                out.writeInt(ATOMIC_REQUEST).writeInt(add ? FETCH_ADD : COMPARE_SWAP).writeInt((int) sent).writeInt(0)
                        .writeLong(0).writeLong(swapOrAdd).writeLong(add ? 0 : -1L).writeLong(compare)
                        .writeLong(add ? 0 : -1L);
            }
            sentAt = System.nanoTime();
            ctx.writeAndFlush(out, ctx.voidPromise());
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            ByteBuf in = (ByteBuf) msg;
            try {
                responses.read(ctx.alloc(), in, check);
            } finally {
                in.release();
            }
        }

        private boolean check(ByteBuf r, int i, int length) {
            long original = r.getLong(i + 4);
            long expected = test == Test.FETCH_ADD ? before + answered : window > 1 ? 0 : expect;
            if (original != expected) {
                failed(new IllegalStateException("tcp-" + test.wireName() + ": response " + answered + " has "
                        + original + ", expected " + expected));
                total = answered; // send no more
                answers = false;
                return false;
            }
            expect = original + 1;
            if (rtts != null && measured()) {
                rtts[(int) answered] = System.nanoTime() - sentAt;
            }
            answered++;
            answers = true;
            return true;
        }

        @Override
        public void channelReadComplete(ChannelHandlerContext ctx) {
            if (!answers) {
                return;
            }
            answers = false;
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
