package io.softrdma.reactive.internal;

import io.softrdma.reactive.spi.ReceiveSlots;
import io.netty.buffer.ByteBuf;
import io.netty.channel.EventLoop;
import io.softrdma.reactive.MessagingOptions;
import io.softrdma.reactive.RdmaMetricsRecorder;
import io.softrdma.reactive.ReceivePool;
import io.softrdma.reactive.SessionStatistics;
import io.softrdma.reactive.spi.SessionProtocol;
import io.softrdma.cm.RdmaConnection;
import io.softrdma.reactive.internal.protocol.CreditWindow;
import io.softrdma.reactive.internal.protocol.MessageType;
import io.softrdma.verbs.MemoryRegion;
import io.softrdma.verbs.ProtectionDomain;
import io.softrdma.verbs.QueuePair;
import io.softrdma.verbs.RemoteMemory;
import io.softrdma.verbs.WorkCompletion;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.Set;
import java.util.function.Function;
import java.util.function.IntConsumer;
import org.reactivestreams.Publisher;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.MonoSink;

/**
 * A session's messaging over RDMA Sends with credits (docs/protocol.md), put together from its parts, each named for
 * what the protocol doc calls it:
 *
 * <ul>
 *   <li>{@link ReceiveSlots} — the receive buffers, posted only for demand;</li>
 *   <li>{@link Receiver} — checks and routes each Send that lands in one;</li>
 *   <li>{@link Transmitter} — the outbound queue, send slots, BATCH packing and standalone credit updates;</li>
 *   <li>{@link CreditWindow} — the credit policy both of them consult;</li>
 *   <li>{@link LargeMessages} — messages above the inline threshold, lent and fetched by RDMA Read;</li>
 *   <li>{@link InboundStream}, {@link StreamSender} — the Reactive Streams ends of {@code receive()} and
 *       {@code send(Publisher)};</li>
 *   <li>{@link Requests}, {@link Responder} — request/response correlation, each side;</li>
 *   <li>{@link ImmediateData} — RFC 7306 Write with Immediate Data and {@code immediates()}.</li>
 * </ul>
 *
 * <p>This class holds what they share (the event loop, the queue pair, whether the session has ended) and ends them
 * together.
 *
 * <p>Memory: up to {@code receiveQueueDepth} receive slots and half the send queue in send slots, of
 * {@code inlineSize} octets each. Receive slots are registered once — or, with a {@link ReceivePool}, only
 * {@link ReceivePool#DEDICATED_BUFFERS} are, and the others are backed from the pool while posted or holding a message;
 * send slots are registered in chunks as Sends in flight need them. A received message is handed on as a view of its
 * slot: the queue pair's placement is the only copy. A message sent is copied once into a send slot (as RFC 8166
 * §3.3's inline path does).
 *
 * <p>Thread safety: the event loop only, but for the methods that say otherwise.
 */
public final class MessagingEngine implements SessionProtocol.Engine {
    private final QueuePair qp;
    private final CreditWindow window;
    private final ReceiveSlots slots;
    private final Transmitter transmitter;
    private final LargeMessages large;
    private final InboundStream inbound;
    private final ImmediateData immediates;
    private final Requests requests;
    private final Responder responder;
    private final EventLoop loop;
    private final MessagingOptions options;
    /** The send() subscribers not yet terminated: a session that ends fails each of them. */
    private final Set<StreamSender> senders = new HashSet<>();
    private Throwable ended;
    private RdmaMetricsRecorder recorder = RdmaMetricsRecorder.NONE;
    /** Whether receive buffers beyond the dedicated few come from a shared pool, and so follow traffic. */
    private final boolean pooled;
    private final int receiveDepth;
    /**
     * With a pool: the receive buffers this session keeps posted or holding a message at most. It starts at
     * {@link ReceivePool#DEDICATED_BUFFERS} and doubles with each data message received, up to the receive queue depth
     * (3, 6, 12, ... 128 after six messages): a session with demand and no traffic holds its dedicated buffers only,
     * and one with traffic gets its full credit window within a few messages (growing by one per message, as TCP's
     * slow start does per acknowledgement, takes 125 messages: long for a short-lived connection, or one of a
     * thousand that each get a few messages a second). It does not shrink back: a granted credit keeps its buffer posted until the peer uses it, and a
     * session sent back to three buffers crawls (each message waits for a credit round trip); the pool's share
     * ({@link ReceivePool#share}) bounds what a session holds while others wait.
     */
    private int target;

    /**
     * Registers the session's receive and send slots and posts the reserve of receive buffers: each side must have
     * them posted before the connection is established (RFC 5040 §5.3, docs/protocol.md).
     */
    MessagingEngine(SessionProtocol.Context context, MessagingOptions options, ReceivePool pool) {
        ProtectionDomain pd = context.protectionDomain();
        QueuePair qp = context.queuePair();
        EventLoop loop = context.eventLoop();
        this.qp = qp;
        this.loop = loop;
        this.options = options;
        int receiveDepth = qp.config().receiveQueueDepth();
        int sendDepth = qp.config().sendQueueDepth();
        this.pooled = pool != null;
        this.receiveDepth = Math.min(receiveDepth, CreditWindow.MAX_RECEIVE_QUEUE_DEPTH);
        this.target = Math.min(this.receiveDepth, ReceivePool.DEDICATED_BUFFERS);
        this.window = new CreditWindow(Math.min(receiveDepth, CreditWindow.MAX_RECEIVE_QUEUE_DEPTH));
        this.slots = new ReceiveSlots(pd, qp, loop, receiveDepth, options.inlineSize(), pool);
        this.slots.owner(new Receiver(this, slots, window, options.maxMessageSize()));
        this.transmitter = new Transmitter(this, pd, qp, context, window, SendQueueShares.messageSends(sendDepth),
                options.inlineSize(), options.sendWindow());
        this.large = new LargeMessages(this, pd, qp, context, window,
                SendQueueShares.largeMessageReads(sendDepth));
        this.inbound = new InboundStream(this, loop, window);
        this.immediates = new ImmediateData(this, loop, window, receiveDepth, options.maxQueuedOperations());
        this.requests = new Requests(this, loop, window, options.maxMessageSize(), options.maxQueuedOperations());
        this.responder = new Responder(this, loop, window, options.maxMessageSize());
        postReceives();
    }

    /**
     * What the RFC 8797 exchange settled: the largest Send the peer takes, and whether a READ_DONE may go as a Send
     * with Invalidate (both ends set R, RFC 8797 §4.1).
     */
    @Override
    public void established(RdmaConnection connection) {
        transmitter.negotiated(connection.rpcRdma().sendInlineThreshold());
        large.negotiated(connection.rpcRdma().remoteInvalidation());
    }

    public void recorder(RdmaMetricsRecorder recorder) {
        this.recorder = recorder;
    }

    // ---- the application's operations (any thread) ----

    /** Sends every message of {@code messages}, as many at a time as credits and send slots allow. Any thread. */
    public Mono<Void> send(Publisher<ByteBuf> messages) {
        return Mono.create(sink -> {
            StreamSender s = new StreamSender(this, loop, sink, options.sendWindow(), options.sendWindowBytes(),
                    options.maxMessageSize());
            sink.onCancel(() -> {
                s.dispose();
                loop.execute(() -> senders.remove(s)); // a cancelled send is not failed again at the end
            });
            messages.subscribe(s);
        });
    }

    /** The received DATA messages, handed over to the subscriber; see {@link InboundStream}. Any thread. */
    public Flux<ByteBuf> receive() {
        return inbound.receive();
    }

    /** Sends {@code request}; emits its response, handed over to the subscriber. Any thread. */
    public Mono<ByteBuf> request(ByteBuf request) {
        return requests.request(request);
    }

    /** Answers the peer's requests; see {@link Responder}. Any thread. */
    public void respond(Function<ByteBuf, ? extends Publisher<ByteBuf>> handler, int concurrency) {
        responder.respond(handler, concurrency);
    }

    /** The peer's Immediate Data (RFC 7306). Any thread. */
    public Flux<Long> immediates() {
        return immediates.immediates();
    }

    /** Queues an RDMA Write with Immediate Data for a credit. Any thread. */
    public void writeWithImmediate(RemoteMemory remote, MemoryRegion region, ByteBuf memory, long data,
            MonoSink<Void> sink) {
        immediates.write(remote, region, memory, data, sink);
    }

    // ---- shared by the parts (event loop) ----

    /** A receive completed (its work request id carries {@link ReceiveSlots#RECEIVE_TAG}). */
    @Override
    public void receiveCompleted(WorkCompletion c) {
        slots.completed(c);
    }

    /** Posts as many receive buffers as the credit window wants and the free slots allow. */
    void postReceives() {
        int wanted = window.buffersToPost();
        if (pooled) {
            wanted = Math.min(wanted, Math.max(0, target - window.postedBuffers() - window.heldBuffers()));
        }
        int posted = slots.post(wanted);
        if (posted > 0) {
            window.posted(posted);
        }
    }

    /** A data message (or BATCH) arrived: with a pool, the session's receive buffers grow with the traffic. */
    void dataArrived() {
        if (pooled && target < receiveDepth) {
            target = Math.min(receiveDepth, 2 * target);
        }
    }

    /** The queue record for a message: inline if it fits one Send, else lent as LARGE. */
    Outgoing message(MessageType type, int correlationId, ByteBuf payload, IntConsumer onSent) {
        if (payload != null && !transmitter.fitsInline(payload.readableBytes())) {
            return large.lend(transmitter, type, correlationId, payload, onSent);
        }
        return transmitter.outgoing(type, correlationId, payload, onSent);
    }

    Transmitter transmitter() {
        return transmitter;
    }

    LargeMessages large() {
        return large;
    }

    /** The session's event loop. */
    EventLoop loop() {
        return loop;
    }

    InboundStream inbound() {
        return inbound;
    }

    ImmediateData immediateData() {
        return immediates;
    }

    Requests requests() {
        return requests;
    }

    Responder responder() {
        return responder;
    }

    Set<StreamSender> senders() {
        return senders;
    }

    RdmaMetricsRecorder recorder() {
        return recorder;
    }

    boolean ended() {
        return ended != null;
    }

    /** Why this engine ended the session, when the peer broke the protocol; see {@link #failure()}. */
    private Throwable failure;

    Throwable endCause() {
        return ended;
    }

    /** The peer broke the protocol: the session ends and the queue pair closes. */
    void fail(Throwable cause) {
        if (failure == null && ended == null) {
            failure = cause;
        }
        end(cause);
        qp.close();
    }

    @Override
    public Throwable failure() {
        return failure;
    }

    /**
     * The error for a buffer handed over already released: typically a Mono subscribed twice (retry, repeat) with
     * the buffer it was made with, which the first subscription released.
     */
    public static IllegalArgumentException released(String what) {
        return new IllegalArgumentException("the " + what + "'s buffer was already released (refCnt 0): each"
                + " subscription needs a buffer of its own; to subscribe again (retry, repeat), build it in"
                + " Mono.defer(() -> ...)");
    }

    // ---- diagnostics (any thread, racy snapshots) ----

    /** The bound on queued Writes, Reads and requests per session (MessagingOptions.maxQueuedOperations). */
    public int maxQueuedOperations() {
        return options.maxQueuedOperations();
    }

    /** Credits, receive buffers and read queues now. */
    public SessionStatistics statistics() {
        return new SessionStatistics(window.available(), window.peerCredits(), window.postedBuffers(),
                messagesBuffered(), qp.readsOutstanding(), qp.ord(), qp.inboundReadsQueued(), qp.ird(),
                qp.counters(), slots.registeredBytes() + transmitter.registeredBytes());
    }

    /** Messages received and not yet taken by a subscriber or handler. */
    public int messagesBuffered() {
        return inbound.buffered() + responder.waiting();
    }

    @Override
    public String toString() {
        return "Messaging{" + window + ", " + transmitter + ", free receives " + slots.free() + ", pooled receives "
                + slots.borrowed() + ", held data "
                + inbound.buffered() + ", held requests " + responder.waiting() + ", requests " + requests.waiting()
                + ", receiver demand " + inbound.demand() + "}";
    }

    /** The session ended: every waiter fails with {@code cause}; queued and held messages are released. */
    @Override
    public void end(Throwable cause) {
        if (ended != null) {
            return;
        }
        ended = cause;
        slots.close();
        transmitter.end();
        for (StreamSender s : new ArrayList<>(senders)) {
            s.fail(cause);
        }
        senders.clear();
        requests.end(cause);
        inbound.end(cause);
        responder.end();
        large.end();
        immediates.end(cause);
    }
}
