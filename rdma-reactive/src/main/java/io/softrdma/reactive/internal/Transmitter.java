package io.softrdma.reactive.internal;

import io.softrdma.reactive.spi.SessionProtocol;
import io.softrdma.reactive.spi.PendingOperation;
import io.netty.buffer.ByteBuf;
import io.softrdma.reactive.internal.protocol.CreditWindow;
import io.softrdma.reactive.internal.protocol.LargeMessageDescriptor;
import io.softrdma.reactive.internal.protocol.MessageBatch;
import io.softrdma.reactive.internal.protocol.MessageHeader;
import io.softrdma.reactive.internal.protocol.MessageType;
import io.softrdma.verbs.Access;
import io.softrdma.verbs.MemoryRegion;
import io.softrdma.verbs.ProtectionDomain;
import io.softrdma.verbs.QueuePair;
import io.softrdma.verbs.ScatterGatherEntry;
import io.softrdma.verbs.SendWorkRequest;
import io.softrdma.verbs.WorkCompletion;
import io.softrdma.verbs.WorkCompletionStatus;
import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.List;
import java.util.function.IntConsumer;

/**
 * The sending half of messaging (docs/protocol.md): messages queue here, in order, until the peer's credit
 * ({@link CreditWindow}) and a send slot allow; then each is copied once into its registered send slot behind a
 * {@link MessageHeader} that carries this side's grant, and posted as an RDMA Send (RFC 5040 §5.3). DATA messages
 * queued right behind each other go as one BATCH Send; a LARGE announcement carries a {@link LargeMessageDescriptor};
 * a Write with Immediate Data (RFC 7306) takes its turn here because its Immediate Data spends a credit; a standalone
 * CREDIT goes only when the window says the peer would otherwise stall.
 *
 * <p>Send slots are registered in chunks of {@link #CHUNK} as Sends in flight need them, up to the session's share
 * of the send queue: an idle session holds one chunk (32 KiB at the default 4 KiB inline size), not half its send
 * queue of slots (256 KiB). They stay registered until the session ends.
 *
 * <p>Thread safety: the event loop only.
 */
final class Transmitter {
    private final MessagingEngine engine;
    private final QueuePair qp;
    private final SessionProtocol.Context context;
    private final CreditWindow window;
    /** Send slots registered at a time: one chunk at the start, another whenever all are in flight. */
    static final int CHUNK = 8;

    private final ProtectionDomain pd;
    private final int slotSize;
    /** The most send slots: the session's share of the send queue. */
    private final int maxSlots;
    private int slots;
    private final ArrayDeque<SendSlot> freeSends = new ArrayDeque<>();
    private final ArrayDeque<Outgoing> outbound = new ArrayDeque<>();
    /** Outgoing records already sent, for the next messages, up to the send window. */
    private final ArrayDeque<Outgoing> spare = new ArrayDeque<>();
    private final int maxSpare;
    /** The largest message payload one Send carries: the negotiated send inline threshold less the header. */
    private int sendLimit;

    Transmitter(MessagingEngine engine, ProtectionDomain pd, QueuePair qp, SessionProtocol.Context context, CreditWindow window,
            int slots, int slotSize, int maxSpare) {
        this.engine = engine;
        this.qp = qp;
        this.context = context;
        this.window = window;
        this.slotSize = slotSize;
        this.maxSpare = maxSpare;
        this.pd = pd;
        this.maxSlots = slots;
        this.sendLimit = slotSize - MessageHeader.LENGTH;
        grow();
    }

    /** Octets of send slots registered now. Racy off the event loop. */
    long registeredBytes() {
        return (long) slots * slotSize;
    }

    /** A free send slot exists, or another chunk of them could be registered (and was). */
    private boolean sendSlotFree() {
        return !freeSends.isEmpty() || grow();
    }

    /** Registers up to {@link #CHUNK} more send slots; false if the session has all it may have. */
    private boolean grow() {
        int n = Math.min(CHUNK, maxSlots - slots);
        if (n <= 0) {
            return false;
        }
        MemoryRegion chunk = pd.allocate(Math.multiplyExact(n, slotSize), Access.of(Access.LOCAL_WRITE));
        for (int i = 0; i < n; i++) {
            freeSends.add(new SendSlot(chunk, i * slotSize));
        }
        slots += n;
        return true;
    }

    /** RFC 8797: the peer's receive inline threshold caps what one Send may carry. */
    void negotiated(int sendInlineThreshold) {
        sendLimit = Math.min(slotSize, sendInlineThreshold) - MessageHeader.LENGTH;
    }

    /** Whether a payload of {@code octets} fits one Send; larger ones go as LARGE. */
    boolean fitsInline(int octets) {
        return octets <= sendLimit;
    }

    /** A queue record for a message, recycled if one is spare. */
    Outgoing outgoing(MessageType type, int correlationId, ByteBuf payload, IntConsumer onSent) {
        Outgoing o = spare.poll();
        if (o == null) {
            o = new Outgoing();
        }
        o.type = type;
        o.correlationId = correlationId;
        o.payload = payload;
        o.onSent = onSent;
        return o;
    }

    private void recycle(Outgoing o) {
        o.clear();
        if (spare.size() < maxSpare) {
            spare.add(o);
        }
    }

    /** Queues {@code o} behind everything queued before it, and sends what credit allows. */
    void enqueue(Outgoing o) {
        outbound.add(o);
        pump();
    }

    /** Queues {@code o} behind everything queued before it; the running or next {@link #pump()} sends it. */
    void queue(Outgoing o) {
        outbound.add(o);
    }

    /** Sends queued messages while there is credit and a send slot, then a standalone credit update if needed. */
    void pump() {
        // Credit first: a chunk of send slots is registered only for a Send that can go.
        while (!outbound.isEmpty() && window.canAcquire(outbound.peek().type) && sendSlotFree()
                && window.tryAcquire(outbound.peek().type)) {
            Outgoing o = outbound.poll();
            SendSlot slot = freeSends.poll();
            if (o.immediateWrite != null) {
                postImmediateWrite(o, slot);
                continue;
            }
            int offset = slot.offset;
            ByteBuf memory = slot.region.buffer();
            int length = MessageHeader.LENGTH;
            if (o.type == MessageType.LARGE) {
                MessageHeader.writeLarge(memory, offset, o.innerType, window.takeGrant(), o.correlationId);
                o.region.descriptor().write(memory, offset + length);
                length += LargeMessageDescriptor.LENGTH;
                engine.large().lent(o.region);
                window.expectRelease();
            } else if (o.type == MessageType.READ_DONE) {
                length += engine.large().writeReleases(memory, offset + length, sendLimit, o);
                MessageHeader.write(memory, offset, o.type, 0, window.takeGrant(), o.correlationId);
            } else {
                MessageHeader.write(memory, offset, o.type, 0, window.takeGrant(), o.correlationId);
            }
            slot.add(o.onSent, o.payload == null ? 0 : o.payload.readableBytes());
            if (o.batchable() && batches(o, outbound.peek())) {
                length = packBatch(o, slot, memory, offset);
            } else if (o.payload != null) {
                int n = o.payload.readableBytes();
                memory.setBytes(offset + MessageHeader.LENGTH, o.payload, o.payload.readerIndex(), n);
                length += n;
                o.payload.release();
            }
            long wrId = context.register(slot);
            try {
                SendWorkRequest wr = SendWorkRequest.send(wrId, slot.sgl(length));
                qp.postSend(o.invalidateStag != 0 ? wr.withInvalidate(o.invalidateStag) : wr);
            } catch (RuntimeException e) {
                context.unregister(wrId);
                slot.fail(e);
                engine.end(e);
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
        ImmediateData.ImmediateWrite w = o.immediateWrite;
        recycle(o);
        int length = w.memory.readableBytes();
        slot.add(w, length);
        long wrId = context.register(slot);
        try {
            qp.postSend(SendWorkRequest.writeWithImmediate(wrId, w.remote.stag(), w.remote.taggedOffset(), w.data,
                    new ScatterGatherEntry(w.region, w.memory.readerIndex(), length)));
        } catch (RuntimeException e) {
            context.unregister(wrId);
            slot.fail(e);
            w.fail(e);
            engine.end(e);
        }
    }

    /** Whether {@code first} and {@code next}, both queued, fit one Send as a BATCH. */
    private boolean batches(Outgoing first, Outgoing next) {
        return next != null && next.batchable() && MessageBatch.entryLength(first.payload.readableBytes())
                + MessageBatch.entryLength(next.payload.readableBytes()) <= sendLimit;
    }

    /**
     * Packs {@code first} and the DATA messages queued right behind it, as many as fit the send inline threshold,
     * into one BATCH (docs/protocol.md): the header, already written with {@code first}'s grant, becomes a BATCH
     * header with the count. Returns the Send's length.
     */
    private int packBatch(Outgoing first, SendSlot slot, ByteBuf memory, int offset) {
        int end = offset + MessageHeader.LENGTH + sendLimit;
        int at = MessageBatch.writeEntry(memory, offset + MessageHeader.LENGTH, first.payload);
        first.payload.release();
        int count = 1;
        Outgoing next;
        while ((next = outbound.peek()) != null && next.batchable()
                && at + MessageBatch.entryLength(next.payload.readableBytes()) <= end) {
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
    void maybeUpdateCredits() {
        boolean other = !outbound.isEmpty() && window.canAcquire(outbound.peek().type) && sendSlotFree();
        if (!engine.ended() && window.standaloneUpdateNeeded(other) && sendSlotFree()) {
            outbound.addFirst(outgoing(MessageType.CREDIT, 0, null, Outgoing.NOTHING));
            pump();
        }
    }

    /** Releases every queued message (the session ended); their waiters hear from their own owners. */
    void end() {
        for (Outgoing o : outbound) {
            if (o.payload != null) {
                o.payload.release();
            }
            if (o.region != null) {
                o.region.close(); // a LARGE announcement never sent: its registered memory goes too
            }
        }
        outbound.clear();
    }

    @Override
    public String toString() {
        return "outbound " + outbound.size() + (outbound.isEmpty() ? "" : " (next " + outbound.peek().type + ")")
                + ", free sends " + freeSends.size() + " of " + slots + " registered (at most " + maxSlots + ")";
    }

    /** One send slot; free again once its Send completed (RFC 5040 §5.5 rule 14). */
    private final class SendSlot implements PendingOperation {
        /** The chunk the slot is in, and where. */
        final MemoryRegion region;
        final int offset;
        /** Whom to tell when the Send is complete, and of how many octets: one for each message it carries. */
        private IntConsumer[] onSent = new IntConsumer[4];
        private int[] octets = new int[4];
        private int messages;

        /**
         * The scatter-gather list of the slot's last Send, and its length: request/response traffic sends the same
         * length again and again, and an immutable list can serve every Send of that length (the slot is posted
         * again only once its last Send completed).
         */
        private List<ScatterGatherEntry> sgl;
        private int sglLength = -1;

        SendSlot(MemoryRegion region, int offset) {
            this.region = region;
            this.offset = offset;
        }

        /** The list of the slot's first {@code length} octets: the last one if its length was the same. */
        List<ScatterGatherEntry> sgl(int length) {
            if (length != sglLength) {
                // List.of(one entry), not the varargs factory: no array.
                sgl = List.of(new ScatterGatherEntry(region, offset, length));
                sglLength = length;
            }
            return sgl;
        }

        void add(IntConsumer c, int length) {
            if (messages == onSent.length) {
                onSent = Arrays.copyOf(onSent, messages * 2);
                octets = Arrays.copyOf(octets, messages * 2);
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
                Arrays.fill(onSent, 0, n, null);
                return; // the session ends with the queue pair's close cause
            }
            for (int i = 0; i < n; i++) {
                IntConsumer sent = onSent[i];
                onSent[i] = null;
                sent.accept(octets[i]);
            }
            pump();
        }

        @Override
        public void fail(Throwable cause) {
            Arrays.fill(onSent, 0, messages, null);
            messages = 0;
            freeSends.add(this);
        }
    }
}
