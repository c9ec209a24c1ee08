package io.softrdma.reactive;

import io.netty.buffer.ByteBuf;
import io.netty.channel.EventLoop;
import io.netty.util.collection.IntObjectHashMap;
import io.softrdma.reactive.protocol.CreditWindow;
import io.softrdma.reactive.protocol.LargeMessageDescriptor;
import io.softrdma.reactive.protocol.MessageBatch;
import io.softrdma.reactive.protocol.MessageHeader;
import io.softrdma.reactive.protocol.MessageType;
import io.softrdma.verbs.Access;
import io.softrdma.verbs.MemoryRegion;
import io.softrdma.verbs.ProtectionDomain;
import io.softrdma.verbs.QueuePair;
import io.softrdma.verbs.ReceiveWorkRequest;
import io.softrdma.verbs.RemoteMemory;
import io.softrdma.verbs.ScatterGatherEntry;
import io.softrdma.verbs.SendWorkRequest;
import io.softrdma.verbs.WorkCompletion;
import io.softrdma.verbs.WorkCompletionOpcode;
import io.softrdma.verbs.WorkCompletionStatus;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.function.Function;
import java.util.function.IntConsumer;
import org.reactivestreams.Publisher;
import org.reactivestreams.Subscription;
import reactor.core.publisher.BaseSubscriber;
import reactor.core.publisher.FluxSink;
import reactor.core.publisher.Mono;
import reactor.core.publisher.MonoSink;

/**
 * Messaging over RDMA Sends with credits (docs/protocol.md): every Send starts with a
 * {@link MessageHeader} that grants credit; a message goes out only against the peer's credit
 * ({@link CreditWindow}), and receive buffers are posted only for downstream demand.
 *
 * <p>Memory: {@code receiveDepth} receive slots and {@code sendDepth} send slots of {@code slotSize}
 * octets each, registered once. A received message is handed downstream as a view of its slot
 * ({@link SlotBuffer}): the queue pair's placement is the only copy, and releasing the view returns the
 * slot. A message sent is copied once into a send slot (the inline path of RFC 8166 §3.3 does the same).
 * A message larger than the negotiated inline threshold is not cut into Sends: it is registered (no
 * copy for a direct buffer), announced with LARGE, RDMA-Read by the peer into memory it allocates, and
 * released by the peer's READ_DONE — a Send with Invalidate of its STag when both ends allow remote
 * invalidation (RFC 8797 §4.1).
 *
 * <p>Note: event loop only, but for the methods that say otherwise.
 */
final class Messenger {
    /**
     * Receive work requests carry this bit and their slot's index: each slot posts the same request
     * every time (it is not in use while posted), so reposting a buffer allocates nothing.
     */
    static final long RECEIVE_TAG = 1L << 62;

    /** For messages whose sending nobody waits for. */
    private static final IntConsumer NOTHING = octets -> { };

    private final QueuePair qp;
    private final Operations operations;
    private final EventLoop loop;
    private final CreditWindow window;
    private final int slotSize;
    private final MemoryRegion receiveArena;
    private final MemoryRegion sendArena;
    private final ReceiveSlot[] receiveSlots;
    private final ArrayDeque<ReceiveSlot> freeReceives = new ArrayDeque<>();
    private final ArrayDeque<SendSlot> freeSends = new ArrayDeque<>();
    private final ArrayDeque<Outgoing> outbound = new ArrayDeque<>();
    /** The send() subscribers not yet terminated: a session that ends fails each of them. */
    private final java.util.Set<SendSubscriber> senders = new java.util.HashSet<>();
    /** Data messages received before the subscriber asked for them (at most the window's reserve). */
    /**
     * Stream messages received and not yet handed on, in the order of their Sends: a {@link ByteBuf}, or a
     * {@link LargeArrival} whose RDMA Read may still be running — nothing behind it overtakes it.
     */
    private final ArrayDeque<Object> heldData = new ArrayDeque<>();

    /** A LARGE stream message's place in {@link #heldData}; its message once RDMA-Read. */
    private static final class LargeArrival {
        ByteBuf message;
    }

    /** A message of a BATCH held in {@link #heldData} other than its first. */
    private record BatchPart(ByteBuf message) {
    }
    private final ArrayDeque<HeldRequest> heldRequests = new ArrayDeque<>();
    private final IntObjectHashMap<PendingRequest> requests = new IntObjectHashMap<>();

    /** A request awaiting its answer; a cancelled one still takes the answer, and drops it. */
    private static final class PendingRequest {
        final MonoSink<ByteBuf> sink;
        final long octets;
        final long sent = System.nanoTime();
        volatile boolean cancelled;

        PendingRequest(MonoSink<ByteBuf> sink, long octets) {
            this.sink = sink;
            this.octets = octets;
            sink.onCancel(() -> cancelled = true);
        }
    }
    private int nextCorrelationId = 1;
    private FluxSink<ByteBuf> receiver;
    private long receiverDemand;
    private FluxSink<Long> immediateReceiver;
    private long immediateDemand;
    /** Immediate Data received before the subscriber asked for it (at most the receive buffers posted). */
    private final LongRing heldImmediates;
    private Function<ByteBuf, ? extends Publisher<ByteBuf>> responder;
    private int responderConcurrency;
    private int responding;
    private int sendLimit;
    private boolean remoteInvalidation;
    private final long maxMessageSize;
    private final int sendWindow;
    private final long sendWindowBytes;
    private final int maxQueuedOperations;
    /** RDMA Reads of LARGE messages posted at most (their share of the send queue); the rest wait here. */
    private final int largeReadLimit;
    private int largeReads;
    private final ArrayDeque<PendingLarge> pendingLarge = new ArrayDeque<>();

    /** A LARGE message announced and not yet being read. */
    private record PendingLarge(MessageType inner, int correlationId, LargeMessageDescriptor descriptor,
            LargeArrival arrival) {
    }
    private final ProtectionDomain pd;
    /** Regions lent to the peer with LARGE, by STag, until its READ_DONE (or Send with Invalidate). */
    private final IntObjectHashMap<Lent> lent = new IntObjectHashMap<>();
    private Throwable ended;
    private RdmaMetricsRecorder recorder = RdmaMetricsRecorder.NONE;

    Messenger(ProtectionDomain pd, QueuePair qp, Operations operations, EventLoop loop, MessagingOptions options) {
        int slotSize = options.inlineSize();
        this.sendWindow = options.sendWindow();
        this.sendWindowBytes = options.sendWindowBytes();
        this.maxQueuedOperations = options.maxQueuedOperations();
        long maxMessageSize = options.maxMessageSize();
        this.pd = pd;
        this.maxMessageSize = maxMessageSize;
        this.qp = qp;
        this.operations = operations;
        this.loop = loop;
        this.slotSize = slotSize;
        int receiveDepth = qp.config().receiveQueueDepth();
        int sendDepth = SessionResources.messageSends(qp.config().sendQueueDepth());
        this.largeReadLimit = SessionResources.largeMessageReads(qp.config().sendQueueDepth());
        this.window = new CreditWindow(Math.min(receiveDepth, CreditWindow.MAX_RECEIVE_QUEUE_DEPTH));
        this.receiveArena = pd.allocate(receiveDepth * slotSize, Access.of(Access.LOCAL_WRITE));
        this.sendArena = pd.allocate(sendDepth * slotSize, Access.of(Access.LOCAL_WRITE));
        this.receiveSlots = new ReceiveSlot[receiveDepth];
        for (int i = 0; i < receiveDepth; i++) {
            receiveSlots[i] = new ReceiveSlot(i);
            freeReceives.add(receiveSlots[i]);
        }
        for (int i = 0; i < sendDepth; i++) {
            freeSends.add(new SendSlot(i));
        }
        this.sendLimit = slotSize - MessageHeader.LENGTH;
        this.heldImmediates = new LongRing(receiveDepth);
    }

    /** Posts the reserve of receive buffers; before the connection is established (RFC 5040 §5.3). */
    void start() {
        postReceives();
    }

    /**
     * The largest message that goes by one Send: the negotiated send inline threshold less the header;
     * and whether a READ_DONE may go as a Send with Invalidate (RFC 8797 §4.1: both ends set R).
     */
    void negotiated(int sendInlineThreshold, boolean remoteInvalidation) {
        sendLimit = Math.min(slotSize, sendInlineThreshold) - MessageHeader.LENGTH;
        this.remoteInvalidation = remoteInvalidation;
    }

    // ---- sending ----

    /** A message waiting for credit and a send slot. */
    private static final class Outgoing {
        MessageType type;
        int correlationId;
        ByteBuf payload;
        /** Told the message's length when its Send is complete (for LARGE: when the peer released it). */
        IntConsumer onSent;
        /** For LARGE: the inner type and the lent region. */
        MessageType innerType;
        Lent region;
        /** For a READ_DONE that may invalidate remotely: the STag; 0 for none. */
        int invalidateStag;
        /** An RDMA Write followed by Immediate Data (RFC 7306) instead of a Send: it spends a credit all the same. */
        ImmediateWrite immediateWrite;
    }

    /**
     * An RDMA Write followed by Immediate Data: queued behind messages for a credit (its Immediate Data consumes a
     * receive buffer of the peer's, like a Send), then posted in a send slot. Its region and buffer are released,
     * and its subscriber told, when the Write and Immediate Data are complete or the session ends.
     */
    private final class ImmediateWrite implements IntConsumer {
        final RemoteMemory remote;
        final MemoryRegion region;
        final ByteBuf memory;
        final long data;
        final MonoSink<Void> sink;
        final long subscribed = System.nanoTime();

        ImmediateWrite(RemoteMemory remote, MemoryRegion region, ByteBuf memory, long data, MonoSink<Void> sink) {
            this.remote = remote;
            this.region = region;
            this.memory = memory;
            this.data = data;
            this.sink = sink;
        }

        /** The Write and its Immediate Data are complete (RFC 5040 §5.5 rule 14). */
        @Override
        public void accept(int octets) {
            if (immediateWrites.remove(this)) {
                release();
                recorder.operation(RdmaMetricsRecorder.Operation.WRITE, octets, System.nanoTime() - subscribed, true);
                sink.success();
            }
        }

        void fail(Throwable cause) {
            if (immediateWrites.remove(this)) {
                release();
                recorder.operation(RdmaMetricsRecorder.Operation.WRITE, 0, System.nanoTime() - subscribed, false);
                sink.error(cause);
            }
        }

        private void release() {
            region.close();
            memory.release();
        }
    }

    /** Immediate writes queued or posted: a session that ends fails them. */
    private final java.util.Set<ImmediateWrite> immediateWrites = new java.util.HashSet<>();

    /** Outgoing records already sent, for the next messages: queueing a message allocates nothing. */
    private final ArrayDeque<Outgoing> spareOutgoing = new ArrayDeque<>();

    private Outgoing outgoing(MessageType type, int correlationId, ByteBuf payload, IntConsumer onSent) {
        Outgoing o = spareOutgoing.poll();
        if (o == null) {
            o = new Outgoing();
        }
        o.type = type;
        o.correlationId = correlationId;
        o.payload = payload;
        o.onSent = onSent;
        return o;
    }

    /** Once sent: cleared (it must not keep a message or callback alive) and kept, up to the send window. */
    private void recycle(Outgoing o) {
        o.immediateWrite = null;
        o.payload = null;
        o.onSent = null;
        o.innerType = null;
        o.region = null;
        o.invalidateStag = 0;
        if (spareOutgoing.size() < sendWindow) {
            spareOutgoing.add(o);
        }
    }

    /** A message's memory registered for the peer to RDMA Read (docs/protocol.md, large messages). */
    private static final class Lent {
        final MemoryRegion region;
        final ByteBuf memory;
        final IntConsumer onReleased;

        Lent(MemoryRegion region, ByteBuf memory, IntConsumer onReleased) {
            this.region = region;
            this.memory = memory;
            this.onReleased = onReleased;
        }

        void close() {
            region.invalidate();
            region.close();
            memory.release();
        }
    }

    /**
     * A message that does not fit one Send: registered (a direct buffer as it is; a heap buffer after one
     * copy into direct memory) for the peer to RDMA Read, and announced with LARGE. {@code onReleased}
     * runs when the peer says it has read it.
     */
    private Outgoing large(MessageType innerType, int correlationId, ByteBuf message, IntConsumer onReleased) {
        ByteBuf direct = message;
        if (!message.isDirect()) {
            direct = message.alloc().directBuffer(message.readableBytes());
            direct.writeBytes(message, message.readerIndex(), message.readableBytes());
            message.release();
        }
        MemoryRegion region = pd.register(direct, java.util.Set.of(Access.REMOTE_READ));
        Outgoing o = outgoing(MessageType.LARGE, innerType == MessageType.DATA ? 0 : correlationId, null,
                NOTHING);
        o.innerType = innerType;
        o.region = new Lent(region, direct, onReleased);
        return o;
    }

    private Outgoing message(MessageType type, int correlationId, ByteBuf payload, IntConsumer onSent) {
        if (payload != null && payload.readableBytes() > sendLimit) {
            return large(type, correlationId, payload, onSent);
        }
        return outgoing(type, correlationId, payload, onSent);
    }

    /** Sends every message of {@code messages}, as many at a time as there are send slots. Any thread. */
    Mono<Void> send(Publisher<ByteBuf> messages) {
        return Mono.create(sink -> {
            SendSubscriber s = new SendSubscriber(sink);
            sink.onCancel(s::dispose);
            messages.subscribe(s);
        });
    }

    /**
     * Requests messages only as fast as they leave: it keeps {@code min(sendWindow, sendWindowBytes / average
     * message size)} messages requested and not yet sent, asking again when a quarter of that is free (as
     * Reactor's {@code limitRate} does), and starts with one message, to learn their size. Messages reach the
     * event loop through a bounded single-producer queue (Reactive Streams serialises onNext) drained by one
     * task at a time, so a message costs no task of its own, and order holds whichever thread emits.
     */
    private final class SendSubscriber extends BaseSubscriber<ByteBuf> {
        private final MonoSink<Void> sink;
        private final IntConsumer onSent = this::sent;
        /** Bounded by the requests made; linked in small arrays, so that a send of one message stays cheap. */
        private final java.util.Queue<ByteBuf> arrived = reactor.util.concurrent.Queues.<ByteBuf>unbounded(64).get();
        private final java.util.concurrent.atomic.AtomicInteger wip = new java.util.concurrent.atomic.AtomicInteger();
        private final Runnable drain = this::drain;
        /** Requested from the publisher and not yet arrived; the first request is made before subscribing. */
        private long outstanding = 1;
        /** Arrived and not yet sent (or, for a LARGE message, not yet released by the peer). */
        private int inFlight;
        private long bytesInFlight;
        /** A running average of the messages' lengths, 1 at least; 0 until the first arrives. */
        private int averageLength;
        private boolean complete;
        private boolean failed;

        SendSubscriber(MonoSink<Void> sink) {
            this.sink = sink;
        }

        @Override
        protected void hookOnSubscribe(Subscription subscription) {
            loop.execute(() -> {
                if (ended != null) {
                    fail(ended);
                } else if (!failed) {
                    senders.add(this);
                }
            });
            subscription.request(1);
        }

        @Override
        protected void hookOnNext(ByteBuf message) {
            if (!arrived.offer(message)) {
                // More than requested: a publisher that broke Reactive Streams rule 1.1.
                message.release();
                onError(reactor.core.Exceptions.failWithOverflow("send(): more messages than requested"));
                return;
            }
            if (wip.getAndIncrement() == 0) {
                // Always through the loop's task queue, even on the loop: a completion callback that asks
                // for more must not re-enter the send path it was called from.
                loop.execute(drain);
            }
        }

        /** On the loop: takes in whatever arrived, then stops until a message arrives again. */
        private void drain() {
            int missed = 1;
            do {
                ByteBuf m;
                while ((m = arrived.poll()) != null) {
                    next(m);
                }
                missed = wip.addAndGet(-missed);
            } while (missed != 0);
            replenish();
        }

        private void next(ByteBuf message) {
            outstanding--;
            if (failed) {
                message.release();
                return;
            }
            if (message.refCnt() == 0) {
                fail(released("message"));
                return;
            }
            int n = message.readableBytes();
            if (ended != null || n > maxMessageSize) {
                fail(ended != null ? ended : new IllegalArgumentException("a message of " + n
                        + " octets exceeds the largest of " + maxMessageSize + " (maxMessageSize)"));
                message.release();
                return;
            }
            inFlight++;
            bytesInFlight += n;
            averageLength = averageLength == 0 ? Math.max(1, n) : Math.max(1, (int) ((7L * averageLength + n) / 8));
            enqueue(message(MessageType.DATA, 0, message, onSent));
        }

        private void sent(int octets) {
            inFlight--;
            bytesInFlight -= octets;
            if (complete && inFlight == 0 && !failed) {
                senders.remove(this);
                sink.success();
            } else {
                replenish();
            }
        }

        private void replenish() {
            if (complete || failed || averageLength == 0) {
                return;
            }
            long window = Math.min(sendWindow, Math.max(1, sendWindowBytes / averageLength));
            long room = window - outstanding - inFlight;
            if (room > 0 && room >= window / 4) {
                outstanding += room;
                request(room);
            }
        }

        @Override
        protected void hookOnComplete() {
            loop.execute(() -> {
                ByteBuf m;
                while ((m = arrived.poll()) != null) {
                    next(m); // whatever onNext queued came first; the scheduled drain finds the queue empty
                }
                complete = true;
                if (inFlight == 0 && !failed) {
                    senders.remove(this);
                    sink.success();
                }
            });
        }

        @Override
        protected void hookOnError(Throwable t) {
            loop.execute(() -> fail(t));
        }

        private void fail(Throwable t) {
            if (!failed) {
                failed = true;
                senders.remove(this);
                cancel();
                sink.error(t);
                ByteBuf m;
                while ((m = arrived.poll()) != null) {
                    m.release(); // queued before the failure; whatever comes later, next() releases
                }
            }
        }
    }

    /** Sends {@code request} and completes with the peer's response (correlated). Any thread. */
    Mono<ByteBuf> request(ByteBuf request) {
        return Mono.create(sink -> {
            if (request.refCnt() == 0) {
                sink.error(released("request"));
                return;
            }
            loop.execute(() -> request(request, sink));
        });
    }

    /**
     * The error for a buffer handed over already released: typically a Mono subscribed twice (retry, repeat) with
     * the buffer it was made with, which the first subscription released.
     */
    static IllegalArgumentException released(String what) {
        return new IllegalArgumentException("the " + what + "'s buffer was already released (refCnt 0): each"
                + " subscription needs a buffer of its own; to subscribe again (retry, repeat), build it in"
                + " Mono.defer(() -> ...)");
    }

    private void request(ByteBuf request, MonoSink<ByteBuf> sink) {
        if (ended != null) {
            request.release();
            sink.error(ended);
            return;
        }
        if (requests.size() >= maxQueuedOperations) {
            request.release();
            sink.error(new IllegalStateException(requests.size() + " requests await their response, the most a"
                    + " session holds (MessagingOptions.maxQueuedOperations): wait for some to be answered"));
            return;
        }
        if (request.readableBytes() > maxMessageSize) {
            request.release();
            sink.error(new IllegalArgumentException("a request of " + request.readableBytes()
                    + " octets exceeds the largest of " + maxMessageSize + " (maxMessageSize)"));
            return;
        }
        int id = nextCorrelationId++;
        if (nextCorrelationId == 0) {
            nextCorrelationId = 1;
        }
        requests.put(id, new PendingRequest(sink, request.readableBytes()));
        // The response needs a posted buffer: one more unit of demand.
        window.demand(1);
        postReceives();
        enqueue(message(MessageType.REQUEST, id, request, NOTHING));
    }

    /** Answers each request with what {@code handler} returns; {@code concurrency} at a time. Any thread. */
    void respond(Function<ByteBuf, ? extends Publisher<ByteBuf>> handler, int concurrency) {
        loop.execute(() -> {
            responder = handler;
            responderConcurrency = concurrency;
            window.demand(concurrency);
            drainHeldRequests();
            postReceives();
            maybeUpdateCredits();
        });
    }

    private void enqueue(Outgoing o) {
        outbound.add(o);
        pumpSends();
    }

    private void pumpSends() {
        while (!outbound.isEmpty() && !freeSends.isEmpty() && window.tryAcquire(outbound.peek().type)) {
            Outgoing o = outbound.poll();
            SendSlot slot = freeSends.poll();
            if (o.immediateWrite != null) {
                postImmediateWrite(o, slot);
                continue;
            }
            int offset = slot.index * slotSize;
            ByteBuf memory = sendArena.buffer();
            int length = MessageHeader.LENGTH;
            if (o.type == MessageType.LARGE) {
                MessageHeader.writeLarge(memory, offset, o.innerType, window.takeGrant(), o.correlationId);
                new LargeMessageDescriptor(o.region.region.stag(), o.region.region.baseTaggedOffset()
                        + o.region.memory.readerIndex(), o.region.memory.readableBytes())
                        .write(memory, offset + length);
                length += LargeMessageDescriptor.LENGTH;
                lent.put(o.region.region.stag(), o.region);
                window.expectRelease();
            } else {
                MessageHeader.write(memory, offset, o.type, 0, window.takeGrant(), o.correlationId);
            }
            slot.add(o.onSent, o.payload == null ? 0 : o.payload.readableBytes());
            if (o.type == MessageType.DATA && o.payload != null && batches(o, outbound.peek())) {
                length = packBatch(o, slot, memory, offset);
            } else if (o.payload != null) {
                int n = o.payload.readableBytes();
                memory.setBytes(offset + MessageHeader.LENGTH, o.payload, o.payload.readerIndex(), n);
                length += n;
                o.payload.release();
            }
            long wrId = operations.add(slot);
            try {
                SendWorkRequest wr = SendWorkRequest.send(wrId, new ScatterGatherEntry(sendArena, offset, length));
                qp.postSend(o.invalidateStag != 0 ? wr.withInvalidate(o.invalidateStag) : wr);
            } catch (RuntimeException e) {
                operations.remove(wrId);
                slot.fail(e);
                end(e);
                return;
            }
            recycle(o);
        }
        maybeUpdateCredits();
    }

    /**
     * Posts an RDMA Write with Immediate Data in {@code slot}: no header, so it carries no grant (the next message
     * does, or a CREDIT when the window says one is needed).
     */
    private void postImmediateWrite(Outgoing o, SendSlot slot) {
        ImmediateWrite w = o.immediateWrite;
        recycle(o);
        int length = w.memory.readableBytes();
        slot.add(w, length);
        long wrId = operations.add(slot);
        try {
            qp.postSend(SendWorkRequest.writeWithImmediate(wrId, w.remote.stag(), w.remote.taggedOffset(), w.data,
                    new ScatterGatherEntry(w.region, w.memory.readerIndex(), length)));
        } catch (RuntimeException e) {
            operations.remove(wrId);
            slot.fail(e);
            w.fail(e);
            end(e);
        }
    }

    /** Queues an RDMA Write with Immediate Data for a credit. Any thread. */
    void writeWithImmediate(RemoteMemory remote, MemoryRegion region, ByteBuf memory, long data, MonoSink<Void> sink) {
        ImmediateWrite w = new ImmediateWrite(remote, region, memory, data, sink);
        loop.execute(() -> {
            immediateWrites.add(w);
            if (ended != null) {
                w.fail(ended);
                return;
            }
            if (immediateWrites.size() > maxQueuedOperations) {
                w.fail(new IllegalStateException(maxQueuedOperations + " Writes with Immediate Data already wait,"
                        + " the most a session holds (MessagingOptions.maxQueuedOperations): wait for some to"
                        + " complete"));
                return;
            }
            Outgoing o = outgoing(MessageType.DATA, 0, null, NOTHING);
            o.immediateWrite = w;
            enqueue(o);
        });
    }

    /** Whether {@code first} and {@code next}, both queued, fit one Send as a BATCH. */
    private boolean batches(Outgoing first, Outgoing next) {
        return next != null && next.type == MessageType.DATA && next.payload != null && next.immediateWrite == null
                && MessageBatch.entryLength(first.payload.readableBytes())
                        + MessageBatch.entryLength(next.payload.readableBytes()) <= sendLimit;
    }

    /**
     * Packs {@code first} and the DATA messages queued right behind it, as many as fit the send inline
     * threshold, into one BATCH (docs/protocol.md): the header, already written with {@code first}'s grant,
     * becomes a BATCH header with the count. Returns the Send's length.
     */
    private int packBatch(Outgoing first, SendSlot slot, ByteBuf memory, int offset) {
        int end = offset + MessageHeader.LENGTH + sendLimit;
        int at = MessageBatch.writeEntry(memory, offset + MessageHeader.LENGTH, first.payload);
        first.payload.release();
        int count = 1;
        Outgoing next;
        while ((next = outbound.peek()) != null && next.type == MessageType.DATA && next.payload != null
                && next.immediateWrite == null && at + MessageBatch.entryLength(next.payload.readableBytes()) <= end) {
            outbound.poll();
            slot.add(next.onSent, next.payload.readableBytes());
            at = MessageBatch.writeEntry(memory, at, next.payload);
            next.payload.release();
            recycle(next);
            count++;
        }
        MessageHeader.write(memory, offset, MessageType.BATCH, 0, MessageHeader.credits(memory, offset), count);
        return at - offset;
    }

    /** A standalone credit update, only when the window says it is needed. */
    private void maybeUpdateCredits() {
        boolean other = !outbound.isEmpty() && window.canAcquire(outbound.peek().type) && !freeSends.isEmpty();
        if (ended == null && !freeSends.isEmpty() && window.standaloneUpdateNeeded(other)) {
            outbound.addFirst(outgoing(MessageType.CREDIT, 0, null, NOTHING));
            pumpSends();
        }
    }

    /** One send slot; free again once its Send completed (RFC 5040 §5.5 rule 14). */
    private final class SendSlot implements Operations.Pending {
        final int index;
        /** Whom to tell when the Send is complete, and of how many octets: one for each message it carries. */
        private IntConsumer[] onSent = new IntConsumer[4];
        private int[] octets = new int[4];
        private int messages;

        SendSlot(int index) {
            this.index = index;
        }

        void add(IntConsumer c, int length) {
            if (messages == onSent.length) {
                onSent = java.util.Arrays.copyOf(onSent, messages * 2);
                octets = java.util.Arrays.copyOf(octets, messages * 2);
            }
            onSent[messages] = c;
            octets[messages++] = length;
        }

        @Override
        public void complete(WorkCompletion c) {
            int n = messages;
            messages = 0;
            freeSends.add(this);
            if (c.status() != WorkCompletionStatus.SUCCESS) {
                java.util.Arrays.fill(onSent, 0, n, null);
                return; // the session ends with the queue pair's close cause
            }
            for (int i = 0; i < n; i++) {
                IntConsumer sent = onSent[i];
                onSent[i] = null;
                sent.accept(octets[i]);
            }
            pumpSends();
        }

        @Override
        public void fail(Throwable cause) {
            java.util.Arrays.fill(onSent, 0, messages, null);
            messages = 0;
            freeSends.add(this);
        }
    }

    // ---- receiving ----

    /** The received DATA messages, one subscriber at a time; demand posts receive buffers. Any thread. */
    reactor.core.publisher.Flux<ByteBuf> receive() {
        return reactor.core.publisher.Flux.create(sink -> loop.execute(() -> {
            if (receiver != null) {
                sink.error(new IllegalStateException("receive() has a subscriber already"));
                return;
            }
            if (ended != null) {
                sink.error(ended);
                return;
            }
            receiver = sink;
            sink.onRequest(n -> loop.execute(() -> {
                if (receiver != sink) {
                    return;
                }
                long before = receiverDemand;
                receiverDemand = before + n < 0 ? Long.MAX_VALUE : before + n;
                window.demand(n);
                drainHeldData();
                postReceives();
                maybeUpdateCredits();
            }));
            sink.onDispose(() -> loop.execute(() -> {
                if (receiver == sink) {
                    receiver = null;
                }
            }));
        }), FluxSink.OverflowStrategy.ERROR);
    }

    /** The peer's Immediate Data, one subscriber at a time; demand posts receive buffers. Any thread. */
    reactor.core.publisher.Flux<Long> immediates() {
        return reactor.core.publisher.Flux.create(sink -> loop.execute(() -> {
            if (immediateReceiver != null) {
                sink.error(new IllegalStateException("immediates() has a subscriber already"));
                return;
            }
            if (ended != null) {
                sink.error(ended);
                return;
            }
            immediateReceiver = sink;
            immediateDemand = 0; // a new subscriber starts with its own demand, not what the last one left
            sink.onRequest(n -> loop.execute(() -> {
                if (immediateReceiver != sink) {
                    return;
                }
                long before = immediateDemand;
                immediateDemand = before + n < 0 ? Long.MAX_VALUE : before + n;
                window.demand(n);
                drainHeldImmediates();
                postReceives();
                maybeUpdateCredits();
            }));
            sink.onDispose(() -> loop.execute(() -> {
                if (immediateReceiver == sink) {
                    immediateReceiver = null;
                }
            }));
        }), FluxSink.OverflowStrategy.ERROR);
    }

    /**
     * Immediate Data arrived (RFC 7306): it took a receive buffer and placed nothing in it, so the buffer is free
     * at once; the credit comes back, as for a data message, when the value is handed on.
     */
    private void onImmediate(ReceiveSlot slot, long data) {
        freeReceives.add(slot);
        window.received(MessageType.DATA, 1);
        heldImmediates.addLast(data);
        drainHeldImmediates();
        postReceives();
        pumpSends();
    }

    private void drainHeldImmediates() {
        if (immediateReceiver != null && immediateReceiver.isCancelled()) {
            immediateReceiver = null; // its onDispose is on its way; nothing more goes to it meanwhile
        }
        while (immediateDemand > 0 && immediateReceiver != null && !heldImmediates.isEmpty()) {
            long data = heldImmediates.pollFirst();
            if (immediateDemand != Long.MAX_VALUE) {
                immediateDemand--;
            }
            window.delivered(true);
            immediateReceiver.next(data);
        }
    }

    private void drainHeldData() {
        Object head;
        while (receiverDemand > 0 && receiver != null && (head = heldData.peek()) != null) {
            ByteBuf message;
            boolean freesBuffer = true;
            if (head instanceof LargeArrival large) {
                if (large.message == null) {
                    return; // still being read: what came after it waits
                }
                message = large.message;
            } else if (head instanceof BatchPart part) {
                message = part.message();
                freesBuffer = false;
            } else {
                message = (ByteBuf) head;
            }
            heldData.poll();
            deliverData(message, freesBuffer);
        }
    }

    private void deliverData(ByteBuf message, boolean freesBuffer) {
        if (receiverDemand != Long.MAX_VALUE) {
            receiverDemand--;
        }
        window.delivered(freesBuffer);
        receiver.next(message);
    }

    /** A request waiting for the handler's concurrency. */
    private record HeldRequest(ByteBuf message, int correlationId) {
    }

    /** Hands a received message (from its slot, or RDMA-Read for LARGE) to whoever it is for. */
    private void deliver(MessageType type, int correlationId, ByteBuf message) {
        switch (type) {
            case DATA -> {
                if (receiver != null && receiverDemand > 0 && heldData.isEmpty()) {
                    deliverData(message, true);
                } else {
                    heldData.add(message);
                }
            }
            case REQUEST -> {
                // The credit reserve lets the peer run a request or two ahead of the handler's
                // concurrency: those wait (docs/protocol.md).
                heldRequests.add(new HeldRequest(message, correlationId));
                drainHeldRequests();
            }
            default -> {
                PendingRequest pending = requests.remove(correlationId);
                window.delivered();
                if (pending != null) {
                    recorder.operation(RdmaMetricsRecorder.Operation.REQUEST, pending.octets,
                            System.nanoTime() - pending.sent, type == MessageType.RESPONSE);
                }
                if (pending == null || pending.cancelled) {
                    // Cancelled (or unknown): the answer's buffer goes back, nothing is lost.
                    message.release();
                } else if (type == MessageType.RESPONSE) {
                    pending.sink.success(message);
                } else {
                    String text = message.toString(StandardCharsets.UTF_8);
                    message.release();
                    pending.sink.error(new RdmaRemoteException(text));
                }
            }
        }
    }

    /** RDMA-Reads a LARGE message's region (at most ORD at a time: the queue pair holds the rest back). */
    private void readLarge(MessageType inner, int correlationId, LargeMessageDescriptor d, LargeArrival arrival) {
        if (largeReads >= largeReadLimit) {
            pendingLarge.add(new PendingLarge(inner, correlationId, d, arrival));
            return;
        }
        largeReads++;
        MemoryRegion sink = pd.allocate((int) d.length(), Access.of(Access.LOCAL_WRITE));
        Operations.Pending read = new Operations.Pending() {
            @Override
            public void complete(WorkCompletion c) {
                largeReads--;
                if (c.status() != WorkCompletionStatus.SUCCESS) {
                    sink.close();
                    return; // the session ends with the queue pair's close cause
                }
                PendingLarge next = pendingLarge.poll();
                if (next != null) {
                    readLarge(next.inner(), next.correlationId(), next.descriptor(), next.arrival());
                }
                ByteBuf message = sink.buffer().retainedSlice(0, (int) d.length());
                sink.close();
                // RFC 8797 §4.1: with both R flags set, the READ_DONE invalidates the lent STag remotely.
                Outgoing done = outgoing(MessageType.READ_DONE, d.stag(), null, NOTHING);
                done.invalidateStag = remoteInvalidation ? d.stag() : 0;
                enqueue(done);
                if (ended != null) {
                    message.release();
                } else if (arrival != null) {
                    arrival.message = message;
                    drainHeldData();
                } else {
                    deliver(inner, correlationId, message);
                }
                postReceives();
                pumpSends();
            }

            @Override
            public void fail(Throwable cause) {
                largeReads--;
                sink.close();
            }
        };
        long wrId = operations.add(read);
        try {
            qp.postSend(SendWorkRequest.read(wrId, ScatterGatherEntry.of(sink), d.toRemoteMemory()));
        } catch (RuntimeException e) {
            operations.remove(wrId);
            largeReads--;
            sink.close();
            end(e);
        }
    }

    /** The peer has read a region this side lent: it goes, and whoever waited for the send hears. */
    private void released(int stag) {
        Lent l = lent.remove(stag);
        if (l != null) {
            window.releaseReceived();
            l.close();
            l.onReleased.accept(l.memory.readableBytes());
        }
    }

    private void postReceives() {
        int n = Math.min(window.buffersToPost(), freeReceives.size());
        int posted = 0;
        for (; posted < n; posted++) {
            ReceiveSlot slot = freeReceives.poll();
            try {
                qp.postReceive(slot.request);
            } catch (RuntimeException e) {
                freeReceives.add(slot);
                break;
            }
        }
        if (posted > 0) {
            window.posted(posted);
        }
    }

    /** One receive slot: posted, holding a message, or lent downstream as a {@link SlotBuffer}. */
    private final class ReceiveSlot implements Operations.Pending {
        final int index;
        final SlotBuffer view;
        final ReceiveWorkRequest request;
        /** Runs {@link #returned()} on the event loop, without allocating per release. */
        final Runnable returned = this::onReturned;
        private final Runnable returnedOnLoop = this::returned;
        int length;
        int invalidatedStag;

        ReceiveSlot(int index) {
            this.index = index;
            this.view = new SlotBuffer(receiveArena.buffer().alloc(),
                    receiveArena.buffer().nioBuffer(index * slotSize, slotSize), returned);
            this.request = ReceiveWorkRequest.of(RECEIVE_TAG | index, new ScatterGatherEntry(receiveArena,
                    (long) index * slotSize, slotSize));
        }

        ByteBuf view() {
            return view.reuse(MessageHeader.LENGTH, length);
        }

        private void onReturned() {
            if (loop.inEventLoop()) {
                returned();
            } else {
                loop.execute(returnedOnLoop);
            }
        }

        private void returned() {
            freeReceives.add(this);
            if (ended == null) {
                postReceives();
                maybeUpdateCredits();
            }
        }

        @Override
        public void complete(WorkCompletion c) {
            if (c.status() != WorkCompletionStatus.SUCCESS) {
                freeReceives.add(this);
                return;
            }
            if (c.opcode() == WorkCompletionOpcode.RECEIVE_IMMEDIATE) {
                onImmediate(this, c.immediateData());
                return;
            }
            length = (int) c.byteLength();
            invalidatedStag = c.invalidated() ? c.invalidatedStag() : 0;
            onMessage(this);
        }

        @Override
        public void fail(Throwable cause) {
            freeReceives.add(this);
        }
    }

    /** A receive completed (its work request id carries {@link #RECEIVE_TAG}). */
    void receiveCompleted(WorkCompletion c) {
        receiveSlots[(int) (c.wrId() & ~RECEIVE_TAG)].complete(c);
    }

    private void onMessage(ReceiveSlot slot) {
        ByteBuf memory = receiveArena.buffer();
        int offset = slot.index * slotSize;
        MessageType type;
        try {
            type = MessageHeader.validate(memory, offset, slot.length);
        } catch (RuntimeException e) {
            freeReceives.add(slot);
            end(e);
            qp.close();
            return;
        }
        window.grant(MessageHeader.credits(memory, offset));
        window.received(type, type == MessageType.BATCH ? MessageHeader.correlationId(memory, offset) : 1);
        int correlationId = MessageHeader.correlationId(memory, offset);
        if (slot.invalidatedStag != 0) {
            // RFC 8797 §4.1: the peer's Send with Invalidate released a region this side lent.
            released(slot.invalidatedStag);
        }
        switch (type) {
            case CREDIT -> freeReceives.add(slot);
            case READ_DONE -> {
                freeReceives.add(slot);
                if (slot.invalidatedStag != correlationId) {
                    released(correlationId);
                }
            }
            case LARGE -> {
                MessageType inner = MessageHeader.innerType(memory, offset);
                LargeMessageDescriptor d;
                try {
                    d = LargeMessageDescriptor.read(memory, offset + MessageHeader.LENGTH, maxMessageSize);
                } catch (RuntimeException e) {
                    freeReceives.add(slot);
                    end(e);
                    qp.close();
                    return;
                }
                freeReceives.add(slot);
                LargeArrival arrival = null;
                if (inner == MessageType.DATA) {
                    arrival = new LargeArrival();
                    heldData.add(arrival); // its place in the stream, kept while it is read
                }
                readLarge(inner, correlationId, d, arrival);
            }
            case DATA, REQUEST, RESPONSE, ERROR -> deliver(type, correlationId, slot.view());
            case BATCH -> deliverBatch(slot, correlationId);
            default -> {
                freeReceives.add(slot);
                end(new IllegalStateException("an unexpected " + type + " message arrived"));
                qp.close();
                return;
            }
        }
        postReceives();
        pumpSends();
    }

    /**
     * Hands on each message of a BATCH as a slice of the slot's view: the slot goes back once every one of them
     * is released (they share the view's reference count).
     */
    private void deliverBatch(ReceiveSlot slot, int count) {
        ByteBuf memory = receiveArena.buffer();
        int base = slot.index * slotSize;
        ByteBuf view = slot.view();
        if (count > 1) {
            view.retain(count - 1);
        }
        int at = MessageHeader.LENGTH;
        for (int i = 0; i < count; i++) {
            int n = MessageBatch.messageLength(memory, base + at);
            ByteBuf message = view.slice(at + MessageBatch.ENTRY_HEADER, n);
            at += MessageBatch.entryLength(n);
            // The first message handed on frees the buffer for the credit count (docs/protocol.md, BATCH): the
            // demand that took it paid for the buffer, as for a single message; the rest ride along in it.
            boolean first = i == 0;
            if (receiver != null && receiverDemand > 0 && heldData.isEmpty()) {
                deliverData(message, first);
            } else {
                heldData.add(first ? message : new BatchPart(message));
            }
        }
    }

    private void drainHeldRequests() {
        while (responder != null && responding < responderConcurrency && !heldRequests.isEmpty()) {
            handleRequest(heldRequests.poll());
        }
    }

    private void handleRequest(HeldRequest request) {
        responding++;
        window.delivered();
        int id = request.correlationId();
        Mono.from(responder.apply(request.message()))
                .subscribe(response -> loop.execute(() -> answer(MessageType.RESPONSE, id, response)),
                        error -> loop.execute(() -> answer(MessageType.ERROR, id, io.netty.buffer.Unpooled.copiedBuffer(
                                String.valueOf(error.getMessage()), StandardCharsets.UTF_8))));
    }

    private void answer(MessageType type, int id, ByteBuf payload) {
        if (ended != null) {
            payload.release();
            return;
        }
        if (payload.readableBytes() > maxMessageSize) {
            payload.release();
            type = MessageType.ERROR;
            payload = io.netty.buffer.Unpooled.copiedBuffer("the response exceeds the largest message of "
                    + maxMessageSize + " octets (maxMessageSize)", StandardCharsets.UTF_8);
        }
        // One more request may come in now.
        responding--;
        window.demand(1);
        drainHeldRequests();
        postReceives();
        enqueue(message(type, id, payload, NOTHING));
    }

    /** The bound on queued Writes, Reads and requests per session (MessagingOptions.maxQueuedOperations). */
    int maxQueuedOperations() {
        return maxQueuedOperations;
    }

    void recorder(RdmaMetricsRecorder recorder) {
        this.recorder = recorder;
    }

    /** Credits, receive buffers and read queues now. Any thread (a racy snapshot). */
    SessionStatistics statistics(QueuePair qp) {
        return new SessionStatistics(window.available(), window.peerCredits(), window.postedBuffers(),
                messagesBuffered(), qp.readsOutstanding(), qp.ord(), qp.inboundReadsQueued(), qp.ird(), qp.counters());
    }

    /** Messages received and not yet taken. Any thread (a racy snapshot). */
    int messagesBuffered() {
        return heldData.size() + heldRequests.size();
    }

    /** The state, for diagnostics. Any thread (a racy snapshot). */
    @Override
    public String toString() {
        return "Messenger{" + window + ", outbound " + outbound.size() + (outbound.isEmpty() ? "" : " (next "
                + outbound.peek().type + ")") + ", free sends " + freeSends.size() + ", free receives "
                + freeReceives.size() + ", held data " + heldData.size() + ", held requests " + heldRequests.size()
                + ", requests " + requests.size() + ", receiver demand " + receiverDemand + "}";
    }

    /** The session ended: every waiter fails with {@code cause}; queued messages are released. */
    void end(Throwable cause) {
        if (ended != null) {
            return;
        }
        ended = cause;
        for (Outgoing o : outbound) {
            if (o.payload != null) {
                o.payload.release();
            }
        }
        outbound.clear();
        for (SendSubscriber s : new java.util.ArrayList<>(senders)) {
            s.fail(cause);
        }
        senders.clear();
        requests.forEach((id, pending) -> {
            recorder.operation(RdmaMetricsRecorder.Operation.REQUEST, 0, System.nanoTime() - pending.sent, false);
            pending.sink.error(cause);
        });
        requests.clear();
        for (Object held : heldData) {
            if (held instanceof LargeArrival large) {
                if (large.message != null) {
                    large.message.release();
                }
            } else if (held instanceof BatchPart part) {
                part.message().release();
            } else {
                ((ByteBuf) held).release();
            }
        }
        heldData.clear();
        heldRequests.forEach(r -> r.message().release());
        heldRequests.clear();
        lent.forEach((stag, l) -> l.close());
        lent.clear();
        pendingLarge.clear(); // the peer's regions, not read: nothing of this side's to release
        if (receiver != null) {
            receiver.error(cause);
            receiver = null;
        }
        heldImmediates.clear();
        if (immediateReceiver != null) {
            immediateReceiver.error(cause);
            immediateReceiver = null;
        }
        for (ImmediateWrite w : new java.util.ArrayList<>(immediateWrites)) {
            w.fail(cause);
        }
    }
}
