package io.softrdma.samples.perf;

import io.softrdma.cm.ConnectionManager;
import io.softrdma.cm.RdmaConnection;
import io.softrdma.mpa.MpaSettings;
import io.softrdma.rdmap.RdmapExtensions;
import io.softrdma.samples.perf.PerfProtocol.Phase;
import io.softrdma.samples.perf.PerfProtocol.Reply;
import io.softrdma.samples.perf.PerfProtocol.Request;
import io.softrdma.samples.perf.PerfProtocol.Test;
import io.softrdma.verbs.Access;
import io.softrdma.verbs.CompletionQueue;
import io.softrdma.verbs.MemoryRegion;
import io.softrdma.verbs.ProtectionDomain;
import io.softrdma.verbs.QueuePair;
import io.softrdma.verbs.QueuePairConfig;
import io.softrdma.verbs.RdmaDevice;
import io.softrdma.verbs.ReceiveWorkRequest;
import io.softrdma.verbs.ScatterGatherEntry;
import io.softrdma.verbs.SendWorkRequest;
import io.softrdma.verbs.WorkCompletion;
import io.softrdma.verbs.WorkCompletionOpcode;
import java.net.SocketAddress;
import java.time.Duration;
import java.util.Arrays;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The perf client: one connection per phase, driven from the completion queue on the connection's
 * event loop with prebuilt work requests, so that the measured path allocates nothing of its own.
 *
 * <ul>
 *   <li>Bandwidth: up to {@link #WINDOW} operations in flight (Reads and atomics: at most the ORD);
 *       Writes are signaled every 16th; the run ends when the server confirmed every Write (a final Send
 *       and its acknowledgement), every Read or atomic completed, or every Send was credited back.
 *       Fetch-and-Add adds 1; Compare-and-Swap compares with 0 and swaps in 0, so on the word, which stays
 *       0, every one succeeds.
 *   <li>Latency: one operation at a time. Write: the Write and a Send telling the server, answered by a
 *       Send (write placed to acknowledgement). Read: one Read. Send: a Send echoed by the server.
 *       Fetch-and-Add: one, adding 1. Compare-and-Swap: a serial increment, each expecting what the one
 *       before swapped in (the value it returned, plus 1), so that every one succeeds.
 * </ul>
 * Each atomic's returned value is checked as it completes (a Fetch-and-Add's is the count before it, as the
 * responder answers in order), and after each phase an RDMA Read of the word checks what the operations left
 * there ({@link WordCheck}).
 *
 * <p>Why this class is long: it is the verbs benchmark's client, each test's warm-up, bandwidth and latency phase
 * written out so that a row measures exactly what its name says.
 */
final class RdmaPerfClient {
    /** Operations in flight in the bandwidth phase, as perftest's default tx depth. */
    static final int WINDOW = 128;
    /**
     * Octets of small messages a stream (Write or Send bandwidth) on one connection keeps in flight: 64 KiB, as raw
     * TCP's stream fills 64 KiB buffers. With {@link #WINDOW} alone, 64-octet Writes went out 128 (11 KB) per system
     * call and 64-octet Sends waited on the credit round trip of 128 (docs/benchmarks.md, "Send bound by its receives",
     * "Writes in 64 KiB").
     */
    private static final int STREAM_OCTETS = 64 * 1024;
    /**
     * The most operations a stream keeps in flight: the send queue's 1,024 less room for the signaled ones and the last
     * control Send.
     */
    static final int MAX_STREAM_WINDOW = 960;
    private static final int SIGNAL_EVERY = 16;

    private final ConnectionManager cm;
    private final RdmaDevice device;
    private final SocketAddress server;
    private final MpaSettings mpa;
    private final double rate;

    /** @param rate MiB/s at most (latency round trips spaced out accordingly), or 0 for no limit */
    RdmaPerfClient(ConnectionManager cm, RdmaDevice device, SocketAddress server, MpaSettings mpa, double rate) {
        this.cm = cm;
        this.device = device;
        this.server = server;
        this.mpa = mpa;
        this.rate = rate;
    }

    /**
     * Bandwidth: as many operations as the budget allows, {@link #WINDOW} in flight, after a warm-up on
     * the same connection (a new connection takes paths the JIT has to compile again); {@code measuring}
     * runs when the warm-up is over. An atomic test's word is checked into {@code check} at the end.
     */
    Measured bandwidth(Test test, int size, Budget warmup, Budget budget, AtomicLong progress, Runnable measuring,
            WordCheck check) throws Exception {
        try (Session s = new Session(this, test, Phase.BANDWIDTH, size, receivesToAsk(test, size), true)) {
            if (!warmup.isEmpty()) {
                s.run(new BandwidthRun(s, test, size, warmup, rate, new AtomicLong()), warmup);
            }
            measuring.run();
            BandwidthRun run = new BandwidthRun(s, test, size, budget, rate, progress);
            long nanos = s.run(run, budget);
            if (test.atomic()) {
                // Fetch-and-Add: 1 each, warm-up included; Compare-and-Swap: 0 for 0, the word stays 0.
                long n = s.atomicsBefore;
                check.verify(test.wireName(), "bandwidth", test == Test.FETCH_ADD ? n + " fetch-adds of 1"
                        : n + " compare-swaps of 0 for 0, each finding 0", test == Test.FETCH_ADD ? n : 0,
                        s.readWord());
            }
            return new Measured(run.iterations, nanos);
        }
    }

    /**
     * Latency: returns the round trips in nanoseconds, sorted; with a rate, they start no faster. An atomic
     * test's word is checked into {@code check} at the end.
     */
    long[] latency(Test test, int size, long iterations, int warmup, AtomicLong progress, WordCheck check)
            throws Exception {
        try (Session s = open(test, Phase.LATENCY, size)) {
            LatencyRun run = new LatencyRun(s, test, size, iterations, warmup, rate, progress);
            s.run(run, Budget.of(iterations));
            if (test.atomic()) {
                // Both add 1 per round trip: Fetch-and-Add of 1, or the serial Compare-and-Swap increment.
                long n = s.atomicsBefore;
                check.verify(test.wireName(), "latency", test == Test.FETCH_ADD ? n + " fetch-adds of 1"
                        : n + " serial compare-swaps of v for v+1, each swapping", n, s.readWord());
            }
            long[] rtts = run.rtts;
            Arrays.sort(rtts);
            return rtts;
        }
    }

    /**
     * The receives one connection's bandwidth phase asks the server for: a Send stream's 64 KiB of them where that is
     * more than the server's default (messages up to 256 octets); none otherwise. Deeper, 4 KiB Sends ran at half the
     * rate (4 MiB of receive buffers cycled through).
     */
    static int receivesToAsk(Test test, int size) {
        int receives = Math.min(RdmaPerfServer.MAX_RECEIVES, STREAM_OCTETS / size);
        return test == Test.SEND && receives > RdmaPerfServer.DEFAULT_RECEIVES ? receives : 0;
    }

    /** Operations one connection's Write or Send stream keeps in flight: 64 KiB of them, 128 to 960. */
    static int streamWindow(int size) {
        return Math.max(WINDOW, Math.min(MAX_STREAM_WINDOW, STREAM_OCTETS / size));
    }

    /**
     * A connection to the server prepared for {@code test} in {@code phase}, with the server's default receives (as
     * {@link ConnectionScale}'s many connections); the caller closes it.
     */
    Session open(Test test, Phase phase, int size) throws Exception {
        return new Session(this, test, phase, size, 0, false);
    }

    /**
     * Starts a bandwidth run on {@code s}, a session {@link #open opened} for {@code test} and {@code size}, without
     * waiting for it ({@link ConnectionScale} runs one on each of many sessions at once): completes with the
     * operations it completed and its nanoseconds.
     */
    CompletableFuture<Measured> startBandwidth(Session s, Test test, int size, Budget budget, AtomicLong progress) {
        BandwidthRun run = new BandwidthRun(s, test, size, budget, rate, progress);
        return s.start(run).thenApply(nanos -> new Measured(run.iterations, nanos));
    }

    /**
     * A connection with its resources. One completion-queue listener serves every run on it: it hands
     * each completion to the current run and reposts each receive, so that none is lost between runs.
     */
    static final class Session implements AutoCloseable {
        final ProtectionDomain pd;
        final CompletionQueue cq;
        final QueuePair qp;
        final MemoryRegion local;
        final MemoryRegion control;
        final ReceiveWorkRequest[] receives;
        final RdmaConnection connection;
        final Reply reply;
        /** Sends posted by earlier runs on this connection: the server's running count includes them. */
        long sendsBefore;
        /** Atomics completed by earlier runs on this connection: the word has seen them. */
        long atomicsBefore;
        private volatile Run current;
        private final CompletionQueue.Handler dispatcher = this::dispatch;
        /** Set before the queue pair closes: receives completing after it are not reposted. */
        private volatile boolean closing;

        /** Whether a stream keeps {@link #streamWindow} in flight, not {@link #WINDOW}: one connection's, not many. */
        final boolean deep;

        /**
         * @param receivesAsked receives to ask the server for (Send bandwidth), or 0: as many as it posts by default
         * @param deep whether a Write or Send stream on it keeps {@link #streamWindow} in flight
         */
        Session(RdmaPerfClient client, Test test, Phase phase, int size, int receivesAsked, boolean deep)
                throws Exception {
            this.deep = deep;
            pd = client.device.allocateProtectionDomain();
            cq = client.device.createCompletionQueue(4096);
            // An atomic test offers RFC 7306's extensions in the MPA Request; the others send what they always did.
            qp = pd.createQueuePair(QueuePairConfig.of(cq).withSendQueueDepth(1024).withReceiveQueueDepth(64)
                    .withExtensions(test.atomic() ? RdmapExtensions.ALL : RdmapExtensions.NONE));
            local = pd.allocate(size, Access.of(Access.LOCAL_WRITE));
            for (int i = 0; i < size; i++) {
                local.buffer().setByte(i, i * 17 + 3);
            }
            int receiveSize = test == Test.SEND && phase == Phase.LATENCY ? size : RdmaPerfServer.CONTROL;
            control = pd.allocate(64 * Math.max(receiveSize, RdmaPerfServer.CONTROL), Access.of(Access.LOCAL_WRITE));
            receives = new ReceiveWorkRequest[64];
            for (int i = 0; i < receives.length; i++) {
                receives[i] = ReceiveWorkRequest.of(i, new ScatterGatherEntry(control, (long) i * receiveSize,
                        receiveSize));
                qp.postReceive(receives[i]);
            }
            cq.setListener(q -> drain());
            cq.requestNotification(false);
            byte[] request = new Request(test, phase, size, receivesAsked).encode();
            connection = client.cm.connect(client.server, qp, request, client.mpa, Duration.ofSeconds(10))
                    .get(20, TimeUnit.SECONDS);
            reply = Reply.decode(connection.peerPrivateData());
            if (test.atomic() && !qp.extensions().atomics()) {
                RdmapExtensions agreed = qp.extensions();
                close();
                throw new IllegalStateException("the perf server at " + client.server + " did not agree to RFC 7306"
                        + " atomics at connection setup (agreed: " + agreed + "): --test atomic needs a SoftRDMA"
                        + " perf server that offers them (Linux siw and iWARP NICs have none)");
            }
            qp.closeFuture().whenComplete((v, e) -> {
                Run r = current;
                if (r != null) {
                    r.done.completeExceptionally(e != null ? e
                            : new IllegalStateException("the connection closed during the test"));
                }
            });
        }

        /** Polls everything, re-arms, and polls again for what arrived in between. */
        private void drain() {
            do {
                while (cq.poll(dispatcher, 64) > 0) {
                    // keep polling
                }
                cq.requestNotification(false);
            } while (cq.poll(dispatcher, 64) > 0);
        }

        private void dispatch(WorkCompletion c) {
            Run r = current;
            if (r != null && !r.done.isDone()) {
                r.onCompletion(c);
            }
            if (c.opcode() == WorkCompletionOpcode.RECEIVE && c.isSuccess() && !closing) {
                qp.postReceive(receives[(int) c.wrId()]);
            }
        }

        /** Starts {@code run} on the event loop; completes with the nanoseconds it took. */
        CompletableFuture<Long> start(Run run) {
            current = run;
            connection.channel().eventLoop().execute(run::start);
            return run.done;
        }

        /** Starts {@code run} on the event loop and waits for it; returns the nanoseconds it took. */
        long run(Run run, Budget budget) throws Exception {
            start(run);
            // Generous: a stuck run must end, but a slow machine must not look like one.
            long seconds = 60 + budget.duration().toSeconds() + budget.iterations() / 1000;
            try {
                return run.done.get(seconds, TimeUnit.SECONDS);
            } catch (TimeoutException e) {
                throw new IllegalStateException("no progress for " + seconds + " s: " + run + " on " + qp, e);
            }
        }

        /**
         * The atomic test's word as the server holds it now, by an RDMA Read of it: call when no operation is
         * outstanding, so that the responder has applied every atomic before it answers the Read.
         */
        long readWord() throws Exception {
            WordRead read = new WordRead(this);
            run(read, Budget.of(1));
            return read.word;
        }

        @Override
        public void close() throws Exception {
            beginClose();
            finishClose();
        }

        /** Starts closing the queue pair (many sessions close at once this way, then each {@link #finishClose}). */
        void beginClose() {
            closing = true;
            qp.close();
        }

        /** Waits for the queue pair's close, then releases the memory. */
        void finishClose() throws Exception {
            qp.closeFuture().handle((v, e) -> null).get(10, TimeUnit.SECONDS);
            pd.close();
        }
    }

    /** One measurement on a session, driven by its completions on the event loop. */
    abstract static class Run {
        /** Completes with the run's nanoseconds, or with what went wrong. */
        final CompletableFuture<Long> done = new CompletableFuture<>();

        abstract void start();

        abstract void onCompletion(WorkCompletion c);

        final void fail(WorkCompletion c) {
            done.completeExceptionally(new IllegalStateException(this + ": " + c.copy()));
        }
    }

    static final class BandwidthRun extends Run {
        private final Session s;
        private final Test test;
        private final Budget budget;
        private final AtomicLong progress;
        private final SendWorkRequest signaled;
        private final SendWorkRequest unsignaled;
        private final SendWorkRequest finish;
        private final SendWorkRequest lastSend;
        private final int window;
        private final Pacer pacer;
        /** Fixed, or for a timed run unbounded until its deadline passes. */
        long iterations;
        private long start;
        private long deadline;
        private long posted;
        private long completed;
        private long credited;
        private long signalsCompleted;
        private boolean finishing;

        BandwidthRun(Session s, Test test, int size, Budget budget, double rate, AtomicLong progress) {
            this.s = s;
            this.test = test;
            this.budget = budget;
            this.iterations = budget.timed() ? Long.MAX_VALUE : budget.iterations();
            this.progress = progress;
            ScatterGatherEntry all = new ScatterGatherEntry(s.local, 0, size);
            this.signaled = switch (test) {
                case WRITE -> SendWorkRequest.write(1, s.reply.stag(), s.reply.taggedOffset(), all);
                case READ -> SendWorkRequest.read(1, all, s.reply.stag(), s.reply.taggedOffset());
                case SEND -> SendWorkRequest.send(1, all);
                case FETCH_ADD -> SendWorkRequest.fetchAdd(1, s.reply.stag(), s.reply.taggedOffset(), 1);
                // A fixed expect: 0, swapping in 0 again, so that every one succeeds and the word stays 0.
                case COMPARE_SWAP -> SendWorkRequest.compareAndSwap(1, s.reply.stag(), s.reply.taggedOffset(), 0, 0);
            };
            // Reads and atomics are always signaled: their completion is the result.
            this.unsignaled = test == Test.READ || test.atomic() ? signaled : signaled.unsignaled();
            // The last Send solicits an event, so the server credits it at once instead of in a batch.
            this.lastSend = test == Test.SEND ? signaled.withSolicitedEvent() : signaled;
            this.finish = SendWorkRequest.send(2, new ScatterGatherEntry(s.control, 0, RdmaPerfServer.CONTROL))
                    .unsignaled();
            // Reads and atomics beyond the ORD would wait in the send queue, not on the wire.
            int stream = s.deep ? streamWindow(size) : WINDOW;
            this.window = test == Test.READ || test.atomic() ? Math.min(WINDOW, s.qp.ord())
                    : test == Test.SEND ? Math.min(stream, s.reply.receiveCredits()) : stream;
            this.pacer = new Pacer(rate, size, s.connection.channel().eventLoop(), this::post);
        }

        @Override
        void start() {
            start = System.nanoTime();
            deadline = budget.deadline(start);
            pacer.start(start);
            post();
        }

        private void post() {
            if (iterations == Long.MAX_VALUE && System.nanoTime() - deadline >= 0) {
                // Time is up: end on the next signaled operation, so that the last one completes.
                iterations = (posted / SIGNAL_EVERY + 1) * SIGNAL_EVERY;
            }
            while (posted < iterations && inFlight() < window && pacer.mayStart(posted)) {
                boolean last = posted + 1 == iterations;
                boolean signal = test == Test.READ || test.atomic() || (posted + 1) % SIGNAL_EVERY == 0 || last;
                s.qp.postSend(last ? lastSend : signal ? signaled : unsignaled);
                posted++;
            }
            progress.set(completed);
        }

        private long inFlight() {
            // Sends may only use credits the server granted (receives it has posted).
            return test == Test.SEND ? posted - credited : posted - completed;
        }

        private void finish() {
            if (test == Test.SEND) {
                s.sendsBefore += posted;
            } else if (test.atomic()) {
                s.atomicsBefore += completed;
            }
            done.complete(System.nanoTime() - start);
        }

        @Override
        void onCompletion(WorkCompletion c) {
            if (!c.isSuccess()) {
                fail(c);
                return;
            }
            if (c.opcode() == WorkCompletionOpcode.RECEIVE) {
                if (test == Test.SEND) {
                    // The server's running count; a late credit from an earlier run counts for nothing.
                    long count = s.control.buffer().getLong((int) (c.wrId() * RdmaPerfServer.CONTROL));
                    credited = Math.max(credited, count - s.sendsBefore);
                    completed = credited;
                    if (credited >= iterations) {
                        finish();
                        return;
                    }
                } else if (finishing) {
                    finish();
                    return;
                }
            } else if (c.opcode() == WorkCompletionOpcode.RDMA_READ) {
                completed++;
                if (completed == iterations) {
                    finish();
                    return;
                }
            } else if (c.opcode() == WorkCompletionOpcode.ATOMIC_FETCH_ADD
                    || c.opcode() == WorkCompletionOpcode.ATOMIC_COMPARE_AND_SWAP) {
                // Answered in order: a Fetch-and-Add finds the count of those before it, a Compare-and-Swap 0.
                long expected = test == Test.FETCH_ADD ? s.atomicsBefore + completed : 0;
                if (c.atomicOriginalValue() != expected) {
                    done.completeExceptionally(new IllegalStateException(String.format(Locale.ROOT,
                            "%s: atomic %d returned %d, expected %d", this, completed, c.atomicOriginalValue(),
                            expected)));
                    return;
                }
                completed++;
                if (completed == iterations) {
                    finish();
                    return;
                }
            } else if (c.opcode() == WorkCompletionOpcode.RDMA_WRITE) {
                // Every 16th Write and the last are signaled; completions come in posting order.
                signalsCompleted++;
                completed = Math.min(iterations, SIGNAL_EVERY * signalsCompleted);
                if (completed == iterations && !finishing) {
                    // §5.5 rule 5: a Send after the Writes tells the server they are placed; it acknowledges.
                    finishing = true;
                    s.qp.postSend(finish);
                    return;
                }
            }
            post();
        }

        @Override
        public String toString() {
            return test.wireName() + " bandwidth: " + posted + " posted, " + completed + " completed, " + credited
                    + " credited, window " + window;
        }
    }

    private static final class LatencyRun extends Run {
        private final Session s;
        private final Test test;
        private final long total;
        private final int warmup;
        private final AtomicLong progress;
        private SendWorkRequest operation;
        private final SendWorkRequest notify;
        private final Pacer pacer;
        final long[] rtts;
        private long round;
        private long sentAt;
        /** Compare-and-Swap: what the next one expects — what the one before swapped in. */
        private long expect;

        LatencyRun(Session s, Test test, int size, long iterations, int warmup, double rate, AtomicLong progress) {
            this.s = s;
            this.test = test;
            this.warmup = warmup;
            this.total = warmup + iterations;
            this.progress = progress;
            this.rtts = new long[Math.toIntExact(iterations)];
            ScatterGatherEntry all = new ScatterGatherEntry(s.local, 0, size);
            this.operation = switch (test) {
                case WRITE -> SendWorkRequest.write(1, s.reply.stag(), s.reply.taggedOffset(), all).unsignaled();
                case READ -> SendWorkRequest.read(1, all, s.reply.stag(), s.reply.taggedOffset());
                case SEND -> SendWorkRequest.send(1, all).unsignaled();
                case FETCH_ADD -> SendWorkRequest.fetchAdd(1, s.reply.stag(), s.reply.taggedOffset(), 1);
                // Built per round trip in next(): each expects what the one before returned, plus 1.
                case COMPARE_SWAP -> null;
            };
            this.notify = SendWorkRequest.send(2, new ScatterGatherEntry(s.control, 0, 0)).unsignaled();
            // Paced, round trips start no faster than the rate allows; each is still timed alone.
            this.pacer = new Pacer(rate, size, s.connection.channel().eventLoop(), this::next);
        }

        @Override
        void start() {
            pacer.start(System.nanoTime());
            next();
        }

        private void next() {
            if (!pacer.mayStart(round)) {
                return;
            }
            if (test == Test.COMPARE_SWAP) {
                // The one request of the sample that cannot be prebuilt: its operands change every round.
                operation = SendWorkRequest.compareAndSwap(1, s.reply.stag(), s.reply.taggedOffset(), expect,
                        expect + 1);
            }
            sentAt = System.nanoTime();
            s.qp.postSend(operation);
            if (test == Test.WRITE) {
                s.qp.postSend(notify);
            }
        }

        @Override
        void onCompletion(WorkCompletion c) {
            if (!c.isSuccess()) {
                fail(c);
                return;
            }
            boolean roundTrip = switch (test) {
                case READ -> c.opcode() == WorkCompletionOpcode.RDMA_READ;
                case FETCH_ADD -> c.opcode() == WorkCompletionOpcode.ATOMIC_FETCH_ADD;
                case COMPARE_SWAP -> c.opcode() == WorkCompletionOpcode.ATOMIC_COMPARE_AND_SWAP;
                case WRITE, SEND -> c.opcode() == WorkCompletionOpcode.RECEIVE;
            };
            if (!roundTrip) {
                return;
            }
            long rtt = System.nanoTime() - sentAt;
            if (test.atomic()) {
                // Fetch-and-Add finds the rounds before it; Compare-and-Swap swapped only if it found what it expected.
                long expected = test == Test.FETCH_ADD ? s.atomicsBefore + round : expect;
                if (c.atomicOriginalValue() != expected) {
                    done.completeExceptionally(new IllegalStateException(String.format(Locale.ROOT,
                            "%s: returned %d, expected %d", this, c.atomicOriginalValue(), expected)));
                    return;
                }
                expect = c.atomicOriginalValue() + 1;
            }
            if (round >= warmup) {
                rtts[(int) (round - warmup)] = rtt;
            }
            round++;
            progress.set(round);
            if (round < total) {
                next();
            } else {
                if (test.atomic()) {
                    s.atomicsBefore += round;
                }
                done.complete(0L);
            }
        }

        @Override
        public String toString() {
            return test.wireName() + " latency: round trip " + round + " of " + total;
        }
    }

    /** One RDMA Read of the atomic test's word into the local region; {@link #word} is what it found. */
    private static final class WordRead extends Run {
        private final Session s;
        private final SendWorkRequest read;
        long word;

        WordRead(Session s) {
            this.s = s;
            this.read = SendWorkRequest.read(3, new ScatterGatherEntry(s.local, 0, PerfProtocol.ATOMIC_SIZE),
                    s.reply.stag(), s.reply.taggedOffset());
        }

        @Override
        void start() {
            s.qp.postSend(read);
        }

        @Override
        void onCompletion(WorkCompletion c) {
            if (!c.isSuccess()) {
                fail(c);
            } else if (c.opcode() == WorkCompletionOpcode.RDMA_READ) {
                word = s.local.buffer().getLong(0);
                done.complete(0L);
            }
        }

        @Override
        public String toString() {
            return "read of the atomic word";
        }
    }
}
