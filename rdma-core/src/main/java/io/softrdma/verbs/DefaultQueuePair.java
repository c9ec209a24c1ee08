package io.softrdma.verbs;

import io.netty.channel.ChannelHandlerContext;
import io.netty.util.concurrent.EventExecutor;
import io.netty.util.concurrent.ScheduledFuture;
import io.netty.util.internal.PlatformDependent;
import io.netty.util.internal.logging.InternalLogger;
import io.netty.util.internal.logging.InternalLoggerFactory;
import io.softrdma.ConnectionClosedException;
import io.softrdma.internal.ddp.UntaggedHeaderCodec;
import io.softrdma.mpa.MpaNegotiation;
import io.softrdma.rdmap.TerminateCode;
import io.softrdma.mpa.MpaRole;
import io.softrdma.mpa.LlpErrorCode;
import io.softrdma.rdmap.RdmapExtensions;
import io.softrdma.rdmap.ReceivedTerminate;
import io.softrdma.internal.rdmap.TerminateCause;
import io.softrdma.rdmap.TerminateException;
import java.io.IOException;
import java.nio.channels.ClosedChannelException;
import java.util.List;
import java.util.Objects;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A queue pair: posting (any thread), the state machine, and the rings the engine works on (its event
 * loop). {@link QueuePairSender} transmits, {@link QueuePairReceiver} receives; both work on the
 * state held here.
 *
 * <p>Posting from another thread offers the request to a lock-free queue and, at most once until the
 * loop has drained it, schedules one reusable task: a post allocates nothing of its own.
 *
 * <p>Why this class is long: it holds what both halves of the queue pair share — the rings, the states and
 * transitions, ORD/IRD, the close and flush of every work request — so that its lifecycle (RFC 5040 §6) is in one
 * place.
 */
final class DefaultQueuePair implements QueuePair {
    private static final InternalLogger logger = InternalLoggerFactory.getInstance(DefaultQueuePair.class);
    private static final QueuePairListener NO_LISTENER = new QueuePairListener() {
    };
    /** Engine rounds in one go before the loop gets back to its I/O. */
    private static final int DRAIN_ROUNDS = 16;

    final DefaultProtectionDomain pd;
    final RdmaDevice device;
    private final QueuePairConfig config;
    private final int number;
    final DefaultCompletionQueue sendCq;
    final DefaultCompletionQueue receiveCq;
    private final CompletableFuture<Void> closeFuture = new CompletableFuture<>();
    private volatile QueuePairState state = QueuePairState.IDLE;
    private volatile QueuePairListener listener = NO_LISTENER;
    private volatile int ord;
    private volatile int ird;
    private volatile RdmapExtensions extensions = RdmapExtensions.NONE;

    // Posting, from any thread.
    private final AtomicInteger sendsOutstanding = new AtomicInteger();
    private final AtomicInteger receivesOutstanding = new AtomicInteger();
    private final Queue<SendWorkRequest> postedSends;
    private final Queue<ReceiveWorkRequest> postedReceives;
    private final AtomicBoolean drainScheduled = new AtomicBoolean();
    private final Runnable drainTask = this::drainTask;
    private volatile EventExecutor executor;
    private volatile boolean resourcesReleased;
    /** Set by close() at once, so that posts fail as soon as close() returns. */
    private volatile boolean closeRequested;

    // The engine's state, on the event loop. Ring positions are sequence numbers; slot = seq % length.
    final SendQueueEntry[] sq;
    /** Oldest not yet completed; next to transmit; next free. sqHead <= sqNext <= sqTail. */
    long sqHead;
    long sqNext;
    long sqTail;
    /** Send-queue positions of the Reads awaiting their Read Response, in order (§5.5 rule 20). */
    final long[] orq;
    long orqHead;
    long orqTail;
    final ReceiveQueueEntry[] rq;
    long rqHead;
    long rqTail;
    final InboundRead[] irq;
    final QueuePairCounters counters = new QueuePairCounters();
    long irqHead;
    long irqTail;
    /** Sends and Writes whose segments are all written to TCP, up to this send-queue position. */
    private long writtenUpTo = -1;
    ChannelHandlerContext ctx;
    final QueuePairSender sender;
    final QueuePairReceiver receiver;
    /** How deep the engine is nested (receive, completion callbacks, drain); posts wait for depth 0. */
    private int depth;
    /** A drain was asked for while the engine was busy; the outermost drain runs another round. */
    private boolean drainAgain;
    /**
     * Inside a read cycle of the channel: completions are added without their completion event, which is raised
     * once at the cycle's end ({@link #endReadCycle}), as a NIC moderates its completion interrupts — a consumer
     * then polls a batch instead of re-arming for every 64-octet Send.
     */
    private boolean readCycle;
    /** Completion events owed at the end of the read cycle: 0 none, 1 any, 2 solicited or error. */
    private int sendCqEventDue;
    private int receiveCqEventDue;
    private TerminateException terminate;
    /** The TCP connection's failure (a reset, a timeout), when one was seen before it went: RFC 5044 §8 code 1. */
    private Throwable llpFailure;
    /** Whether this side closed the channel under the queue pair (not through {@link #close()}). */
    private boolean closedUnderneath;
    /** The zero-length Read this initiator sent as RFC 6581's RTR message awaits its Read Response. */
    boolean rtrReadOutstanding;
    /** How long an initiator waits for any answer to its first FPDU before it probes (0: never). */
    private long firstFpduProbeNanos;
    private ScheduledFuture<?> firstFpduProbe;

    DefaultQueuePair(DefaultProtectionDomain pd, QueuePairConfig config) {
        this.pd = pd;
        this.device = pd.device();
        this.config = config;
        this.number = device.nextQueuePairNumber();
        this.sendCq = completionQueue(config.sendCompletionQueue());
        this.receiveCq = completionQueue(config.receiveCompletionQueue());
        this.ord = config.ord();
        this.ird = config.ird();
        sendCq.reserve(config.sendQueueDepth(), "the send queue of queue pair " + number);
        try {
            receiveCq.reserve(config.receiveQueueDepth(), "the receive queue of queue pair " + number);
        } catch (RuntimeException e) {
            sendCq.unreserve(config.sendQueueDepth());
            throw e;
        }
        this.postedSends = PlatformDependent.newFixedMpscQueue(Math.max(2, config.sendQueueDepth()));
        this.postedReceives = PlatformDependent.newFixedMpscQueue(Math.max(2, config.receiveQueueDepth()));
        this.sq = new SendQueueEntry[config.sendQueueDepth()];
        for (int i = 0; i < sq.length; i++) {
            sq[i] = new SendQueueEntry();
        }
        this.rq = new ReceiveQueueEntry[config.receiveQueueDepth()];
        for (int i = 0; i < rq.length; i++) {
            rq[i] = new ReceiveQueueEntry();
        }
        this.orq = new long[Math.max(1, config.ord())];
        this.irq = new InboundRead[Math.max(1, config.ird())];
        for (int i = 0; i < irq.length; i++) {
            irq[i] = new InboundRead();
        }
        this.sender = new QueuePairSender(this);
        this.receiver = new QueuePairReceiver(this);
    }

    private static DefaultCompletionQueue completionQueue(CompletionQueue cq) {
        if (cq instanceof DefaultCompletionQueue d) {
            return d;
        }
        throw new IllegalArgumentException("use a completion queue created by RdmaDevice.createCompletionQueue");
    }

    @Override
    public int queuePairNumber() {
        return number;
    }

    @Override
    public QueuePairState state() {
        return state;
    }

    @Override
    public ProtectionDomain protectionDomain() {
        return pd;
    }

    @Override
    public QueuePairConfig config() {
        return config;
    }

    @Override
    public int ord() {
        return ord;
    }

    @Override
    public int ird() {
        return ird;
    }

    @Override
    public RdmapExtensions extensions() {
        return extensions;
    }

    @Override
    public CompletableFuture<Void> closeFuture() {
        return closeFuture.copy();
    }

    @Override
    public void setListener(QueuePairListener listener) {
        this.listener = listener == null ? NO_LISTENER : listener;
    }

    // ---- posting (any thread) ----

    @Override
    public void postSend(SendWorkRequest request) {
        Objects.requireNonNull(request, "request");
        QueuePairState s = state;
        if (s == QueuePairState.IDLE) {
            throw new IllegalStateException("queue pair " + number + " is IDLE: post sends once it is RTS"
                    + " (connected)");
        }
        if (closeRequested) {
            throw new IllegalStateException("queue pair " + number + " was closed: it takes no new work");
        }
        if (request.sgl().size() > config.maxSendSge()) {
            throw new IllegalArgumentException(request.sgl().size() + " scatter/gather entries exceed the maximum of "
                    + config.maxSendSge() + " (QueuePairConfig.maxSendSge)");
        }
        List<ScatterGatherEntry> sgl = request.sgl();
        for (int i = 0; i < sgl.size(); i++) {
            ScatterGatherEntry e = sgl.get(i);
            checkDomain(e);
        }
        SendWorkRequest.Opcode op = request.opcode();
        if (op.isAtomic() && !extensions.atomics() || op.carriesImmediateData() && !extensions.immediateData()) {
            throw new IllegalStateException("queue pair " + number + ": the peer did not agree to RFC 7306 "
                    + (op.isAtomic() ? "atomic operations" : "Immediate Data") + " at connection setup (agreed: "
                    + extensions + "; Linux siw and iWARP NICs have none): offer them with"
                    + " QueuePairConfig.withExtensions on both ends");
        }
        if (op.usesReadQueue() && ord == 0) {
            throw new IllegalStateException("queue pair " + number + " has ORD 0: the peer's IRD (RFC 6581 §5) or"
                    + " this queue pair's configured ORD allows no RDMA Read " + (op.isAtomic() ? "or atomic " : "")
                    + "on this connection");
        }
        if (request.opcode() == SendWorkRequest.Opcode.RDMA_READ
                && !request.sgl().get(0).region().access().contains(Access.LOCAL_WRITE)) {
            throw new IllegalArgumentException("the sink of an RDMA Read needs LOCAL_WRITE access: "
                    + request.sgl().get(0).region());
        }
        if (sendsOutstanding.incrementAndGet() > config.sendQueueDepth()) {
            sendsOutstanding.decrementAndGet();
            throw new IllegalStateException("send queue full: " + config.sendQueueDepth()
                    + " work requests outstanding (QueuePairConfig.sendQueueDepth); wait for completions");
        }
        if (inEngine() && postedSends.isEmpty()) {
            sq[(int) (sqTail % sq.length)].reset(request);
            sqTail++;
            drainAgain = true;
            return;
        }
        postedSends.offer(request);
        schedule();
    }

    /**
     * Whether a post made now may go straight into its ring, sparing the posted queue's atomics (issue 18): on the
     * event loop inside the engine (a completion or queue pair callback), where the outermost engine call drains on
     * return ({@code drainAgain} makes it run another round). The caller also checks that nothing posted earlier
     * still waits in the queue, which the post would overtake.
     */
    private boolean inEngine() {
        EventExecutor ex = executor;
        return ex != null && ex.inEventLoop() && depth > 0;
    }

    @Override
    public void postReceive(ReceiveWorkRequest request) {
        Objects.requireNonNull(request, "request");
        if (closeRequested) {
            throw new IllegalStateException("queue pair " + number + " was closed: it takes no new work");
        }
        if (request.sgl().size() > config.maxReceiveSge()) {
            throw new IllegalArgumentException(request.sgl().size() + " scatter/gather entries exceed the maximum of "
                    + config.maxReceiveSge() + " (QueuePairConfig.maxReceiveSge)");
        }
        List<ScatterGatherEntry> sgl = request.sgl();
        for (int i = 0; i < sgl.size(); i++) {
            ScatterGatherEntry e = sgl.get(i);
            checkDomain(e);
        }
        if (receivesOutstanding.incrementAndGet() > config.receiveQueueDepth()) {
            receivesOutstanding.decrementAndGet();
            throw new IllegalStateException("receive queue full: " + config.receiveQueueDepth()
                    + " receives posted (QueuePairConfig.receiveQueueDepth)");
        }
        if (inEngine() && postedReceives.isEmpty()) {
            rq[(int) (rqTail % rq.length)].reset(request);
            rqTail++;
            drainAgain = true;
            return;
        }
        postedReceives.offer(request);
        if (state == QueuePairState.ERROR && executor == null) {
            flushUnattachedReceives();
        } else {
            schedule();
        }
    }

    private void checkDomain(ScatterGatherEntry e) {
        if (e.region().protectionDomain() != pd) {
            throw new IllegalArgumentException(e.region() + " belongs to another protection domain than queue pair "
                    + number);
        }
    }

    private void schedule() {
        EventExecutor ex = executor;
        if (ex == null) {
            return;
        }
        if (ex.inEventLoop() && depth > 0) {
            // Posted from a completion or queue pair callback: the outermost engine call drains on return.
            return;
        }
        // Otherwise a task carries the post out, also on the event loop: a post never runs the engine,
        // and so never a completion callback, inside the caller's own call (where a callback that posts
        // again would re-enter the caller's loop), and the posts of one task share a flush.
        if (drainScheduled.compareAndSet(false, true)) {
            ex.execute(drainTask);
        }
    }

    private void drainTask() {
        drainScheduled.set(false);
        drainNow();
    }

    /**
     * Moves posted requests into the rings and runs the engine, again while completions made during a
     * round post more — up to {@link #DRAIN_ROUNDS} rounds, then the rest waits for a task so that the
     * loop also gets to its I/O. Note: event loop only.
     */
    void drainNow() {
        if (depth > 0) {
            // E.g. the channel became writable again inside the engine's own flush: the outer call
            // must run another round, or that writability event is lost and the sender stalls.
            drainAgain = true;
            return;
        }
        int rounds = 0;
        do {
            drainAgain = false;
            depth++;
            try {
                moveReceives();
                for (SendWorkRequest w; (w = postedSends.poll()) != null; ) {
                    SendQueueEntry e = sq[(int) (sqTail % sq.length)];
                    e.reset(w);
                    sqTail++;
                }
                QueuePairState s = state;
                if (s == QueuePairState.TERMINATE || s == QueuePairState.ERROR) {
                    flushAll();
                } else {
                    sender.pump();
                }
                completeSends();
            } finally {
                depth--;
            }
        } while ((drainAgain || !postedSends.isEmpty() || !postedReceives.isEmpty()) && ++rounds < DRAIN_ROUNDS);
        if ((drainAgain || !postedSends.isEmpty() || !postedReceives.isEmpty())
                && drainScheduled.compareAndSet(false, true)) {
            executor.execute(drainTask);
        }
        maybeFinishClose();
    }

    /**
     * Brackets engine work started by an event (a segment, a written batch): posts made meanwhile (by
     * completion callbacks) are carried out when the outermost bracket closes. Note: event loop only.
     */
    void enter() {
        depth++;
    }

    void exit() {
        if (--depth == 0) {
            drainNow();
        }
    }

    /**
     * As {@link #exit()}, but what the bracket caused runs in a task right after: for brackets opened inside the
     * channel's own flush (a write barrier's listener), where a flush of new segments would be put off by Netty and
     * leave them queued behind another barrier and its promise. Note: event loop only.
     */
    void exitLater() {
        if (--depth == 0 && drainScheduled.compareAndSet(false, true)) {
            executor.execute(drainTask);
        }
    }

    // ---- completion (event loop) ----

    SendQueueEntry sendEntry(long seq) {
        return sq[(int) (seq % sq.length)];
    }

    /**
     * The oldest Read ({@code atomic} false) or atomic operation still awaiting its answer. Reads answer in
     * order (RFC 5040 §5.5 rule 20) and atomics in order (RFC 7306), each kind on its own: the two are matched
     * separately, so a peer that answers an atomic before an earlier Read is not a protocol error.
     */
    SendQueueEntry oldestOutstanding(boolean atomic) {
        for (long p = orqHead; p < orqTail; p++) {
            SendQueueEntry e = sendEntry(orq[(int) (p % orq.length)]);
            if (!e.done && e.wr.opcode().isAtomic() == atomic) {
                return e;
            }
        }
        return null;
    }

    /** Drops answered operations from the front of the ORQ: they no longer count against ORD. */
    void retireAnswered() {
        while (orqHead < orqTail && sendEntry(orq[(int) (orqHead % orq.length)]).done) {
            orqHead++;
        }
    }

    /** Sends and Writes up to send-queue position {@code upTo} are in TCP's hands (§5.5 rule 14). */
    void sendsWritten(long upTo) {
        for (long seq = Math.max(writtenUpTo + 1, sqHead); seq <= upTo && seq < sqTail; seq++) {
            SendQueueEntry e = sendEntry(seq);
            SendWorkRequest.Opcode op = e.wr.opcode();
            if (op == SendWorkRequest.Opcode.SEND || op == SendWorkRequest.Opcode.RDMA_WRITE
                    || op.carriesImmediateData()) {
                e.finish(WorkCompletionStatus.SUCCESS);
            }
        }
        writtenUpTo = Math.max(writtenUpTo, upTo);
        completeSends();
    }

    /** Reports finished send work requests in posting order (§5.5 rule 15). */
    void completeSends() {
        while (sqHead < sqNext || sqHead < sqTail && sendEntry(sqHead).done) {
            SendQueueEntry e = sendEntry(sqHead);
            if (!e.done) {
                break;
            }
            SendWorkRequest wr = e.wr;
            e.wr = null;
            sqHead++;
            if (sqNext < sqHead) {
                sqNext = sqHead;
            }
            // The slot is free before the completion is visible: whoever sees it may post again at once.
            sendsOutstanding.decrementAndGet();
            if (wr.signaled() || e.status != WorkCompletionStatus.SUCCESS) {
                sendCqEventDue = complete(sendCq, sendCqEventDue, wr.wrId(), e.status, opcodeOf(wr), e.byteLength,
                        false, false, 0, e.atomicResult);
            }
        }
    }

    private static WorkCompletionOpcode opcodeOf(SendWorkRequest wr) {
        return switch (wr.opcode()) {
            case SEND -> WorkCompletionOpcode.SEND;
            case RDMA_WRITE -> WorkCompletionOpcode.RDMA_WRITE;
            case RDMA_READ -> WorkCompletionOpcode.RDMA_READ;
            case LOCAL_INVALIDATE -> WorkCompletionOpcode.LOCAL_INVALIDATE;
            case IMMEDIATE_DATA -> WorkCompletionOpcode.IMMEDIATE_DATA;
            case RDMA_WRITE_WITH_IMMEDIATE -> WorkCompletionOpcode.RDMA_WRITE_WITH_IMMEDIATE;
            case ATOMIC_FETCH_ADD -> WorkCompletionOpcode.ATOMIC_FETCH_ADD;
            case ATOMIC_COMPARE_AND_SWAP -> WorkCompletionOpcode.ATOMIC_COMPARE_AND_SWAP;
        };
    }

    /**
     * The oldest posted receive. A receive counts as posted once postReceive returned, even if the loop
     * has not drained it into the ring yet: a peer's Send may arrive first.
     */
    ReceiveQueueEntry receiveHead() {
        if (rqHead == rqTail) {
            moveReceives();
            if (rqHead == rqTail && receiveCqEventDue != 0) {
                // A consumer that reposts receives as they complete sees its completions before a Send finds
                // none: moderation must never turn into a missing receive (RFC 5040 §7.1's Terminate).
                int due = receiveCqEventDue;
                receiveCqEventDue = 0;
                receiveCq.signal(due == 2);
                moveReceives();
            }
        }
        return rqHead < rqTail ? rq[(int) (rqHead % rq.length)] : null;
    }

    private void moveReceives() {
        for (ReceiveWorkRequest r; (r = postedReceives.poll()) != null; ) {
            ReceiveQueueEntry e = rq[(int) (rqTail % rq.length)];
            e.reset(r);
            rqTail++;
        }
    }

    /** Completes the oldest receive (§5.5 rule 10: in order). */
    void completeReceive(WorkCompletionStatus status, long byteLength, boolean solicited, boolean invalidated,
            int invalidatedStag) {
        completeReceive(WorkCompletionOpcode.RECEIVE, status, byteLength, solicited, invalidated, invalidatedStag, 0);
    }

    /** Completes the oldest receive with the peer's Immediate Data (RFC 7306 §6.3: it consumed the receive). */
    void completeReceiveImmediate(long data, boolean solicited) {
        completeReceive(WorkCompletionOpcode.RECEIVE_IMMEDIATE, WorkCompletionStatus.SUCCESS, 0, solicited, false, 0,
                data);
    }

    private void completeReceive(WorkCompletionOpcode opcode, WorkCompletionStatus status, long byteLength,
            boolean solicited, boolean invalidated, int invalidatedStag, long value) {
        ReceiveQueueEntry e = rq[(int) (rqHead % rq.length)];
        long wrId = e.wr.wrId();
        e.wr = null;
        rqHead++;
        receivesOutstanding.decrementAndGet();
        receiveCqEventDue = complete(receiveCq, receiveCqEventDue, wrId, status, opcode, byteLength, solicited,
                invalidated, invalidatedStag, value);
    }

    /**
     * Adds a completion to {@code cq}; its event is raised now, or, inside a read cycle, owed until the cycle
     * ends. Returns what is owed for {@code cq} afterwards.
     */
    private int complete(DefaultCompletionQueue cq, int due, long wrId, WorkCompletionStatus status,
            WorkCompletionOpcode opcode, long byteLength, boolean solicited, boolean invalidated, int invalidatedStag,
            long value) {
        if (!readCycle) {
            cq.add(wrId, status, opcode, byteLength, number, solicited, invalidated, invalidatedStag, value);
            return due;
        }
        cq.put(wrId, status, opcode, byteLength, number, solicited, invalidated, invalidatedStag, value);
        return Math.max(due, solicited || status != WorkCompletionStatus.SUCCESS ? 2 : 1);
    }

    /** A read cycle of the channel begins: completion events wait for its end. Note: event loop only. */
    void beginReadCycle() {
        readCycle = true;
    }

    /**
     * The read cycle ends (or the connection goes): raises the completion events owed. The caller holds the
     * read's engine bracket, so what their consumers post goes out with this cycle's flush. Note: event loop only.
     */
    void endReadCycle() {
        readCycle = false;
        int sendDue = sendCqEventDue;
        int receiveDue = receiveCqEventDue;
        sendCqEventDue = 0;
        receiveCqEventDue = 0;
        if (sendDue != 0) {
            sendCq.signal(sendDue == 2);
        }
        if (receiveDue != 0) {
            receiveCq.signal(receiveDue == 2);
        }
    }

    /**
     * Outstanding Reads and atomics (RFC 7306: they share the Read Request queue and the peer's IRD), counting a
     * peer-to-peer Read RTR still unanswered (it uses the peer's IRD too).
     */
    @Override
    public int readsOutstanding() {
        return (int) (orqTail - orqHead) + (rtrReadOutstanding ? 1 : 0);
    }

    @Override
    public int inboundReadsQueued() {
        return (int) (irqTail - irqHead);
    }

    @Override
    public QueuePairCounters counters() {
        return counters;
    }

    // ---- state machine (event loop) ----

    /**
     * MPA is established: the stream is in RDMA mode. With a {@code refusal} (RFC 6581 §5: insufficient
     * IRD, no matching RTR) the queue pair terminates at once with that LLP error instead.
     */
    void attach(ChannelHandlerContext ctx, MpaNegotiation negotiation, LlpErrorCode refusal, String reason) {
        this.ctx = ctx;
        sender.attach(ctx, negotiation.mulpdu(), negotiation.crc());
        if (state != QueuePairState.IDLE) {
            // closed before the connection came up
            ctx.close();
            return;
        }
        // RFC 6581 §5: ORD no deeper than the peer's IRD (using fewer than offered is always safe); IRD
        // as this end offered it, which the peer may use in full: the inbound queue must hold it.
        ord = Math.min(config.ord(), negotiation.ord());
        ird = negotiation.ird();
        extensions = config.extensions().and(RdmapExtensions.agreed(negotiation.localPrivateData(),
                negotiation.peerPrivateData()));
        state = QueuePairState.RTS;
        executor = ctx.executor();
        if (refusal == null && ird > config.ird()) {
            ird = config.ird();
            refusal = LlpErrorCode.LOCAL_CATASTROPHIC;
            reason = "the MPA startup offered IRD " + negotiation.ird() + ", above this queue pair's IRD "
                    + config.ird() + " (bind queue pairs through ConnectionManager or ConnectRequest, which offer"
                    + " the queue pair's own depths)";
        }
        if (refusal != null) {
            terminate(TerminateCause.withoutHeaders(TerminateCode.of(refusal), reason));
            return;
        }
        logger.debug("{} queue pair {} RTS (IRD {}, ORD {}): {}", ctx.channel(), number, ird, ord, negotiation);
        if (negotiation.role() == MpaRole.INITIATOR) {
            // RFC 6581 §5: the RTR message goes first; the responder sends nothing before it.
            switch (negotiation.readyToReceive()) {
                case WRITE -> sender.queueZeroLengthWrite();
                case READ -> sender.queueReadRtr();
                default -> {
                }
            }
            firstFpduProbeNanos = negotiation.firstFpduProbe().toNanos();
        }
        drainNow();
        notify(l -> l.onEstablished(this));
    }

    /**
     * The sender emitted this stream's first FPDU. An initiator then watches for any answer: Linux 6.1's
     * siw responder sends its Reply before it reads the socket, and an FPDU that lands in between sits
     * unread until more octets arrive. One zero-length RDMA Write (RFC 5040 §4.3; RFC 6581's RTR form,
     * which siw and SoftRDMA accept with any STag) brings such a peer back; a peer that answered is never
     * probed.
     */
    void firstFpduSent() {
        long nanos = firstFpduProbeNanos;
        if (nanos <= 0 || receiver.receivedAny()) {
            return;
        }
        firstFpduProbe = ctx.executor().schedule(() -> {
            firstFpduProbe = null;
            if (state == QueuePairState.RTS && !receiver.receivedAny()) {
                logger.debug("{} queue pair {}: no answer {} ms after the first FPDU; probing with a zero-length"
                        + " RDMA Write", ctx.channel(), number, TimeUnit.NANOSECONDS.toMillis(nanos));
                sender.queueZeroLengthWrite();
                drainNow();
            }
        }, nanos, TimeUnit.NANOSECONDS);
    }

    /** The peer answered: no probe is needed (and none keeps this queue pair referenced). */
    void firstUlpduReceived() {
        cancelFirstFpduProbe();
    }

    private void cancelFirstFpduProbe() {
        ScheduledFuture<?> probe = firstFpduProbe;
        if (probe != null) {
            firstFpduProbe = null;
            probe.cancel(false);
        }
    }

    /**
     * This endpoint found an error: Terminate (RFC 5040 §5.4, §6.2.1, §7.1) — stop receiving, complete
     * outstanding work in error, send the Terminate, close. The first error wins.
     */
    void terminate(TerminateCause cause) {
        QueuePairState s = state;
        if (s != QueuePairState.RTS && s != QueuePairState.CLOSING) {
            return;
        }
        state = QueuePairState.TERMINATE;
        cancelFirstFpduProbe();
        terminate = TerminateException.sent(cause.code(), cause.toString());
        logger.debug("{} queue pair {} sends Terminate: {}", ctx.channel(), number, cause);
        receiver.stop();
        sender.sendTerminateAndClose(cause);
        flushAll();
        TerminateException t = terminate;
        notify(l -> l.onTerminate(this, t));
    }

    /** The peer sent a Terminate: report it, complete outstanding work in error, close (as siw does). */
    void terminateReceived(ReceivedTerminate received) {
        QueuePairState s = state;
        if (s != QueuePairState.RTS && s != QueuePairState.CLOSING) {
            return;
        }
        state = QueuePairState.TERMINATE;
        cancelFirstFpduProbe();
        terminate = TerminateException.received(received);
        logger.debug("{} queue pair {} received {}", ctx.channel(), number, received);
        receiver.stop();
        sender.stop();
        failMatchingRead(received);
        flushAll();
        TerminateException t = terminate;
        notify(l -> l.onTerminate(this, t));
        ctx.close();
    }

    /**
     * The Read (or atomic) a Terminate names fails with a remote error rather than as flushed: by the SinkSTag
     * of the RDMA header it carries, or else by the MSN of the Read Request queue in its DDP header (an Atomic
     * Request has no 28-octet header to return, and a Read beyond IRD is reported without it).
     */
    private void failMatchingRead(ReceivedTerminate t) {
        WorkCompletionStatus status = t.code().layer() == 0 && t.code().errorType() == 1
                ? WorkCompletionStatus.REMOTE_ACCESS_ERROR : WorkCompletionStatus.REMOTE_OPERATION_ERROR;
        byte[] header = t.rdmaHeader();
        byte[] ddp = t.ddpHeader();
        boolean byStag = header.length >= 12;
        boolean byMsn = !byStag && ddp.length >= UntaggedHeaderCodec.LENGTH && (ddp[0] & 0x80) == 0
                && int32(ddp, UntaggedHeaderCodec.QN_OFFSET) == UntaggedHeaderCodec.QN_READ_REQUEST;
        if (!byStag && !byMsn) {
            return;
        }
        int sinkStag = byStag ? int32(header, 0) : 0;
        int msn = byMsn ? int32(ddp, UntaggedHeaderCodec.MSN_OFFSET) : 0;
        for (long p = orqHead; p < orqTail; p++) {
            SendQueueEntry e = sendEntry(orq[(int) (p % orq.length)]);
            if (e.done) {
                continue;
            }
            if (byStag ? e.wr.opcode() == SendWorkRequest.Opcode.RDMA_READ && e.sinkStag == sinkStag
                    : e.msn == msn) {
                e.finish(status);
                return;
            }
        }
    }

    private static int int32(byte[] b, int at) {
        return (b[at] & 0xFF) << 24 | (b[at + 1] & 0xFF) << 16 | (b[at + 2] & 0xFF) << 8 | b[at + 3] & 0xFF;
    }

    /** Completes every outstanding work request: flushed unless it already has an outcome. */
    private void flushAll() {
        for (long seq = sqHead; seq < sqTail; seq++) {
            sendEntry(seq).finish(WorkCompletionStatus.FLUSHED);
        }
        sqNext = sqTail;
        orqHead = orqTail;
        irqHead = irqTail;
        completeSends();
        while (rqHead < rqTail) {
            completeReceive(WorkCompletionStatus.FLUSHED, 0, false, false, 0);
        }
    }

    private void flushUnattachedReceives() {
        for (ReceiveWorkRequest r; (r = postedReceives.poll()) != null; ) {
            receiveCq.add(r.wrId(), WorkCompletionStatus.FLUSHED, WorkCompletionOpcode.RECEIVE, 0, number, false,
                    false, 0);
            receivesOutstanding.decrementAndGet();
        }
    }

    @Override
    public void close() {
        closeRequested = true;
        EventExecutor ex = executor;
        if (ex == null) {
            synchronized (this) {
                if (state == QueuePairState.IDLE) {
                    state = QueuePairState.ERROR;
                }
            }
            if (executor == null) {
                flushUnattachedReceives();
                releaseResources();
                closeFuture.complete(null);
                return;
            }
            ex = executor;
        }
        if (ex.inEventLoop()) {
            startClose();
        } else {
            ex.execute(this::startClose);
        }
    }

    private void startClose() {
        if (state == QueuePairState.RTS) {
            state = QueuePairState.CLOSING;
            drainNow();
        }
    }

    /** A graceful close ends the stream once everything posted has completed. */
    private void maybeFinishClose() {
        if (state == QueuePairState.CLOSING && sqHead == sqTail && irqHead == irqTail && postedSends.isEmpty()
                && sender.idle()) {
            ctx.close();
        }
    }

    /**
     * The TCP connection failed (a reset, a timeout: RFC 5044 §8 code 1), as seen on a read or a write before the
     * channel closes; the first I/O error seen is the one reported (a write that failed because the channel had
     * already closed, or for another reason than I/O, is not one). Note: event loop only.
     */
    void llpFailed(Throwable cause) {
        if (llpFailure == null && cause instanceof IOException && !(cause instanceof ClosedChannelException)) {
            llpFailure = cause;
        }
    }

    /** Something on this side closed the channel itself, not through {@link #close()}. Note: event loop only. */
    void closedUnderneath() {
        closedUnderneath = true;
    }

    /**
     * The connection is gone (RFC 5040 §6.2): ERROR, everything outstanding completes. How it went decides the
     * error: a Terminate sent or received is that Terminate; this side's own {@link #close()} is none; otherwise
     * RFC 5044 §7.2 and §8 tell the peer's graceful close (a FIN) from a lost connection (a reset, a timeout), and
     * both from a channel closed on this side under the queue pair.
     */
    void connectionClosed() {
        if (state == QueuePairState.ERROR) {
            return;
        }
        QueuePairState previous = state;
        state = QueuePairState.ERROR;
        cancelFirstFpduProbe();
        receiver.stop();
        sender.stop();
        flushAll();
        releaseResources();
        Throwable outcome;
        if (terminate != null) {
            outcome = terminate;
        } else if (previous == QueuePairState.CLOSING) {
            outcome = null;
        } else {
            outcome = new ConnectionClosedException("the connection of queue pair " + number
                    + " closed without a Terminate: " + howItWent(), llpFailure);
        }
        if (outcome == null) {
            closeFuture.complete(null);
        } else {
            closeFuture.completeExceptionally(outcome);
        }
        Throwable o = outcome;
        notify(l -> l.onClosed(this, o));
    }

    /**
     * Why an RTS stream ended without a Terminate. RFC 5040 §6.2 has a FIN follow the ULP's graceful termination; one
     * that comes while this side is RTS ends the stream with its work outstanding, so that work completes in error
     * all the same, but the message says it was the peer's orderly close, not a failure.
     */
    private String howItWent() {
        if (llpFailure != null) {
            return "the TCP connection failed (RFC 5044 §8 code 1; RFC 5040 §6.2 LLP abortive termination): "
                    + llpFailure;
        }
        if (closedUnderneath) {
            return "its channel was closed on this side, not through QueuePair.close() (RFC 5040 §6.2 LLP abortive"
                    + " termination)";
        }
        return "the peer closed the TCP connection (a FIN, RFC 5044 §7.2) while this side was RTS; work still"
                + " outstanding here completes in error (RFC 5040 §6.2)";
    }

    /** Calls the listener; its failures are logged, never allowed to unwind the engine. */
    private void notify(java.util.function.Consumer<QueuePairListener> event) {
        try {
            event.accept(listener);
        } catch (Throwable t) {
            logger.warn("queue pair {} listener failed", number, t);
        }
    }

    private void releaseResources() {
        if (!resourcesReleased) {
            resourcesReleased = true;
            sendCq.unreserve(config.sendQueueDepth());
            receiveCq.unreserve(config.receiveQueueDepth());
        }
    }

    @Override
    public String toString() {
        return "QueuePair#" + number + "{" + state + "}";
    }
}
