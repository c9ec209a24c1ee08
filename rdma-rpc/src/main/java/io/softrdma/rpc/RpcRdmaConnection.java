package io.softrdma.rpc;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.channel.EventLoop;
import io.netty.util.collection.IntObjectHashMap;
import io.netty.util.internal.logging.InternalLogger;
import io.netty.util.internal.logging.InternalLoggerFactory;
import io.softrdma.ConnectionClosedException;
import io.softrdma.cm.ConnectionManager;
import io.softrdma.cm.RdmaConnection;
import io.softrdma.cm.RpcRdmaParameters;
import io.softrdma.cm.RpcRdmaPrivateData;
import io.softrdma.mpa.MpaSettings;
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
import java.net.SocketAddress;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadLocalRandom;
import reactor.core.Disposable;
import reactor.core.publisher.Mono;
import reactor.core.publisher.MonoSink;

/**
 * One RPC-over-RDMA version 1 connection of a requester (RFC 8166): calls go as RDMA Sends with a transport header,
 * replies come back the same way, matched by XID.
 *
 * <ul>
 *   <li><b>Credits</b> (RFC 8166 §3.3, {@link RpcRdmaCredits}): every call asks for as many as this side has
 *       receive buffers; every reply's grant replaces the last; never more calls outstanding than granted (one
 *       until the first reply; a grant of 0 counts as 1, one above the receive buffers is clamped). Calls beyond
 *       the grant wait here, in order.</li>
 *   <li><b>Inline thresholds</b> from the RFC 8797 exchange ({@link #parameters()}): a call that fits the send
 *       threshold goes inline ({@code RDMA_MSG}); a larger one is registered for the responder to RDMA-Read, as a
 *       position-zero Read chunk with {@code RDMA_NOMSG} (a Long Call, RFC 8166 §3.5.3).</li>
 *   <li><b>Result sink</b>: a call may give a direct buffer for the procedure's bulk result (NFS READ data). It is
 *       registered for that call only, as a Write chunk of one segment (RFC 8166 §3.5.4); the responder
 *       RDMA-Writes into it and echoes the octets written.</li>
 *   <li><b>Invalidation</b>: a call's STags live until its reply. If the reply is a Send with Invalidate (this side
 *       advertised R, RFC 8797 §4.1), the named STag is already invalid, and it must be this call's; the rest are
 *       invalidated locally.</li>
 *   <li><b>Errors</b>: {@code RDMA_ERROR} becomes an {@link RpcRdmaErrorException} (ERR_VERS with its range,
 *       ERR_CHUNK), a reply other than SUCCESS an {@link RpcAcceptedException}, {@link RpcProgramMismatchException}
 *       or {@link RpcDeniedException}. A malformed reply ends the connection with an
 *       {@link RpcRdmaProtocolException}; every outstanding call then fails with the cause.</li>
 * </ul>
 *
 * <p>Thread safety: any thread may call; the state lives on the connection's event loop.
 */
public final class RpcRdmaConnection implements Disposable {
    private static final InternalLogger logger = InternalLoggerFactory.getInstance(RpcRdmaConnection.class);
    private static final long RECEIVE_TAG = 1L << 62;

    private final RdmaConnection rdma;
    private final ProtectionDomain pd;
    private final QueuePair qp;
    private final CompletionQueue cq;
    private final EventLoop loop;
    private final RpcRdmaParameters parameters;
    private final RpcRdmaCredits credits;
    private final RpcAuth credential;
    private final MemoryRegion sendArena;
    private final MemoryRegion receiveArena;
    private final int sendSlotSize;
    private final int receiveSlotSize;
    private final int[] freeSendSlots;
    private int freeSendSlotCount;
    private final ArrayDeque<PendingCall> waiting = new ArrayDeque<>();
    private final IntObjectHashMap<PendingCall> outstanding = new IntObjectHashMap<>();
    private final CompletableFuture<Void> ended = new CompletableFuture<>();
    private final Mono<Void> onDispose;
    private int nextXid = ThreadLocalRandom.current().nextInt();
    private Throwable endCause;
    private volatile long remoteInvalidations;
    private volatile long localInvalidations;
    private volatile long unmatchedReplies;
    private final CompletionQueue.Handler dispatch = this::dispatch;

    private RpcRdmaConnection(RdmaConnection rdma, ProtectionDomain pd, CompletionQueue cq, MemoryRegion sendArena,
            MemoryRegion receiveArena, int sendSlotSize, int receiveSlotSize, int maxCredits, RpcAuth credential) {
        this.rdma = rdma;
        this.pd = pd;
        this.qp = rdma.queuePair();
        this.cq = cq;
        this.loop = rdma.channel().eventLoop();
        this.parameters = rdma.rpcRdma();
        this.credits = new RpcRdmaCredits(maxCredits);
        this.credential = credential;
        this.sendArena = sendArena;
        this.receiveArena = receiveArena;
        this.sendSlotSize = sendSlotSize;
        this.receiveSlotSize = receiveSlotSize;
        this.freeSendSlots = new int[maxCredits];
        for (int i = 0; i < maxCredits; i++) {
            freeSendSlots[freeSendSlotCount++] = maxCredits - 1 - i;
        }
        this.onDispose = Mono.fromFuture(ended.copy()).onErrorResume(t -> Mono.empty());
    }

    /** Sets up the queue pair and its buffers, posts the receives, and connects. */
    static CompletableFuture<RpcRdmaConnection> connect(ConnectionManager cm, RdmaDevice device, SocketAddress remote,
            MpaSettings mpa, RpcRdmaPrivateData privateData, int maxCredits, RpcAuth credential,
            Duration connectTimeout) {
        ProtectionDomain pd = device.allocateProtectionDomain();
        CompletableFuture<RpcRdmaConnection> result = new CompletableFuture<>();
        try {
            CompletionQueue cq = device.createCompletionQueue(2 * maxCredits + 1);
            // ORD: this side never reads; IRD: the responder RDMA-Reads Long Calls (Linux svcrdma up to 16 at once).
            QueuePair qp = pd.createQueuePair(QueuePairConfig.of(cq).withSendQueueDepth(maxCredits)
                    .withReceiveQueueDepth(maxCredits).withReadDepths(1, 16));
            int sendSize = privateData.sendSize();
            int receiveSize = privateData.receiveSize();
            MemoryRegion sendArena = pd.allocate(maxCredits * sendSize, Access.of(Access.LOCAL_WRITE));
            MemoryRegion receiveArena = pd.allocate(maxCredits * receiveSize, Access.of(Access.LOCAL_WRITE));
            // RFC 8166 §3.3.2: receives are posted before the connection is, so the first reply has a buffer.
            for (int i = 0; i < maxCredits; i++) {
                qp.postReceive(ReceiveWorkRequest.of(RECEIVE_TAG | i, new ScatterGatherEntry(receiveArena,
                        (long) i * receiveSize, receiveSize)));
            }
            // RFC 8797 §5.2: Linux svcrdma looks for the block at offset 0 of the private data, so nothing goes before.
            cm.connect(remote, qp, privateData.encode(), mpa, connectTimeout).whenComplete((c, failure) -> {
                if (failure != null) {
                    pd.close();
                    result.completeExceptionally(failure);
                    return;
                }
                RpcRdmaConnection connection = new RpcRdmaConnection(c, pd, cq, sendArena, receiveArena, sendSize,
                        receiveSize, maxCredits, credential);
                connection.start();
                if (!result.complete(connection)) {
                    connection.dispose(); // the caller cancelled, or timed out, meanwhile: nobody owns it
                }
            });
        } catch (RuntimeException e) {
            pd.close();
            result.completeExceptionally(e);
        }
        return result;
    }

    private void start() {
        cq.setListener(q -> loop.execute(this::drainCompletions));
        qp.closeFuture().whenComplete((v, t) -> loop.execute(() -> end(t == null
                ? new ConnectionClosedException("the RPC-over-RDMA connection closed") : unwrap(t))));
        loop.execute(() -> {
            cq.requestNotification(false);
            drainCompletions();
        });
    }

    /** What the RFC 8797 exchange settled: the inline thresholds each way and remote invalidation. */
    public RpcRdmaParameters parameters() {
        return parameters;
    }

    /** The responder's last grant as it sent it (RFC 8166 §3.3.1), or -1 before the first reply. */
    public long creditsGranted() {
        return credits.lastGrant();
    }

    /**
     * The calls this side lets be outstanding now: the last grant, taken as 1 if it was 0 and clamped to the
     * receive buffers this side posted ({@code maxCredits}); 1 before the first reply.
     */
    public int creditLimit() {
        return credits.granted();
    }

    /** Replies that came as Send with Invalidate of their call's STag. */
    public long remoteInvalidations() {
        return remoteInvalidations;
    }

    /** Call STags this side invalidated itself after the reply. */
    public long localInvalidations() {
        return localInvalidations;
    }

    /** Replies whose XID matched no outstanding call (dropped, as Linux's client does). */
    public long unmatchedReplies() {
        return unmatchedReplies;
    }

    /** The rdma-core connection below. */
    public RdmaConnection connection() {
        return rdma;
    }

    /**
     * Calls {@code procedure} of {@code program} {@code version} with the XDR-encoded {@code args}, which the call
     * releases. Emits the reply's inline results on SUCCESS.
     */
    public Mono<RpcReply> call(int program, int version, int procedure, ByteBuf args) {
        return call(program, version, procedure, args, null);
    }

    /**
     * As {@link #call(int, int, int, ByteBuf)}, with {@code resultSink} as the call's Write chunk: a direct buffer
     * the caller keeps, of which the writable octets are offered to the responder for the procedure's bulk result.
     * On success its writer index has advanced by the octets written ({@link RpcReply#writeChunkOctets()}).
     */
    public Mono<RpcReply> call(int program, int version, int procedure, ByteBuf args, ByteBuf resultSink) {
        return call(program, version, procedure, args, resultSink, 0);
    }

    /**
     * As {@link #call(int, int, int, ByteBuf, ByteBuf)}, offering a Reply chunk of {@code replyChunkSize} octets
     * (RFC 8166 §3.5.5) when that is more than 0: a reply larger than the receive inline threshold is then
     * RDMA-Written there rather than refused with ERR_CHUNK. The chunk is registered for this call only.
     */
    public Mono<RpcReply> call(int program, int version, int procedure, ByteBuf args, ByteBuf resultSink,
            int replyChunkSize) {
        Objects.requireNonNull(args, "args");
        if (resultSink != null && !resultSink.isDirect()) {
            args.release();
            return Mono.error(new IllegalArgumentException("the result sink must be a direct buffer: the responder"
                    + " RDMA-Writes into registered memory"));
        }
        if (replyChunkSize < 0) {
            args.release();
            return Mono.error(new IllegalArgumentException("replyChunkSize " + replyChunkSize + " must be 0 (none)"
                    + " or more"));
        }
        return Mono.create(sink -> {
            PendingCall p = new PendingCall(program, version, procedure, args, resultSink, sink);
            p.replyChunkSize = replyChunkSize;
            sink.onCancel(() -> p.cancelled = true);
            if (loop.inEventLoop()) {
                submit(p);
            } else {
                loop.execute(() -> submit(p));
            }
        });
    }

    // ---- event loop ----

    private void submit(PendingCall p) {
        if (endCause != null) {
            p.releaseArgs();
            p.fail(endCause);
            return;
        }
        waiting.add(p);
        pump();
    }

    /** Starts waiting calls while there are credits and send slots. */
    private void pump() {
        while (endCause == null && !waiting.isEmpty() && freeSendSlotCount > 0 && credits.tryAcquire()) {
            PendingCall p = waiting.poll();
            if (p.cancelled) {
                credits.released();
                p.releaseArgs();
                continue;
            }
            start(p, freeSendSlots[--freeSendSlotCount]);
        }
    }

    private void start(PendingCall p, int slot) {
        int xid = nextXid++;
        p.xid = xid;
        ByteBuf call = null;
        try {
            List<WriteChunk> writes = List.of();
            if (p.resultSink != null) {
                // Only the writable part is registered: the responder can reach nothing the caller holds already.
                p.sinkRegion = pd.register(p.resultSink.slice(p.resultSink.writerIndex(), p.resultSink.writableBytes()),
                        Access.of(Access.LOCAL_WRITE, Access.REMOTE_WRITE));
                p.sinkChunk = WriteChunk.of(p.sinkRegion.stag(), p.resultSink.writableBytes(),
                        p.sinkRegion.baseTaggedOffset());
                writes = List.of(p.sinkChunk);
            }
            WriteChunk replyChunk = null;
            if (p.replyChunkSize > 0) {
                p.replyBuffer = PooledByteBufAllocator.DEFAULT.directBuffer(p.replyChunkSize, p.replyChunkSize);
                p.replyRegion = pd.register(p.replyBuffer, Access.of(Access.LOCAL_WRITE, Access.REMOTE_WRITE));
                replyChunk = WriteChunk.of(p.replyRegion.stag(), p.replyChunkSize, p.replyRegion.baseTaggedOffset());
            }
            RpcCallHeader header = RpcCallHeader.of(xid, p.program, p.version, p.procedure, credential);
            int callLength = header.encodedLength() + p.args.readableBytes();
            RpcRdmaHeader inline = RpcRdmaHeader.message(xid, credits.requested(), List.of(), writes, replyChunk);
            ByteBuf memory = sendArena.buffer();
            int offset = slot * sendSlotSize;
            int length;
            if (inline.encodedLength() + callLength <= Math.min(sendSlotSize, parameters.sendInlineThreshold())) {
                ByteBuf out = memory.slice(offset, sendSlotSize).clear();
                inline.encode(out);
                header.encode(out);
                out.writeBytes(p.args, p.args.readerIndex(), p.args.readableBytes());
                length = out.writerIndex();
            } else {
                // A Long Call (RFC 8166 §3.5.3): the whole RPC call in a position-zero Read chunk, RDMA_NOMSG.
                call = PooledByteBufAllocator.DEFAULT.directBuffer(callLength, callLength);
                header.encode(call);
                call.writeBytes(p.args, p.args.readerIndex(), p.args.readableBytes());
                p.callRegion = pd.register(call, Access.of(Access.REMOTE_READ));
                RdmaSegment segment = new RdmaSegment(p.callRegion.stag(), callLength,
                        p.callRegion.baseTaggedOffset());
                RpcRdmaHeader noMessage = RpcRdmaHeader.noMessage(xid, credits.requested(),
                        List.of(new ReadSegment(0, segment)), writes, replyChunk);
                ByteBuf out = memory.slice(offset, sendSlotSize).clear();
                noMessage.encode(out);
                length = out.writerIndex();
            }
            p.releaseArgs();
            outstanding.put(xid, p);
            p.slot = slot;
            qp.postSend(SendWorkRequest.send(slot, new ScatterGatherEntry(sendArena, offset, length)));
        } catch (RuntimeException e) {
            outstanding.remove(xid);
            freeSendSlots[freeSendSlotCount++] = slot;
            credits.released();
            p.releaseArgs();
            p.closeRegions();
            p.fail(e);
        } finally {
            if (call != null) {
                call.release(); // the region holds its own reference until the call ends
            }
        }
    }

    private void drainCompletions() {
        cq.drainAndRearm(dispatch);
    }

    private void dispatch(WorkCompletion c) {
        try {
            if ((c.wrId() & RECEIVE_TAG) != 0) {
                received(c);
            } else {
                freeSendSlots[freeSendSlotCount++] = (int) c.wrId();
                pump();
            }
        } catch (RuntimeException e) {
            // A malformed reply, or a failure handling one: the connection cannot be trusted to continue.
            logger.debug("{}: {}", rdma, e.toString());
            end(e);
            qp.close();
        }
    }

    private void received(WorkCompletion c) {
        int index = (int) (c.wrId() & ~RECEIVE_TAG);
        if (c.status() != WorkCompletionStatus.SUCCESS) {
            return; // flushed: the connection is ending, and end() says why
        }
        ByteBuf message = receiveArena.buffer().slice(index * receiveSlotSize, (int) c.byteLength());
        RpcRdmaHeader header;
        PendingCall p;
        try {
            header = RpcRdmaHeader.decode(message);
            p = outstanding.remove(header.xid());
            if (p == null) {
                unmatchedReplies++;
                if (c.invalidated()) {
                    throw new RpcRdmaProtocolException(String.format("a Send with Invalidate of STag 0x%08x for XID"
                            + " 0x%08x, which matches no call (RFC 8797 §4.1)", c.invalidatedStag(), header.xid()));
                }
                logger.debug("{}: dropped a reply to unknown XID 0x{}", rdma, Integer.toHexString(header.xid()));
                return;
            }
            // RFC 8166 §3.3.1: every reply carries the responder's grant, which replaces the last.
            credits.replied(Integer.toUnsignedLong(header.credits()));
            boolean remote = c.invalidated();
            try {
                if (remote && !p.owns(c.invalidatedStag())) {
                    // RFC 8797 §4.1: it may name only an STag of this XID's call.
                    throw new RpcRdmaProtocolException(String.format("the reply to XID 0x%08x invalidated STag"
                            + " 0x%08x, which is not one of its call's (RFC 8797 §4.1)", header.xid(),
                            c.invalidatedStag()));
                }
                completeCall(p, header, message, remote);
            } catch (RuntimeException e) {
                p.closeRegions();
                p.fail(e);
                throw e;
            }
        } finally {
            if (endCause == null) {
                try {
                    qp.postReceive(ReceiveWorkRequest.of(c.wrId(), new ScatterGatherEntry(receiveArena,
                            (long) index * receiveSlotSize, receiveSlotSize)));
                } catch (IllegalStateException closing) {
                    // the queue pair is closing; end() follows with its cause
                }
            }
            pump();
        }
    }

    private void completeCall(PendingCall p, RpcRdmaHeader header, ByteBuf message, boolean remote) {
        if (remote) {
            remoteInvalidations++;
        } else if (p.hadRegions()) {
            localInvalidations++;
        }
        p.closeRegions();
        if (header.version() != RpcRdmaHeader.VERSION_1 && header.procedure() != RpcRdmaProcedure.RDMA_ERROR) {
            throw new RpcRdmaProtocolException("a reply of RPC-over-RDMA version " + header.version());
        }
        switch (header.procedure()) {
            case RDMA_ERROR -> {
                RpcRdmaError e = header.error();
                p.fail(new RpcRdmaErrorException("the responder refused the call with RDMA_ERROR " + e
                        + (e.code() == RpcRdmaError.ERR_VERS ? "; this side speaks version 1" : ""), e));
            }
            case RDMA_MSG, RDMA_NOMSG -> {
                if (header.procedure() == RpcRdmaProcedure.RDMA_NOMSG) {
                    // RFC 8166 §3.5.5: the reply is in the Reply chunk this call offered; the echo says how long.
                    if (p.replyBuffer == null || header.replyChunk() == null) {
                        throw new RpcRdmaProtocolException("an RDMA_NOMSG reply to XID 0x"
                                + Integer.toHexString(p.xid) + (p.replyBuffer == null ? ", which offered no Reply chunk"
                                : " without its Reply chunk") + " (RFC 8166 §3.5.5)");
                    }
                    long length = header.replyChunk().length();
                    if (length > p.replyBuffer.capacity()) {
                        throw new RpcRdmaProtocolException("the responder says it wrote " + length + " octets into a"
                                + " Reply chunk of " + p.replyBuffer.capacity());
                    }
                    message = p.replyBuffer.slice(0, (int) length);
                }
                RpcReplyHeader reply = RpcReplyHeader.decode(message);
                RpcException error = reply.toException(p.program, p.version, p.procedure);
                if (error != null) {
                    p.fail(error);
                    return;
                }
                if (reply.xid() != p.xid) {
                    throw new RpcRdmaProtocolException(String.format("the RPC reply's XID 0x%08x differs from its"
                            + " transport header's 0x%08x", reply.xid(), p.xid));
                }
                long written = 0;
                if (p.sinkChunk != null && !header.writeList().isEmpty()) {
                    // RFC 8166 §3.4.6: the echo is the chunk sent, each segment's length what was written.
                    RdmaSegment sent = p.sinkChunk.segments().get(0);
                    List<RdmaSegment> echo = header.writeList().get(0).segments();
                    RdmaSegment got = echo.get(0);
                    written = got.unsignedLength();
                    if (echo.size() != 1 || got.handle() != sent.handle() || got.offset() != sent.offset()
                            || written > sent.unsignedLength()) {
                        throw new RpcRdmaProtocolException("the Write chunk echoed as " + echo + " for " + sent
                                + " (RFC 8166 §3.4.6)");
                    }
                    p.resultSink.writerIndex(p.resultSink.writerIndex() + (int) written);
                }
                ByteBuf results = PooledByteBufAllocator.DEFAULT.buffer(message.readableBytes());
                results.writeBytes(message);
                p.succeed(new RpcReply(p.xid, results, written, remote));
            }
            default -> throw new RpcRdmaProtocolException("a " + header.procedure() + " reply (RFC 8166 §4.2.4)");
        }
    }

    private void end(Throwable cause) {
        if (endCause != null) {
            return;
        }
        endCause = cause;
        drainCompletions();
        for (PendingCall p : outstanding.values()) {
            p.closeRegions();
            p.fail(cause);
        }
        outstanding.clear();
        PendingCall p;
        while ((p = waiting.poll()) != null) {
            p.releaseArgs();
            p.fail(cause);
        }
        credits.reset();
        pd.close();
        ended.complete(null);
    }

    private static Throwable unwrap(Throwable t) {
        return t instanceof java.util.concurrent.CompletionException && t.getCause() != null ? t.getCause() : t;
    }

    /** Completes when the connection has ended. */
    public Mono<Void> onDispose() {
        return onDispose;
    }

    /** Closes the connection; outstanding calls fail. */
    @Override
    public void dispose() {
        rdma.close();
    }

    @Override
    public boolean isDisposed() {
        return ended.isDone();
    }

    @Override
    public String toString() {
        return "RpcRdmaConnection{" + rdma + ", " + credits + ", " + parameters + "}";
    }

    /** One call from subscription to reply. Event loop only, but for {@link #cancelled}. */
    private static final class PendingCall {
        final int program;
        final int version;
        final int procedure;
        ByteBuf args;
        final ByteBuf resultSink;
        final MonoSink<RpcReply> sink;
        volatile boolean cancelled;
        int xid;
        int slot;
        MemoryRegion sinkRegion;
        MemoryRegion callRegion;
        WriteChunk sinkChunk;
        int replyChunkSize;
        ByteBuf replyBuffer;
        MemoryRegion replyRegion;
        boolean done;

        PendingCall(int program, int version, int procedure, ByteBuf args, ByteBuf resultSink,
                MonoSink<RpcReply> sink) {
            this.program = program;
            this.version = version;
            this.procedure = procedure;
            this.args = args;
            this.resultSink = resultSink;
            this.sink = sink;
        }

        boolean owns(int stag) {
            return sinkRegion != null && sinkRegion.stag() == stag || callRegion != null && callRegion.stag() == stag
                    || replyRegion != null && replyRegion.stag() == stag;
        }

        boolean hadRegions() {
            return sinkRegion != null || callRegion != null || replyRegion != null;
        }

        void releaseArgs() {
            if (args != null) {
                args.release();
                args = null;
            }
        }

        /** Invalidates the call's STags (those the reply did not invalidate already) and deregisters them. */
        void closeRegions() {
            for (MemoryRegion r : new MemoryRegion[] {sinkRegion, callRegion, replyRegion}) {
                if (r != null) {
                    r.invalidate();
                    r.close();
                }
            }
            sinkRegion = null;
            callRegion = null;
            replyRegion = null;
        }

        /** The Reply chunk's memory, kept past its deregistration until the reply is decoded. */
        void releaseReplyBuffer() {
            if (replyBuffer != null) {
                replyBuffer.release();
                replyBuffer = null;
            }
        }

        void succeed(RpcReply reply) {
            releaseReplyBuffer();
            done = true;
            if (cancelled) {
                reply.release();
            } else {
                sink.success(reply);
            }
        }

        void fail(Throwable cause) {
            releaseReplyBuffer();
            if (done) {
                return;
            }
            done = true;
            if (!cancelled) {
                sink.error(cause);
            }
        }
    }
}
