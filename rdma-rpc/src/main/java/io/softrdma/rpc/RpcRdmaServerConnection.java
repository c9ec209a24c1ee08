package io.softrdma.rpc;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.channel.EventLoop;
import io.softrdma.cm.RdmaConnection;
import io.softrdma.cm.RpcRdmaParameters;
import io.softrdma.reactive.spi.PendingOperation;
import io.softrdma.reactive.spi.ReceiveSlots;
import io.softrdma.reactive.spi.SessionProtocol;
import io.softrdma.verbs.Access;
import io.softrdma.verbs.MemoryRegion;
import io.softrdma.verbs.ProtectionDomain;
import io.softrdma.verbs.QueuePair;
import io.softrdma.verbs.ScatterGatherEntry;
import io.softrdma.verbs.SendWorkRequest;
import io.softrdma.verbs.WorkCompletion;
import io.softrdma.verbs.WorkCompletionStatus;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.LongFunction;
import reactor.core.Disposable;
import reactor.core.publisher.Mono;
import reactor.util.Logger;
import reactor.util.Loggers;

/**
 * The responder end of one RPC-over-RDMA connection ({@link RpcRdmaServer}), as the session protocol's engine of its
 * {@code RdmaSession} (RFC 5040 §1's ULP). Per call: the transport header is checked (ERR_VERS for another version,
 * ERR_CHUNK for what it cannot process), Read chunks are RDMA-Read and put back at their XDR positions, the handler
 * runs, a bulk result goes into the first Write chunk, the reply goes inline or into the Reply chunk, and the Send
 * carries the grant and, when allowed, invalidates the call's STag.
 *
 * <p>Calls land in the session's receive-slot arena ({@link ReceiveSlots}); Reads, Writes and Sends are posted with
 * work request ids from the session ({@link SessionProtocol.Context#register}), which owns the queue pair, its
 * completion queue, the protection domain and the lifecycle: {@link #end} is where a connection ends.
 *
 * <p>Note: event loop only.
 *
 * <p>Why this class is long: it is the responder's side of RFC 8166 by svcrdma's rules — credits, Read chunks pulled
 * back into place, bulk into Write chunks, the Reply chunk, RDMA_ERROR, Send with Invalidate — and a call's state
 * spans all of them.
 */
final class RpcRdmaServerConnection implements SessionProtocol.Engine, ReceiveSlots.Owner {
    private static final Logger logger = Loggers.getLogger(RpcRdmaServerConnection.class);
    /** RDMA Reads and Writes one call may need; more is answered with ERR_CHUNK, which bounds the send queue. */
    static final int MAX_SEGMENTS_PER_CALL = 8;
    /** A reply's RDMA Writes: the Send after them (RFC 5040 §5.5, in order) says when their source may go. */
    private static final PendingOperation WRITTEN = new PendingOperation() {
        @Override
        public void complete(WorkCompletion c) {
        }

        @Override
        public void fail(Throwable cause) {
        }
    };

    private final SessionProtocol.Context context;
    private final ProtectionDomain pd;
    private final QueuePair qp;
    private final EventLoop loop;
    private final RpcHandler handler;
    private final int maxRequests;
    private final MemoryRegion sendArena;
    private final int sendSlotSize;
    private final SendSlot[] sendSlots;
    private final SendSlot[] freeSendSlots;
    private int freeSendSlotCount;
    private final ReceiveSlots receives;
    /** Replies waiting for a send slot (all are in use only when replies outpace TCP). */
    private final ArrayDeque<PendingReply> waitingForSlot = new ArrayDeque<>();

    private record PendingReply(ByteBuf message, int invalidateStag, List<MemoryRegion> sources,
            List<PlannedWrite> writes) {
    }

    /** One RDMA Write of a reply into a segment of the requester's chunk (RFC 8166 §3.5.4, §3.5.5). */
    private record PlannedWrite(int handle, long offset, MemoryRegion source, int at, int length) {
    }

    /** Calls whose handler has not answered yet: a connection that ends cancels them and releases their arguments. */
    private final Set<Call> inHandler = new HashSet<>();
    /** Calls whose Read chunks are being RDMA-Read: a connection that ends releases what they hold. */
    private final Set<Call> reading = new HashSet<>();
    private int callsInProgress;
    private RdmaConnection rdma;
    private RpcRdmaParameters parameters;
    private boolean ended;

    /**
     * Registers the send arena and the receive slots and posts a receive per credit granted: the requester may send
     * as soon as the stream is in RDMA mode (RFC 8166 §3.3.1, RFC 5040 §5.3). On the event loop, before the MPA
     * startup.
     *
     * <p>Send queue: per call at most {@link #MAX_SEGMENTS_PER_CALL} Reads while it is read, and per send slot that
     * many Writes and its Send (a reply's Writes are posted only once it has a slot); the protocol's queue pair
     * shape ({@link RpcRdmaServer}) makes room for all of them, and the session's table of work request ids with it.
     */
    RpcRdmaServerConnection(SessionProtocol.Context context, int sendSize, int receiveSize, int maxRequests,
            RpcHandler handler) {
        this.context = context;
        this.pd = context.protectionDomain();
        this.qp = context.queuePair();
        this.loop = context.eventLoop();
        this.handler = handler;
        this.maxRequests = maxRequests;
        this.sendSlotSize = sendSize;
        this.sendArena = pd.allocate(Math.multiplyExact(maxRequests, sendSize), Access.of(Access.LOCAL_WRITE));
        this.sendSlots = new SendSlot[maxRequests];
        this.freeSendSlots = new SendSlot[maxRequests];
        for (int i = 0; i < maxRequests; i++) {
            sendSlots[i] = new SendSlot(i);
        }
        for (int i = 0; i < maxRequests; i++) {
            freeSendSlots[freeSendSlotCount++] = sendSlots[maxRequests - 1 - i];
        }
        this.receives = new ReceiveSlots(pd, qp, loop, maxRequests, receiveSize);
        receives.owner(this);
        receives.post(maxRequests);
    }

    /** The send queue depth a connection of {@code maxRequests} credits needs: see the constructor. */
    static int sendQueueDepth(int maxRequests) {
        return Math.min(maxRequests * (2 * MAX_SEGMENTS_PER_CALL + 1), 1 << 16);
    }

    // ---- the session protocol's engine ----

    /** RFC 8797 §4.2: the inline thresholds each way, and whether a reply may invalidate (§4.1). */
    @Override
    public void established(RdmaConnection connection) {
        rdma = connection;
        parameters = connection.rpcRdma();
    }

    @Override
    public void receiveCompleted(WorkCompletion completion) {
        receives.completed(completion);
    }

    @Override
    public void received(ReceiveSlots.Slot slot, WorkCompletion completion) {
        if (ended) {
            slot.free();
            return;
        }
        try {
            received(slot);
        } catch (RuntimeException e) {
            // A Send that breaks the protocol, or a failure handling one: the connection cannot go on.
            logger.debug("{}: {}", rdma, e.toString());
            end(e);
            qp.close();
        }
    }

    /** Nothing is lent out as a view: each slot is freed once its call is copied out. */
    @Override
    public void returned() {
    }

    // ---- a call ----

    /** A call's Send landed in {@code slot}: checked and copied out, then the slot is posted again. */
    private void received(ReceiveSlots.Slot slot) {
        int length = slot.length();
        ByteBuf message = receives.memory().slice(slot.offset(), length);
        RpcRdmaHeader header;
        ByteBuf inline;
        try {
            if (length < RpcRdmaHeader.FIXED_LENGTH) {
                throw new RpcRdmaProtocolException("a Send of " + length + " octets holds no RPC-over-RDMA header"
                        + " (RFC 8166 §4.2)");
            }
            // Every Send received gets exactly one reply, which ends it.
            if (++callsInProgress > maxRequests) {
                throw new RpcRdmaProtocolException("the requester has more than the " + maxRequests + " calls"
                        + " granted outstanding (RFC 8166 §3.3.1)");
            }
            int xid = message.getInt(0);
            int version = message.getInt(4);
            if (version != RpcRdmaHeader.VERSION_1) {
                // RFC 8166 §4.5: the versions this side speaks; Linux echoes the call's version, and so do we.
                sendHeader(RpcRdmaHeader.error(xid, version, maxRequests, RpcRdmaError.versions(1, 1)));
                return;
            }
            try {
                header = RpcRdmaHeader.decode(message);
            } catch (RpcRdmaProtocolException e) {
                // RFC 8166 §4.5: a header this side cannot process is answered with ERR_CHUNK.
                logger.debug("{}: ERR_CHUNK for XID 0x{}: {}", rdma, Integer.toHexString(xid), e.getMessage());
                sendHeader(RpcRdmaHeader.error(xid, version, maxRequests, RpcRdmaError.chunk()));
                return;
            }
            inline = PooledByteBufAllocator.DEFAULT.buffer(message.readableBytes());
            inline.writeBytes(message);
        } finally {
            slot.free(); // everything needed is copied out
            if (!ended) {
                receives.post(receives.free());
            }
        }
        Call call = new Call(header, inline);
        if (!readListWithinBounds(header, inline.readableBytes())) {
            call.fail(RpcRdmaError.chunk()); // more than this server takes as one call
            return;
        }
        if (segments(header) > MAX_SEGMENTS_PER_CALL || !header.readList().isEmpty()
                && header.procedure() == RpcRdmaProcedure.RDMA_NOMSG && !positionZeroOnly(header)) {
            call.fail(RpcRdmaError.chunk());
            return;
        }
        if (header.procedure() == RpcRdmaProcedure.RDMA_NOMSG && header.readList().isEmpty()) {
            call.fail(RpcRdmaError.chunk()); // RFC 8166 §3.5.3: a call with no message needs a position-zero chunk
            return;
        }
        call.readChunks();
    }

    private static int segments(RpcRdmaHeader h) {
        int n = h.readList().size();
        for (WriteChunk c : h.writeList()) {
            n += c.segments().size();
        }
        return n + (h.replyChunk() == null ? 0 : h.replyChunk().segments().size());
    }

    /**
     * Whether the Read list asks this side to fetch at most {@link RpcRdmaServer#MAX_CALL_SIZE} octets, in
     * segments of positive length at XDR-aligned positions: the memory for them is allocated before any Read.
     */
    private static boolean readListWithinBounds(RpcRdmaHeader h, int inline) {
        long total = inline;
        for (ReadSegment r : h.readList()) {
            long n = r.segment().unsignedLength();
            if (n == 0 || r.position() < 0 || (r.position() & 3) != 0) {
                return false;
            }
            total += n;
        }
        return total <= RpcRdmaServer.MAX_CALL_SIZE;
    }

    private static boolean positionZeroOnly(RpcRdmaHeader h) {
        for (ReadSegment r : h.readList()) {
            if (r.position() != 0) {
                return false;
            }
        }
        return true;
    }

    /** One call from its Send to its reply. */
    private final class Call implements PendingOperation {
        final RpcRdmaHeader header;
        ByteBuf inline;
        ByteBuf message;
        int readsPending;
        final List<MemoryRegion> sinks = new ArrayList<>();
        final AtomicBoolean argumentsReleased = new AtomicBoolean();
        volatile Disposable subscription;

        Call(RpcRdmaHeader header, ByteBuf inline) {
            this.header = header;
            this.inline = inline;
        }

        /** RDMA-Reads every Read segment, then reassembles the call (RFC 8166 §3.5.1, §3.5.3). */
        void readChunks() {
            List<ReadSegment> list = header.readList();
            if (list.isEmpty()) {
                message = inline;
                inline = null;
                dispatchCall();
                return;
            }
            readsPending = list.size();
            reading.add(this);
            for (ReadSegment r : list) {
                RdmaSegment s = r.segment();
                MemoryRegion sink = pd.allocate(s.length(), Access.of(Access.LOCAL_WRITE));
                sinks.add(sink);
                long id = context.register(this);
                try {
                    qp.postSend(SendWorkRequest.read(id, ScatterGatherEntry.of(sink), s.handle(), s.offset()));
                } catch (RuntimeException e) {
                    context.unregister(id);
                    throw e;
                }
            }
        }

        /** One of the call's RDMA Reads has placed its Read Response (RFC 5040 §5.5 rule 19). */
        @Override
        public void complete(WorkCompletion c) {
            // A failed Read ends the session, whose end() releases what the call holds.
            if (!ended && c.status() == WorkCompletionStatus.SUCCESS && --readsPending == 0) {
                assemble();
            }
        }

        /** The session ended before the Read completed: end() released the call. */
        @Override
        public void fail(Throwable cause) {
        }

        private void assemble() {
            reading.remove(this);
            List<ReadSegment> list = new ArrayList<>(header.readList());
            // Segments of one chunk share a position and follow each other; chunks go in position order.
            List<Integer> order = new ArrayList<>();
            for (int i = 0; i < list.size(); i++) {
                order.add(i);
            }
            order.sort(Comparator.comparingInt(i -> list.get(i).position()));
            ByteBuf out = PooledByteBufAllocator.DEFAULT.buffer();
            int consumed = 0;
            for (int k = 0; k < order.size(); k++) {
                int i = order.get(k);
                int position = list.get(i).position();
                int upTo = Math.min(Math.max(position, consumed), inline.readableBytes());
                out.writeBytes(inline, inline.readerIndex() + consumed, upTo - consumed);
                consumed = upTo;
                ByteBuf data = sinks.get(i).buffer();
                out.writeBytes(data, 0, data.capacity());
                boolean chunkEnds = k + 1 == order.size() || list.get(order.get(k + 1)).position() != position;
                if (chunkEnds && position != 0) {
                    out.writeZero(Xdr.pad(out.writerIndex())); // RFC 8166 §3.4.4: a chunk's XDR padding is not sent
                }
            }
            if (header.procedure() == RpcRdmaProcedure.RDMA_MSG) {
                out.writeBytes(inline, inline.readerIndex() + consumed, inline.readableBytes() - consumed);
            } // RDMA_NOMSG: the whole call is in the position-zero chunk; octets after the header are not part of it
            inline.release();
            inline = null;
            closeSinks();
            message = out;
            dispatchCall();
        }

        private void closeSinks() {
            for (MemoryRegion r : sinks) {
                r.close();
            }
            sinks.clear();
        }

        private void dispatchCall() {
            RpcCallHeader call;
            try {
                call = RpcCallHeader.decode(message);
                if (call.xid() != header.xid()) {
                    throw new RpcRdmaProtocolException("the RPC call's XID differs from its transport header's");
                }
            } catch (RpcRdmaProtocolException e) {
                release();
                fail(RpcRdmaError.chunk());
                return;
            }
            if (call.rpcVersion() != RpcCallHeader.RPC_VERSION) {
                release();
                sendReply(RpcReplyHeader.rpcMismatch(call.xid()), null, null);
                return;
            }
            Mono<RpcResult> result;
            try {
                result = handler.handle(call, message);
            } catch (RuntimeException e) {
                result = Mono.error(e);
            }
            inHandler.add(this);
            subscription = result.switchIfEmpty(Mono.error(() -> new IllegalStateException("the handler returned"
                    + " no result"))).subscribe(r -> onLoop(() -> {
                        inHandler.remove(this);
                        releaseArguments();
                        try {
                            // An error status carries no results; a bulk item only goes with SUCCESS.
                            boolean ok = r.status() == RpcReplyHeader.AcceptStat.SUCCESS;
                            sendReply(r.header(call.xid()), ok ? r.results() : null, ok ? r.bulk() : null);
                        } finally {
                            r.release();
                        }
                    }, () -> {
                        releaseArguments();
                        r.release();
                    }), e -> onLoop(() -> {
                        inHandler.remove(this);
                        logger.debug("{}: handler failed for {}: {}", rdma, call, e.toString());
                        releaseArguments();
                        sendReply(RpcReplyHeader.accepted(call.xid(), RpcReplyHeader.AcceptStat.SYSTEM_ERR), null,
                                null);
                    }, this::releaseArguments));
        }

        /** The arguments, released once: by the answer, or by the connection's end, whichever comes first. */
        void releaseArguments() {
            if (argumentsReleased.compareAndSet(false, true)) {
                ByteBuf m = message;
                message = null;
                if (m != null) {
                    m.release();
                }
            }
        }

        void cancelHandler() {
            Disposable d = subscription;
            if (d != null) {
                d.dispose();
            }
            releaseArguments();
        }

        /** Runs {@code task} on the event loop, or {@code orElse} if it has shut down (the server was disposed). */
        private void onLoop(Runnable task, Runnable orElse) {
            if (loop.isShuttingDown()) {
                orElse.run(); // a task queued now might never run
                return;
            }
            try {
                loop.execute(task);
            } catch (RejectedExecutionException gone) {
                orElse.run();
            }
        }

        private void release() {
            releaseArguments();
        }

        /**
         * Sends the reply: a bulk item into the first Write chunk (or inline), the rest inline or, when too large,
         * into the Reply chunk (RFC 8166 §3.5.4, §3.5.5); ERR_CHUNK when neither fits.
         */
        void sendReply(RpcReplyHeader rpc, ByteBuf results, ByteBuf bulk) {
            if (ended) {
                return;
            }
            int xid = header.xid();
            List<WriteChunk> echo = new ArrayList<>();
            List<PlannedWrite> writes = new ArrayList<>();
            List<MemoryRegion> sources = new ArrayList<>();
            ByteBuf body = PooledByteBufAllocator.DEFAULT.buffer();
            try {
                rpc.encode(body);
                if (results != null) {
                    body.writeBytes(results, results.readerIndex(), results.readableBytes());
                }
                for (int i = 0; i < header.writeList().size(); i++) {
                    WriteChunk chunk = header.writeList().get(i);
                    if (i == 0 && bulk != null) {
                        List<RdmaSegment> written = placeInto(chunk, bulk, writes, sources);
                        if (written == null) {
                            fail(RpcRdmaError.chunk()); // the caller's chunk is too small for the result
                            return;
                        }
                        echo.add(new WriteChunk(written));
                        bulk = null;
                    } else {
                        echo.add(zeroLength(chunk));
                    }
                }
                if (bulk != null) {
                    body.writeBytes(bulk, bulk.readerIndex(), bulk.readableBytes());
                    body.writeZero(Xdr.pad(bulk.readableBytes()));
                }
                RpcRdmaHeader inline = RpcRdmaHeader.message(xid, maxRequests, List.of(), echo, null);
                int threshold = Math.min(sendSlotSize, parameters.sendInlineThreshold());
                RpcRdmaHeader transport;
                ByteBuf sendBody;
                if (inline.encodedLength() + body.readableBytes() <= threshold) {
                    transport = inline;
                    sendBody = body;
                } else if (header.replyChunk() != null) {
                    List<RdmaSegment> written = placeInto(header.replyChunk(), body, writes, sources);
                    if (written == null) {
                        fail(RpcRdmaError.chunk());
                        return;
                    }
                    transport = RpcRdmaHeader.noMessage(xid, maxRequests, List.of(), echo,
                            new WriteChunk(written));
                    sendBody = null;
                } else {
                    fail(RpcRdmaError.chunk()); // too large to Send, and no Reply chunk to write it into
                    return;
                }
                ByteBuf send = PooledByteBufAllocator.DEFAULT.buffer(transport.encodedLength()
                        + (sendBody == null ? 0 : sendBody.readableBytes()));
                transport.encode(send);
                if (sendBody != null) {
                    send.writeBytes(sendBody);
                }
                send(send, invalidation(), sources, writes);
                sources = null; // the reply's send slot closes them once the Send (after the Writes) completes
            } finally {
                body.release();
                closeAll(sources);
            }
        }

        /** The STag a Send with Invalidate may name: both ends set R and all the call's chunks share one handle. */
        private int invalidation() {
            if (!parameters.remoteInvalidation()) {
                return 0;
            }
            int handle = 0;
            for (ReadSegment r : header.readList()) {
                handle = same(handle, r.segment().handle());
            }
            for (WriteChunk c : header.writeList()) {
                for (RdmaSegment s : c.segments()) {
                    handle = same(handle, s.handle());
                }
            }
            if (header.replyChunk() != null) {
                for (RdmaSegment s : header.replyChunk().segments()) {
                    handle = same(handle, s.handle());
                }
            }
            return handle == -1 ? 0 : handle;
        }

        private static int same(int seen, int handle) {
            return seen == 0 ? handle : seen == handle ? seen : -1;
        }

        /**
         * RDMA-Writes {@code data} into {@code chunk}'s segments in order; returns the segments with the octets
         * written, or null if the chunk is too small.
         */
        private List<RdmaSegment> placeInto(WriteChunk chunk, ByteBuf data, List<PlannedWrite> writes,
                List<MemoryRegion> sources) {
            if (chunk.length() < data.readableBytes()) {
                return null;
            }
            ByteBuf copy = PooledByteBufAllocator.DEFAULT.directBuffer(data.readableBytes());
            copy.writeBytes(data, data.readerIndex(), data.readableBytes());
            MemoryRegion region = pd.register(copy, Set.of());
            copy.release();
            sources.add(region);
            List<RdmaSegment> written = new ArrayList<>();
            int at = 0;
            int left = data.readableBytes();
            for (RdmaSegment s : chunk.segments()) {
                int n = (int) Math.min(left, s.unsignedLength());
                if (n > 0) {
                    writes.add(new PlannedWrite(s.handle(), s.offset(), region, at, n));
                }
                written.add(new RdmaSegment(s.handle(), n, s.offset()));
                at += n;
                left -= n;
            }
            return written;
        }

        private WriteChunk zeroLength(WriteChunk chunk) {
            List<RdmaSegment> none = new ArrayList<>();
            for (RdmaSegment s : chunk.segments()) {
                none.add(new RdmaSegment(s.handle(), 0, s.offset()));
            }
            return new WriteChunk(none);
        }

        void fail(RpcRdmaError error) {
            release();
            if (inline != null) {
                inline.release();
                inline = null;
            }
            closeSinks();
            sendHeader(RpcRdmaHeader.error(header.xid(), header.version(), maxRequests, error));
        }
    }

    /** Sends a transport header alone (RDMA_ERROR). */
    private void sendHeader(RpcRdmaHeader header) {
        ByteBuf send = PooledByteBufAllocator.DEFAULT.buffer(header.encodedLength());
        header.encode(send);
        send(send, 0, null, List.of());
    }

    private static void closeAll(List<MemoryRegion> regions) {
        if (regions != null) {
            for (MemoryRegion r : regions) {
                r.close();
            }
        }
    }

    /** A send slot of the arena, and the regions its reply's RDMA Writes read from until its Send completes. */
    private final class SendSlot implements PendingOperation {
        final int index;
        List<MemoryRegion> sources;

        SendSlot(int index) {
            this.index = index;
        }

        /** The reply went out, and the Writes before it (in order): their sources go, the slot takes the next. */
        @Override
        public void complete(WorkCompletion c) {
            closeAll(sources);
            sources = null;
            freeSendSlots[freeSendSlotCount++] = this;
            PendingReply next = waitingForSlot.poll();
            if (next != null) {
                send(next.message(), next.invalidateStag(), next.sources(), next.writes());
            }
        }

        /** The session ended first: end() closed the sources. */
        @Override
        public void fail(Throwable cause) {
        }
    }

    /**
     * Sends a reply {@code message} (released here) from a send slot, invalidating {@code stag} if not 0;
     * {@code sources} (the reply's RDMA Writes' memory) are closed once the Send completes.
     */
    private void send(ByteBuf message, int invalidateStag, List<MemoryRegion> sources, List<PlannedWrite> writes) {
        if (ended) {
            message.release();
            closeAll(sources);
            return;
        }
        if (freeSendSlotCount == 0) {
            waitingForSlot.add(new PendingReply(message, invalidateStag, sources, writes));
            return;
        }
        SendSlot slot = freeSendSlots[--freeSendSlotCount];
        slot.sources = sources;
        int offset = slot.index * sendSlotSize;
        int length = message.readableBytes();
        try {
            sendArena.buffer().setBytes(offset, message, message.readerIndex(), length);
        } finally {
            message.release();
        }
        if (callsInProgress > 0) {
            callsInProgress--;
        }
        try {
            // The reply's RDMA Writes go first (RFC 5040 §5.5: placed before the Send that follows them is).
            for (PlannedWrite w : writes) {
                post(WRITTEN, id -> SendWorkRequest.write(id, w.handle(), w.offset(),
                        new ScatterGatherEntry(w.source(), w.at(), w.length())));
            }
            post(slot, id -> {
                SendWorkRequest send = SendWorkRequest.send(id, new ScatterGatherEntry(sendArena, offset, length));
                // RFC 8797 §4.1: a Send with Invalidate of the call's one STag when both ends set R.
                return invalidateStag != 0 ? send.withInvalidate(invalidateStag) : send;
            });
        } catch (IllegalStateException closing) {
            // The queue pair is closing: this reply will not go; its slot's sources are closed by end().
            logger.debug("{}: reply not sent: {}", rdma, closing.getMessage());
        }
    }

    /** Posts the work request {@code build} makes with an id from the session, for {@code pending}. */
    private void post(PendingOperation pending, LongFunction<SendWorkRequest> build) {
        long id = context.register(pending);
        try {
            qp.postSend(build.apply(id));
        } catch (RuntimeException e) {
            context.unregister(id);
            throw e;
        }
    }

    /**
     * The session ended, or a call broke the protocol: calls being read release their inline part (their read
     * buffers go with the session's protection domain), handlers still running are cancelled and their arguments
     * released, replies waiting for a slot are dropped, and the memory of replies' Writes is closed. Once.
     */
    @Override
    public void end(Throwable cause) {
        if (ended) {
            return;
        }
        ended = true;
        for (Call c : reading) {
            c.inline.release();
            c.inline = null;
        }
        reading.clear();
        for (Call c : new ArrayList<>(inHandler)) {
            c.cancelHandler();
        }
        inHandler.clear();
        PendingReply r;
        while ((r = waitingForSlot.poll()) != null) {
            r.message().release();
            closeAll(r.sources());
        }
        for (SendSlot slot : sendSlots) {
            closeAll(slot.sources);
            slot.sources = null;
        }
    }

    @Override
    public String toString() {
        return "RpcRdmaServerConnection{" + rdma + ", calls in progress " + callsInProgress + "}";
    }
}
