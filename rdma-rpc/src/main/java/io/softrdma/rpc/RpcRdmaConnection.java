package io.softrdma.rpc;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.channel.EventLoop;
import io.netty.util.collection.IntObjectHashMap;
import io.softrdma.ConnectionClosedException;
import io.softrdma.cm.RdmaConnection;
import io.softrdma.cm.RpcRdmaParameters;
import io.softrdma.reactive.RdmaSession;
import io.softrdma.reactive.spi.PendingOperation;
import io.softrdma.reactive.spi.ReceiveSlots;
import io.softrdma.reactive.spi.ReleaseOnDiscard;
import io.softrdma.reactive.spi.SessionProtocol;
import io.softrdma.verbs.Access;
import io.softrdma.verbs.MemoryRegion;
import io.softrdma.verbs.ProtectionDomain;
import io.softrdma.verbs.QueuePair;
import io.softrdma.verbs.ScatterGatherEntry;
import io.softrdma.verbs.SendWorkRequest;
import io.softrdma.verbs.WorkCompletion;
import java.util.ArrayDeque;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ThreadLocalRandom;
import reactor.core.Disposable;
import reactor.core.publisher.Mono;
import reactor.core.publisher.MonoSink;
import reactor.util.Logger;
import reactor.util.Loggers;

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
 *   <li><b>Call data</b>: a call may give a direct buffer that holds one DDP-eligible argument (NFS WRITE data,
 *       RFC 8267) and the XDR position where it belongs. It is registered for that call only, for remote read, and
 *       offered as a Read chunk of one segment at that position (RFC 8166 §3.4.5); the responder RDMA-Reads it
 *       before it replies. The chunk holds the data's octets without XDR roundup (§3.4.5.2), and the inline
 *       stream goes on after the position with the next item.</li>
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
 * <p>The connection runs on an {@link RdmaSession} ({@link #session()}) as its session protocol: the session owns the
 * TCP connection, the queue pair, its completion queue and protection domain, and the lifecycle; this class is the
 * protocol's engine for one connection (RFC 5040 §1's ULP). Replies land in the session's receive-slot arena
 * ({@link ReceiveSlots}); the Sends of calls go from a registered send arena, with work request ids from the
 * session.
 *
 * <p>Thread safety: any thread may call; the state lives on the connection's event loop.
 *
 * <p>Why this class is long: it is the requester's side of RFC 8166 — credits, inline calls and Long Calls, the three
 * kinds of chunk, invalidation, reply decoding — and a call's state spans all of them.
 */
public final class RpcRdmaConnection implements Disposable {
    private static final Logger logger = Loggers.getLogger(RpcRdmaConnection.class);

    private final SessionProtocol.Context context;
    private final ProtectionDomain pd;
    private final QueuePair qp;
    private final EventLoop loop;
    private final RpcRdmaCredits credits;
    private final RpcAuth credential;
    private final MemoryRegion sendArena;
    private final int sendSlotSize;
    private final SendSlot[] freeSendSlots;
    private int freeSendSlotCount;
    private final ReceiveSlots receives;
    private final ArrayDeque<PendingCall> waiting = new ArrayDeque<>();
    private final IntObjectHashMap<PendingCall> outstanding = new IntObjectHashMap<>();
    private final Engine engine = new Engine();
    private int nextXid = ThreadLocalRandom.current().nextInt();
    private Throwable endCause;
    private volatile RdmaConnection rdma;
    private volatile RpcRdmaParameters parameters;
    private volatile RdmaSession session;
    private volatile long remoteInvalidations;
    private volatile long localInvalidations;
    private volatile long unmatchedReplies;

    /**
     * Registers the send arena and the receive slots and posts every receive: RFC 8166 §3.3.2 wants a receive
     * posted for each credit asked for, and before the connection is, so that the first reply has a buffer. On the
     * event loop, before the MPA startup.
     */
    RpcRdmaConnection(SessionProtocol.Context context, int sendSize, int receiveSize, int maxCredits,
            RpcAuth credential) {
        this.context = context;
        this.pd = context.protectionDomain();
        this.qp = context.queuePair();
        this.loop = context.eventLoop();
        this.credits = new RpcRdmaCredits(maxCredits);
        this.credential = credential;
        this.sendSlotSize = sendSize;
        this.sendArena = pd.allocate(Math.multiplyExact(maxCredits, sendSize), Access.of(Access.LOCAL_WRITE));
        this.freeSendSlots = new SendSlot[maxCredits];
        for (int i = 0; i < maxCredits; i++) {
            freeSendSlots[freeSendSlotCount++] = new SendSlot(maxCredits - 1 - i);
        }
        this.receives = new ReceiveSlots(pd, qp, loop, maxCredits, receiveSize);
        receives.owner(engine);
        receives.post(maxCredits);
    }

    /** The session protocol's face of this connection. */
    Engine engine() {
        return engine;
    }

    /** The session this connection runs on, once the client has it. */
    RpcRdmaConnection attach(RdmaSession session) {
        this.session = session;
        return this;
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

    /** The rdma-core connection below: negotiated MPA parameters and private data, the queue pair. */
    public RdmaConnection connection() {
        return rdma;
    }

    /** The session this connection runs on: its lifecycle, statistics, and the RFC 8797 parameters too. */
    public RdmaSession session() {
        return session;
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
        // A reply that lands as the caller cancels (a timeout) is released, not leaked.
        return ReleaseOnDiscard.mono(Mono.create(sink -> {
            PendingCall p = new PendingCall(program, version, procedure, args, resultSink, sink);
            p.replyChunkSize = replyChunkSize;
            sink.onCancel(() -> p.cancelled = true);
            if (loop.inEventLoop()) {
                submit(p);
            } else {
                loop.execute(() -> submit(p));
            }
        }));
    }

    /**
     * Calls {@code procedure} with one argument moved to a Read chunk (RFC 8166 §3.4.5): the RPC call is {@code args}
     * with the readable octets of {@code data} inserted at {@code position}, an offset into {@code args}'s readable
     * octets that is a multiple of 4 (XDR), after the item's length word when the item is an opaque. {@code data}
     * is registered for remote read for this call only and the responder RDMA-Reads it from this side's memory;
     * the chunk has no XDR roundup (§3.4.5.2) and the inline part must not carry one either. The caller keeps
     * {@code data} (it is not released) and must not change its readable octets until the returned Mono ends.
     * {@code args} is released. The inline part with the transport header must fit the send inline threshold.
     * Empty {@code data} offers no chunk: the call goes inline as {@code args}.
     */
    public Mono<RpcReply> callWithData(int program, int version, int procedure, ByteBuf args, int position,
            ByteBuf data) {
        Objects.requireNonNull(args, "args");
        Objects.requireNonNull(data, "data");
        if (!data.isDirect()) {
            args.release();
            return Mono.error(new IllegalArgumentException("the call data must be a direct buffer: the responder"
                    + " RDMA-Reads it from registered memory"));
        }
        if (position < 0 || position > args.readableBytes() || position % 4 != 0) {
            int readable = args.readableBytes();
            args.release();
            return Mono.error(new IllegalArgumentException("the data's position " + position + " must be a multiple"
                    + " of 4 within the " + readable + " octets of arguments (an XDR position, RFC 8166 §3.4.5)"));
        }
        if (!data.isReadable()) {
            // Nothing to move: the item is empty, and so is its roundup; the call goes as it is, with no chunk.
            return call(program, version, procedure, args);
        }
        return ReleaseOnDiscard.mono(Mono.create(sink -> {
            PendingCall p = new PendingCall(program, version, procedure, args, null, sink);
            p.callData = data;
            p.callDataPosition = position;
            sink.onCancel(() -> p.cancelled = true);
            if (loop.inEventLoop()) {
                submit(p);
            } else {
                loop.execute(() -> submit(p));
            }
        }));
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

    private void start(PendingCall p, SendSlot slot) {
        int xid = nextXid++;
        p.xid = xid;
        ByteBuf call = null;
        long wrId = 0;
        boolean registered = false;
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
            List<ReadSegment> reads = List.of();
            if (p.callData != null) {
                // RFC 8166 §3.4.5: the data item's octets, without XDR roundup (§3.4.5.2), at its XDR position in
                // the whole RPC call, which starts with the call header.
                int dataLength = p.callData.readableBytes();
                p.dataRegion = pd.register(p.callData.slice(p.callData.readerIndex(), dataLength),
                        Access.of(Access.REMOTE_READ));
                reads = List.of(new ReadSegment(header.encodedLength() + p.callDataPosition, new RdmaSegment(
                        p.dataRegion.stag(), dataLength, p.dataRegion.baseTaggedOffset())));
            }
            RpcRdmaHeader inline = RpcRdmaHeader.message(xid, credits.requested(), reads, writes, replyChunk);
            ByteBuf memory = sendArena.buffer();
            int offset = slot.index * sendSlotSize;
            int length;
            if (inline.encodedLength() + callLength <= Math.min(sendSlotSize, parameters.sendInlineThreshold())) {
                ByteBuf out = memory.slice(offset, sendSlotSize).clear();
                inline.encode(out);
                header.encode(out);
                out.writeBytes(p.args, p.args.readerIndex(), p.args.readableBytes());
                length = out.writerIndex();
            } else if (p.callData != null) {
                throw new IllegalArgumentException("a call of " + callLength + " octets with a Read chunk does not"
                        + " fit the send inline threshold of " + Math.min(sendSlotSize, parameters.sendInlineThreshold())
                        + " octets with its transport header; this side sends no Long Call with call data");
            } else {
                // A Long Call (RFC 8166 §3.5.3): the whole RPC call in a position-zero Read chunk, RDMA_NOMSG.
                call = PooledByteBufAllocator.DEFAULT.directBuffer(callLength, callLength);
                header.encode(call);
                call.writeBytes(p.args, p.args.readerIndex(), p.args.readableBytes());
                p.callRegion = pd.registerUnchanging(call); // this side's own encoding, untouched until the reply
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
            wrId = context.register(slot);
            registered = true;
            qp.postSend(SendWorkRequest.send(wrId, new ScatterGatherEntry(sendArena, offset, length)));
        } catch (RuntimeException e) {
            if (registered) {
                context.unregister(wrId);
            }
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

    /** The requester's Sends: one per call, each from its own slot of the send arena. */
    private final class SendSlot implements PendingOperation {
        final int index;

        SendSlot(int index) {
            this.index = index;
        }

        /** The call's Send went out (RFC 5040 §5.5 rule 14): the slot takes the next call. */
        @Override
        public void complete(WorkCompletion c) {
            freeSendSlots[freeSendSlotCount++] = this;
            pump();
        }

        @Override
        public void fail(Throwable cause) {
            freeSendSlots[freeSendSlotCount++] = this; // the session ended; end() failed the calls
        }
    }

    /** A reply landed in a receive slot: it is handled, then the slot is posted again for the next reply. */
    private void received(ReceiveSlots.Slot slot, WorkCompletion c) {
        try {
            replied(receives.memory().slice(slot.offset(), slot.length()), c);
        } catch (RuntimeException e) {
            // A malformed reply, or a failure handling one: the connection cannot be trusted to continue.
            logger.debug("{}: {}", rdma, e.toString());
            end(e);
            qp.close();
        } finally {
            slot.free(); // everything the caller gets was copied out
            if (endCause == null) {
                receives.post(receives.free());
            }
            pump();
        }
    }

    private void replied(ByteBuf message, WorkCompletion c) {
        RpcRdmaHeader header = RpcRdmaHeader.decode(message);
        PendingCall p = outstanding.remove(header.xid());
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

    /**
     * The session ended ({@link SessionProtocol.Engine#end}) or a reply broke the protocol: every call outstanding or
     * waiting fails with {@code cause} and releases what it holds. The session then closes the protection domain,
     * and with it the send arena and the receive slots.
     */
    private void end(Throwable cause) {
        if (endCause != null) {
            return;
        }
        // The session says CancellationException for a close without a cause: to callers the connection closed.
        endCause = cause instanceof CancellationException
                ? new ConnectionClosedException("the RPC-over-RDMA connection closed", cause) : cause;
        for (PendingCall p : outstanding.values()) {
            p.closeRegions();
            p.fail(endCause);
        }
        outstanding.clear();
        PendingCall p;
        while ((p = waiting.poll()) != null) {
            p.releaseArgs();
            p.fail(endCause);
        }
        credits.reset();
    }

    /** Completes when the connection has ended and released what it held. */
    public Mono<Void> onDispose() {
        return session.onDispose();
    }

    /** Closes the connection; outstanding calls fail. */
    @Override
    public void dispose() {
        session.dispose();
    }

    @Override
    public boolean isDisposed() {
        return session.isDisposed();
    }

    @Override
    public String toString() {
        return "RpcRdmaConnection{" + rdma + ", " + credits + ", " + parameters + "}";
    }

    /** The connection as its session's protocol engine sees it (RFC 5040 §1's ULP), on the event loop. */
    final class Engine implements SessionProtocol.Engine, ReceiveSlots.Owner {
        /** The requester this engine drives. */
        RpcRdmaConnection connection() {
            return RpcRdmaConnection.this;
        }

        /** RFC 8797 §4.2: the inline thresholds each way, and whether replies may invalidate (§4.1). */
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
            RpcRdmaConnection.this.received(slot, completion);
        }

        /** Nothing is lent out as a view: each slot is freed once its reply is handled. */
        @Override
        public void returned() {
        }

        @Override
        public void end(Throwable cause) {
            RpcRdmaConnection.this.end(cause);
        }
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
        MemoryRegion sinkRegion;
        MemoryRegion callRegion;
        ByteBuf callData;
        int callDataPosition;
        MemoryRegion dataRegion;
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
                    || replyRegion != null && replyRegion.stag() == stag
                    || dataRegion != null && dataRegion.stag() == stag;
        }

        boolean hadRegions() {
            return sinkRegion != null || callRegion != null || replyRegion != null || dataRegion != null;
        }

        void releaseArgs() {
            if (args != null) {
                args.release();
                args = null;
            }
        }

        /** Invalidates the call's STags (those the reply did not invalidate already) and deregisters them. */
        void closeRegions() {
            for (MemoryRegion r : new MemoryRegion[] {sinkRegion, callRegion, replyRegion, dataRegion}) {
                if (r != null) {
                    r.invalidate();
                    r.close();
                }
            }
            sinkRegion = null;
            callRegion = null;
            replyRegion = null;
            dataRegion = null;
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
