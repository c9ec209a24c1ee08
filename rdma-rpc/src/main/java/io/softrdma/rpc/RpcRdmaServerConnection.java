package io.softrdma.rpc;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.channel.EventLoop;
import io.netty.util.collection.LongObjectHashMap;
import io.netty.util.internal.logging.InternalLogger;
import io.netty.util.internal.logging.InternalLoggerFactory;
import io.softrdma.cm.ConnectRequest;
import io.softrdma.cm.RdmaConnection;
import io.softrdma.cm.RpcRdmaParameters;
import io.softrdma.cm.RpcRdmaPrivateData;
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
import io.softrdma.verbs.WorkCompletionStatus;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import reactor.core.publisher.Mono;

/**
 * The responder end of one RPC-over-RDMA connection ({@link RpcRdmaServer}). Per call: the transport header is
 * checked (ERR_VERS for another version, ERR_CHUNK for what it cannot process), Read chunks are RDMA-Read and put
 * back at their XDR positions, the handler runs, a bulk result goes into the first Write chunk, the reply goes
 * inline or into the Reply chunk, and the Send carries the grant and, when allowed, invalidates the call's STag.
 *
 * <p>Note: event loop only, but for {@link #close()}.
 */
final class RpcRdmaServerConnection {
    private static final InternalLogger logger = InternalLoggerFactory.getInstance(RpcRdmaServerConnection.class);
    private static final long RECEIVE_TAG = 1L << 62;
    private static final long SEND_TAG = 1L << 61;
    /** RDMA Reads and Writes one call may need; more is answered with ERR_CHUNK, which bounds the send queue. */
    static final int MAX_SEGMENTS_PER_CALL = 8;

    private final RdmaConnection[] rdma = new RdmaConnection[1];
    private final ProtectionDomain pd;
    private final QueuePair qp;
    private final CompletionQueue cq;
    private final RpcHandler handler;
    private final int maxRequests;
    private final MemoryRegion sendArena;
    private final MemoryRegion receiveArena;
    private final int sendSlotSize;
    private final int receiveSlotSize;
    private final int[] freeSendSlots;
    private int freeSendSlotCount;
    /** Replies waiting for a send slot (all are in use only when replies outpace TCP). */
    private final java.util.ArrayDeque<PendingReply> waitingForSlot = new java.util.ArrayDeque<>();
    /** Per send slot: the regions its reply's RDMA Writes read from, closed when the reply Send completes. */
    private final List<List<MemoryRegion>> slotSources = new ArrayList<>();

    private record PendingReply(ByteBuf message, int invalidateStag, List<MemoryRegion> sources,
            List<SendWorkRequest> writes) {
    }
    /** Calls whose handler has not answered yet: a connection that ends cancels them and releases their arguments. */
    private final java.util.Set<Call> inHandler = new java.util.HashSet<>();
    /** RDMA Reads of Read chunks in flight, by work request id. */
    private final LongObjectHashMap<Runnable> reads = new LongObjectHashMap<>();
    private long nextReadId = 1;
    /** Calls whose Read chunks are being RDMA-Read: a connection that ends releases what they hold. */
    private final java.util.Set<Call> reading = new java.util.HashSet<>();
    private int callsInProgress;
    private EventLoop loop;
    private RpcRdmaParameters parameters;
    private boolean ended;
    private volatile Runnable onEnd = () -> { };
    private final java.util.concurrent.CompletableFuture<Void> endedFuture = new java.util.concurrent.CompletableFuture<>();
    private final CompletionQueue.Handler dispatch = this::dispatch;

    private RpcRdmaServerConnection(ProtectionDomain pd, QueuePair qp, CompletionQueue cq, MemoryRegion sendArena,
            MemoryRegion receiveArena, int sendSlotSize, int receiveSlotSize, int maxRequests, RpcHandler handler) {
        this.pd = pd;
        this.qp = qp;
        this.cq = cq;
        this.sendArena = sendArena;
        this.receiveArena = receiveArena;
        this.sendSlotSize = sendSlotSize;
        this.receiveSlotSize = receiveSlotSize;
        this.maxRequests = maxRequests;
        this.handler = handler;
        this.freeSendSlots = new int[maxRequests];
        for (int i = 0; i < maxRequests; i++) {
            freeSendSlots[freeSendSlotCount++] = i;
            slotSources.add(null);
        }
    }

    /** Accepts {@code request} with a fresh queue pair whose receives are posted; null if that failed. */
    static RpcRdmaServerConnection accept(RdmaDevice device, ConnectRequest request, RpcRdmaPrivateData local,
            int maxRequests, RpcHandler handler, java.util.function.Consumer<RpcRdmaServerConnection> onEnd) {
        ProtectionDomain pd = device.allocateProtectionDomain();
        try {
            // Per call at most MAX_SEGMENTS_PER_CALL Reads while it is read, and per send slot that many Writes and
            // its Send: a reply's Writes are posted only once it has a slot.
            int depth = maxRequests * (2 * MAX_SEGMENTS_PER_CALL + 1);
            CompletionQueue cq = device.createCompletionQueue(depth + maxRequests);
            QueuePair qp = pd.createQueuePair(QueuePairConfig.of(cq).withSendQueueDepth(Math.min(depth, 1 << 16))
                    .withReceiveQueueDepth(maxRequests).withReadDepths(16, 1));
            MemoryRegion sendArena = pd.allocate(maxRequests * local.sendSize(), Access.of(Access.LOCAL_WRITE));
            MemoryRegion receiveArena = pd.allocate(maxRequests * local.receiveSize(), Access.of(Access.LOCAL_WRITE));
            RpcRdmaServerConnection c = new RpcRdmaServerConnection(pd, qp, cq, sendArena, receiveArena,
                    local.sendSize(), local.receiveSize(), maxRequests, handler);
            c.onEnd = () -> onEnd.accept(c);
            for (int i = 0; i < maxRequests; i++) {
                c.postReceive(i);
            }
            // RFC 8797: the block first, as Linux's client reads it at offset 0 (after MPA's IRD/ORD block).
            request.accept(qp, local.encode()).whenComplete((connection, failure) -> {
                if (failure != null) {
                    pd.close();
                    c.onEnd.run();
                    c.endedFuture.complete(null);
                    return;
                }
                c.start(connection);
            });
            return c;
        } catch (RuntimeException e) {
            logger.debug("could not accept {}: {}", request.remoteAddress(), e.toString());
            pd.close();
            request.reject(new byte[0]);
            return null;
        }
    }

    private void start(RdmaConnection connection) {
        rdma[0] = connection;
        loop = connection.channel().eventLoop();
        parameters = connection.rpcRdma();
        cq.setListener(q -> loop.execute(this::drainCompletions));
        qp.closeFuture().whenComplete((v, t) -> loop.execute(this::end));
        loop.execute(() -> {
            cq.requestNotification(false);
            drainCompletions();
        });
    }

    void close() {
        qp.close();
    }

    /** Completes once the connection has ended and released what it held. */
    java.util.concurrent.CompletableFuture<Void> ended() {
        return endedFuture;
    }

    private void postReceive(int index) {
        try {
            qp.postReceive(ReceiveWorkRequest.of(RECEIVE_TAG | index, new ScatterGatherEntry(receiveArena,
                    (long) index * receiveSlotSize, receiveSlotSize)));
        } catch (IllegalStateException closing) {
            // the queue pair is closing: no more calls will arrive, and this one still gets handled
        }
    }

    private void drainCompletions() {
        cq.drainAndRearm(dispatch);
    }

    private void dispatch(WorkCompletion c) {
        if (ended) {
            return;
        }
        try {
            long id = c.wrId();
            if ((id & RECEIVE_TAG) != 0) {
                if (c.status() == WorkCompletionStatus.SUCCESS) {
                    received((int) (id & ~RECEIVE_TAG), (int) c.byteLength());
                }
            } else if ((id & SEND_TAG) != 0) {
                int slot = (int) (id & ~SEND_TAG);
                closeAll(slotSources.set(slot, null)); // the Writes before this Send have gone out (in order)
                freeSendSlots[freeSendSlotCount++] = slot;
                PendingReply next = waitingForSlot.poll();
                if (next != null) {
                    send(next.message(), next.invalidateStag(), next.sources(), next.writes());
                }
            } else {
                Runnable done = reads.remove(id);
                if (done != null && c.status() == WorkCompletionStatus.SUCCESS) {
                    done.run();
                }
            }
        } catch (RuntimeException e) {
            logger.debug("{}: {}", rdma[0], e.toString());
            close();
        }
    }

    // ---- a call ----

    private void received(int index, int length) {
        ByteBuf message = receiveArena.buffer().slice(index * receiveSlotSize, length);
        if (length < RpcRdmaHeader.FIXED_LENGTH) {
            throw new RpcRdmaProtocolException("a Send of " + length + " octets holds no RPC-over-RDMA header");
        }
        // Every Send received gets exactly one reply, which ends it.
        if (++callsInProgress > maxRequests) {
            throw new RpcRdmaProtocolException("the requester has more than the " + maxRequests + " calls granted"
                    + " outstanding (RFC 8166 §3.3.1)");
        }
        int xid = message.getInt(0);
        int version = message.getInt(4);
        RpcRdmaHeader header;
        ByteBuf inline;
        try {
            if (version != RpcRdmaHeader.VERSION_1) {
                // RFC 8166 §4.5: the versions this side speaks; Linux echoes the call's version, and so do we.
                sendHeader(RpcRdmaHeader.error(xid, version, maxRequests, RpcRdmaError.versions(1, 1)));
                return;
            }
            try {
                header = RpcRdmaHeader.decode(message);
            } catch (RpcRdmaProtocolException e) {
                logger.debug("{}: ERR_CHUNK for XID 0x{}: {}", rdma[0], Integer.toHexString(xid), e.getMessage());
                sendHeader(RpcRdmaHeader.error(xid, version, maxRequests, RpcRdmaError.chunk()));
                return;
            }
            inline = PooledByteBufAllocator.DEFAULT.buffer(message.readableBytes());
            inline.writeBytes(message);
        } finally {
            postReceive(index); // everything needed is copied out
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
    private final class Call {
        final RpcRdmaHeader header;
        ByteBuf inline;
        ByteBuf message;
        int readsPending;
        final List<MemoryRegion> sinks = new ArrayList<>();
        final java.util.concurrent.atomic.AtomicBoolean argumentsReleased = new java.util.concurrent.atomic.AtomicBoolean();
        volatile reactor.core.Disposable subscription;

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
                long id = nextReadId++;
                reads.put(id, () -> {
                    if (--readsPending == 0) {
                        assemble();
                    }
                });
                qp.postSend(SendWorkRequest.read(id, ScatterGatherEntry.of(sink), s.handle(), s.offset()));
            }
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
                        logger.debug("{}: handler failed for {}: {}", rdma[0], call, e.toString());
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
            reactor.core.Disposable d = subscription;
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
            } catch (java.util.concurrent.RejectedExecutionException gone) {
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
            List<SendWorkRequest> writes = new ArrayList<>();
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
        private List<RdmaSegment> placeInto(WriteChunk chunk, ByteBuf data, List<SendWorkRequest> writes,
                List<MemoryRegion> sources) {
            if (chunk.length() < data.readableBytes()) {
                return null;
            }
            ByteBuf copy = PooledByteBufAllocator.DEFAULT.directBuffer(data.readableBytes());
            copy.writeBytes(data, data.readerIndex(), data.readableBytes());
            MemoryRegion region = pd.register(copy, java.util.Set.of());
            copy.release();
            sources.add(region);
            List<RdmaSegment> written = new ArrayList<>();
            int at = 0;
            int left = data.readableBytes();
            for (RdmaSegment s : chunk.segments()) {
                int n = (int) Math.min(left, s.unsignedLength());
                if (n > 0) {
                    writes.add(SendWorkRequest.write(nextReadId++, s.handle(), s.offset(),
                            new ScatterGatherEntry(region, at, n)).unsignaled());
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

    /**
     * Sends a reply {@code message} (released here) from a send slot, invalidating {@code stag} if not 0;
     * {@code sources} (the reply's RDMA Writes' memory) are closed once the Send completes.
     */
    private void send(ByteBuf message, int invalidateStag, List<MemoryRegion> sources,
            List<SendWorkRequest> writes) {
        if (ended) {
            message.release();
            closeAll(sources);
            return;
        }
        if (freeSendSlotCount == 0) {
            waitingForSlot.add(new PendingReply(message, invalidateStag, sources, writes));
            return;
        }
        int slot = freeSendSlots[--freeSendSlotCount];
        slotSources.set(slot, sources);
        int offset = slot * sendSlotSize;
        int length = message.readableBytes();
        try {
            sendArena.buffer().setBytes(offset, message, message.readerIndex(), length);
        } finally {
            message.release();
        }
        if (callsInProgress > 0) {
            callsInProgress--;
        }
        SendWorkRequest send = SendWorkRequest.send(SEND_TAG | slot, new ScatterGatherEntry(sendArena, offset,
                length));
        try {
            // The reply's RDMA Writes go first (RFC 5040 §5.5: placed before the Send that follows them is).
            for (SendWorkRequest w : writes) {
                qp.postSend(w);
            }
            qp.postSend(invalidateStag != 0 ? send.withInvalidate(invalidateStag) : send);
        } catch (IllegalStateException closing) {
            // The queue pair is closing: this reply will not go; its slot's sources are closed by end().
            logger.debug("{}: reply not sent: {}", rdma[0], closing.getMessage());
        }
    }

    private void end() {
        if (ended) {
            return;
        }
        ended = true;
        reads.clear();
        for (Call c : reading) {
            c.inline.release(); // its sinks go with the protection domain
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
        for (int i = 0; i < slotSources.size(); i++) {
            closeAll(slotSources.set(i, null));
        }
        pd.close();
        onEnd.run();
        endedFuture.complete(null);
    }
}
