package io.softrdma.reactive.internal;

import io.softrdma.reactive.spi.SessionProtocol;
import io.softrdma.reactive.spi.PendingOperation;
import io.netty.buffer.ByteBuf;
import io.netty.util.collection.IntObjectHashMap;
import io.softrdma.reactive.internal.protocol.CreditWindow;
import io.softrdma.reactive.internal.protocol.LargeMessageDescriptor;
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
import java.util.function.IntConsumer;

/**
 * Large messages (docs/protocol.md): a message larger than the negotiated inline threshold is not cut into Sends.
 * The sender registers it (no copy for a direct buffer) and announces it with LARGE — an advertisement, RFC 5040
 * §2.3 — and the receiver RDMA-Reads it into memory it allocates, then says READ_DONE, which releases the sender's
 * region; with both ends' RFC 8797 R flag, the READ_DONE is a Send with Invalidate of the lent STag (RFC 8797 §4.1).
 *
 * <p>Both directions live here: the regions this side lends ({@link #lend}, {@link #released}) and the Reads of
 * the peer's ({@link #fetch}), at most their share of the send queue at once; the rest wait in order.
 *
 * <p>Thread safety: the event loop only.
 */
final class LargeMessages {
    private final MessagingEngine engine;
    private final ProtectionDomain pd;
    private final QueuePair qp;
    private final SessionProtocol.Context context;
    private final CreditWindow window;
    /** RDMA Reads of LARGE messages posted at most (their share of the send queue); the rest wait here. */
    private final int readLimit;
    private int reads;
    private final ArrayDeque<PendingFetch> pending = new ArrayDeque<>();
    /** Regions lent to the peer with LARGE, by STag, until its READ_DONE (or Send with Invalidate). */
    private final IntObjectHashMap<Lent> lent = new IntObjectHashMap<>();
    private boolean remoteInvalidation;
    /** STags of the peer's regions read and not yet released, oldest first; the next READ_DONE carries them. */
    private int[] releases = new int[16];
    private int releasesHead;
    private int releasesSize;
    /** Whether a READ_DONE is queued (or about to be) that will carry {@link #releases}. */
    private boolean releaseQueued;
    private final Runnable queueRelease = this::queueRelease;

    LargeMessages(MessagingEngine engine, ProtectionDomain pd, QueuePair qp, SessionProtocol.Context context,
            CreditWindow window, int readLimit) {
        this.engine = engine;
        this.pd = pd;
        this.qp = qp;
        this.context = context;
        this.window = window;
        this.readLimit = readLimit;
    }

    /** RFC 8797 §4.1: whether READ_DONE may go as a Send with Invalidate (both ends set R). */
    void negotiated(boolean remoteInvalidation) {
        this.remoteInvalidation = remoteInvalidation;
    }

    // ---- lending (the sender's side) ----

    /** A message's memory registered for the peer to RDMA-Read. */
    static final class Lent {
        final MemoryRegion region;
        final ByteBuf memory;
        final IntConsumer onReleased;

        Lent(MemoryRegion region, ByteBuf memory, IntConsumer onReleased) {
            this.region = region;
            this.memory = memory;
            this.onReleased = onReleased;
        }

        LargeMessageDescriptor descriptor() {
            return new LargeMessageDescriptor(region.stag(), region.baseTaggedOffset() + memory.readerIndex(),
                    memory.readableBytes());
        }

        void close() {
            region.invalidate();
            region.close();
            memory.release();
        }
    }

    /**
     * The LARGE announcement of {@code message}: registered (a direct buffer as it is; a heap buffer after one copy
     * into direct memory) for the peer to RDMA-Read. {@code onReleased} runs when the peer says it has read it.
     */
    Outgoing lend(Transmitter transmitter, MessageType innerType, int correlationId, ByteBuf message,
            IntConsumer onReleased) {
        ByteBuf direct = message;
        if (!message.isDirect()) {
            direct = message.alloc().directBuffer(message.readableBytes());
            direct.writeBytes(message, message.readerIndex(), message.readableBytes());
            message.release();
        }
        MemoryRegion region;
        try {
            // The message is the library's until the peer has read it: nothing writes it meanwhile, so its Read
            // Responses go from it without a copy, CRC or not.
            region = pd.registerUnchanging(direct);
        } catch (RuntimeException e) {
            direct.release();
            throw e;
        }
        Outgoing o = transmitter.outgoing(MessageType.LARGE, innerType == MessageType.DATA ? 0 : correlationId, null,
                Outgoing.NOTHING);
        o.innerType = innerType;
        o.region = new Lent(region, direct, onReleased);
        return o;
    }

    /** The announcement of {@code l} is on its way: it is the peer's to read until released. */
    void lent(Lent l) {
        lent.put(l.region.stag(), l);
    }

    /** The peer has read a region this side lent: it goes, and whoever waited for the send hears. */
    void released(int stag) {
        Lent l = lent.remove(stag);
        if (l != null) {
            window.releaseReceived();
            l.close();
            l.onReleased.accept(l.memory.readableBytes());
        }
    }

    // ---- fetching (the receiver's side) ----

    /** Where a fetched message goes: its place in the receive stream, or a request or response to hand on. */
    interface Arrival {
        void arrived(ByteBuf message);
    }

    private record PendingFetch(LargeMessageDescriptor descriptor, Arrival arrival) {
    }

    /** RDMA-Reads the region {@code d} announces (at most {@code readLimit} at a time) and hands the message on. */
    void fetch(LargeMessageDescriptor d, Arrival arrival) {
        if (reads >= readLimit) {
            pending.add(new PendingFetch(d, arrival));
            return;
        }
        reads++;
        MemoryRegion sink = pd.allocate((int) d.length(), Access.of(Access.LOCAL_WRITE));
        PendingOperation read = new PendingOperation() {
            @Override
            public void complete(WorkCompletion c) {
                reads--;
                if (c.status() != WorkCompletionStatus.SUCCESS) {
                    sink.close();
                    return; // the session ends with the queue pair's close cause
                }
                PendingFetch next = pending.poll();
                if (next != null) {
                    fetch(next.descriptor(), next.arrival());
                }
                ByteBuf message = sink.buffer().retainedSlice(0, (int) d.length());
                sink.close();
                release(d.stag());
                if (engine.ended()) {
                    message.release();
                } else {
                    arrival.arrived(message);
                }
                engine.postReceives();
                engine.transmitter().pump();
            }

            @Override
            public void fail(Throwable cause) {
                reads--;
                sink.close();
            }
        };
        long wrId = context.register(read);
        try {
            qp.postSend(SendWorkRequest.read(wrId, ScatterGatherEntry.of(sink), d.toRemoteMemory()));
        } catch (RuntimeException e) {
            context.unregister(wrId);
            reads--;
            sink.close();
            engine.end(e);
        }
    }

    /**
     * Queues the release of the peer's region {@code stag}, read: one READ_DONE carries every release due when it
     * goes (docs/protocol.md, "Large messages"). A READ_DONE is a control message and needs a credit; with one per
     * region, a reader of many large messages whose peer grants only its reserve (the peer has no demand of its
     * own) would return one release per credit round trip.
     */
    private void release(int stag) {
        if (releasesSize == releases.length) {
            int[] grown = new int[releases.length * 2];
            for (int i = 0; i < releasesSize; i++) {
                grown[i] = releases[(releasesHead + i) % releases.length];
            }
            releases = grown;
            releasesHead = 0;
        }
        releases[(releasesHead + releasesSize++) % releases.length] = stag;
        if (!releaseQueued) {
            // Queued in a task of its own, after the completions being handled now: the Reads they finished all
            // go in the one READ_DONE.
            releaseQueued = true;
            engine.loop().execute(queueRelease);
        }
    }

    private void queueRelease() {
        if (!engine.ended()) {
            engine.transmitter().enqueue(engine.transmitter().outgoing(MessageType.READ_DONE, 0, null,
                    Outgoing.NOTHING));
        }
    }

    /**
     * Writes the releases due into the READ_DONE being sent: the first STag becomes its correlation id
     * ({@code o.correlationId}, and with both R flags its remote invalidation, RFC 8797 §4.1), the further ones its
     * payload at {@code index}, up to {@code maxPayload} octets. Returns the payload's length. Releases that do not
     * fit go in another READ_DONE, queued behind this one.
     */
    int writeReleases(ByteBuf memory, int index, int maxPayload, Outgoing o) {
        int first = nextRelease();
        o.correlationId = first;
        o.invalidateStag = remoteInvalidation ? first : 0;
        int at = index;
        int end = index + maxPayload - maxPayload % Integer.BYTES;
        while (releasesSize > 0 && at < end) {
            memory.setInt(at, nextRelease());
            at += Integer.BYTES;
        }
        releaseQueued = releasesSize > 0;
        if (releaseQueued) {
            engine.transmitter().queue(engine.transmitter().outgoing(MessageType.READ_DONE, 0, null,
                    Outgoing.NOTHING));
        }
        return at - index;
    }

    private int nextRelease() {
        int stag = releases[releasesHead];
        releasesHead = (releasesHead + 1) % releases.length;
        releasesSize--;
        return stag;
    }

    /** The session ended: lent regions go; announced regions not yet read are the peer's, nothing to release. */
    void end() {
        lent.forEach((stag, l) -> l.close());
        lent.clear();
        pending.clear();
        releasesSize = 0;
    }
}
