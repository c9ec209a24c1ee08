package io.softrdma.reactive;

import io.netty.buffer.ByteBuf;
import io.netty.channel.EventLoop;
import io.softrdma.cm.RdmaConnection;
import io.softrdma.cm.RpcRdmaParameters;
import io.softrdma.rdmap.RdmapExtensions;
import io.softrdma.verbs.Access;
import io.softrdma.verbs.CompletionQueue;
import io.softrdma.verbs.MemoryRegion;
import io.softrdma.verbs.ProtectionDomain;
import io.softrdma.verbs.QueuePair;
import io.softrdma.verbs.RemoteMemory;
import io.softrdma.verbs.ScatterGatherEntry;
import io.softrdma.verbs.SendWorkRequest;
import io.softrdma.verbs.WorkCompletion;
import java.security.Principal;
import java.security.cert.X509Certificate;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;
import org.reactivestreams.Publisher;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.MonoSink;
import reactor.netty.Connection;
import io.softrdma.reactive.internal.MessagingEngine;
import io.softrdma.reactive.internal.OneSidedOperations;
import io.softrdma.reactive.internal.Operations;
import io.softrdma.reactive.spi.ReceiveSlots;
import io.softrdma.reactive.internal.ReleaseAfterNext;
import io.softrdma.reactive.internal.SendQueueShares;
import io.softrdma.reactive.internal.SessionResources;
import io.softrdma.reactive.internal.TlsPeer;
import io.softrdma.reactive.spi.ReceiveSlots;
import io.softrdma.reactive.spi.SessionProtocol;

/**
 * One RDMA connection, as Reactor types: one-sided RDMA Write and Read (RFC 5040 §4.3, §4.4) into
 * memory the peer registered, and local memory registered for the peer.
 *
 * <p>Every operation is posted and completed on the connection's event loop. A Mono completes when
 * RFC 5040 §5.5 says the operation is complete: a Write once its last octet is handed to TCP (rule
 * 14), a Read once its Read Response is placed (rule 19). Cancelling a subscriber does not recall the
 * operation: it finishes on the wire, and its buffers are released only then. When the connection
 * ends, every pending operation fails; a Terminate is the {@link RdmaOperationException}'s cause (a
 * {@link io.softrdma.rdmap.TerminateException} with its Layer, EType and Code).
 *
 * <p>Why this class is long: it is the whole public surface of a session — one-sided operations, memory,
 * messaging, RFC 7306 — and most of its lines are the Javadoc of that contract; the work is done by the engine in
 * {@code io.softrdma.reactive.internal} ({@code OneSidedOperations}, the session protocol's engine).
 *
 * <p>Thread safety: all methods may be called from any thread.
 */
public final class RdmaSession implements Disposable {
    private final Connection connection;
    private final RdmaConnection rdma;
    private final ProtectionDomain pd;
    private final QueuePair qp;
    private final CompletionQueue cq;
    private final EventLoop loop;
    private final Operations operations;
    private final CompletableFuture<Void> ended = new CompletableFuture<>();
    private final OneSidedOperations oneSided;
    private final Mono<Void> onDispose;
    /**
     * How the session ended, for {@link #onTermination()}: a sink rather than a Mono of {@link #ended}, because a
     * subscriber that cancels must not make a later error an "onErrorDropped" log line.
     */
    private final reactor.core.publisher.Sinks.Empty<Void> terminated = reactor.core.publisher.Sinks.empty();
    private final Mono<Void> onTermination;
    private final CompletionQueue.Handler dispatch;

    /** The protocol on this session's queue pair: messaging (then {@link #messenger} is it) or another. */
    private final SessionProtocol protocol;
    private final SessionProtocol.Engine engine;
    /** SoftRDMA messaging, or null when another protocol runs here. */
    private final MessagingEngine messenger;
    private final RdmaMetricsRecorder recorder;
    /** What the peer presented in the TLS handshake below MPA, its own certificate first; empty without one. */
    private final List<X509Certificate> peerCertificates;
    /** The Terminate sent or received on this stream, if any (event loop). */
    private io.softrdma.rdmap.TerminateException terminate;

    RdmaSession(Connection connection, RdmaConnection rdma, SessionResources resources, RdmaMetricsRecorder recorder) {
        this.recorder = recorder;
        this.connection = connection;
        this.rdma = rdma;
        this.pd = resources.pd();
        this.qp = rdma.queuePair();
        this.cq = resources.cq();
        this.loop = connection.channel().eventLoop();
        this.operations = resources.operations();
        this.protocol = resources.protocol();
        this.engine = resources.engine();
        this.messenger = engine instanceof MessagingEngine m ? m : null;
        // Read once, here: the handshake ended before the MPA startup did, and TLS 1.3 renegotiates nothing.
        this.peerCertificates = TlsPeer.certificates(connection.channel());
        int maxQueued = messenger != null ? messenger.maxQueuedOperations()
                : MessagingOptions.DEFAULTS.maxQueuedOperations();
        this.oneSided = new OneSidedOperations(qp, loop, operations, SendQueueShares.applicationOperations(
                resources.qp().config().sendQueueDepth()), maxQueued, ended::isDone, recorder);
        if (messenger != null) {
            messenger.recorder(recorder);
        }
        engine.established(rdma);
        this.dispatch = this::dispatch;
        this.onTermination = terminated.asMono();
        this.onDispose = onTermination.onErrorResume(t -> Mono.empty());
        cq.setListener(q -> drainCompletions());
        loop.execute(() -> {
            cq.requestNotification(false);
            drainCompletions();
        });
        qp.closeFuture().whenComplete((v, t) -> loop.execute(() -> end(unwrap(t))));
        qp.setListener(new io.softrdma.verbs.QueuePairListener() {
            @Override
            public void onTerminate(QueuePair queuePair, io.softrdma.rdmap.TerminateException terminate) {
                RdmaSession.this.terminate = terminate;
                recorder.terminate(terminate);
            }
        });
        recorder.sessionOpened(this);
    }

    /**
     * A snapshot of this session's credits, read queues and per-opcode counts, for metrics. Any thread; the
     * values are each recent, not mutually consistent.
     */
    public SessionStatistics statistics() {
        if (messenger != null) {
            return messenger.statistics();
        }
        return new SessionStatistics(0, 0, 0, 0, qp.readsOutstanding(), qp.ord(), qp.inboundReadsQueued(), qp.ird(),
                qp.counters(), 0);
    }

    /** The rdma-core connection below: negotiated MPA parameters, private data, the queue pair. */
    public RdmaConnection connection() {
        return rdma;
    }

    /**
     * The X.509 certificates the peer presented in the TLS handshake below MPA ({@code tcpConfiguration(t ->
     * t.secure(...))}), its own certificate first and then the chain it sent; verified by the TLS handshake against
     * this side's trust material before the session existed.
     *
     * <p>Empty without TLS, and when the peer presented no certificate: a server always presents one; a client does
     * when the server asks (Netty's {@code ClientAuth.REQUIRE}, or {@code OPTIONAL} and it has key material).
     *
     * <p>Known when the session is (the handshake is over before the MPA startup ends) and fixed for its life.
     * Thread safety: an immutable list, from any thread.
     */
    public List<X509Certificate> peerCertificates() {
        return peerCertificates;
    }

    /**
     * The subject of the peer's own certificate (an {@link javax.security.auth.x500.X500Principal}, whose
     * {@code getName()} is the RFC 2253 distinguished name, such as {@code CN=orders,O=Example}): who is at the other
     * end, as TLS proved it. Empty when {@link #peerCertificates()} is. From any thread.
     */
    public Optional<Principal> peerPrincipal() {
        return peerCertificates.isEmpty() ? Optional.empty()
                : Optional.of(peerCertificates.get(0).getSubjectX500Principal());
    }

    /** Outbound RDMA Reads this session may have outstanding: the negotiated ORD (RFC 6581 §5). */
    public int ord() {
        return qp.ord();
    }

    /** Inbound RDMA Reads the peer may have outstanding here: the negotiated IRD. */
    public int ird() {
        return qp.ird();
    }

    /** What the RFC 8797 private data of both ends settled: inline thresholds, remote invalidation. */
    public RpcRdmaParameters rpcRdma() {
        return rdma.rpcRdma();
    }

    /** The protocol on this session's queue pair: SoftRDMA messaging unless the client or server set another. */
    public SessionProtocol protocol() {
        return protocol;
    }

    /**
     * This connection's engine of the {@link #protocol()}, as the type its protocol gives it: how a protocol module
     * (rdma-rpc) reaches its own state from the session.
     *
     * @throws IllegalStateException if the engine is not a {@code type}
     */
    public <E extends SessionProtocol.Engine> E engine(Class<E> type) {
        if (!type.isInstance(engine)) {
            throw new IllegalStateException("this session runs " + protocol.name() + ", whose engine is not a "
                    + type.getName());
        }
        return type.cast(engine);
    }

    /** SoftRDMA messaging, or an error that says which protocol this session runs instead. */
    private MessagingEngine messaging() {
        if (messenger == null) {
            throw new IllegalStateException("this session runs " + protocol.name() + ", not SoftRDMA messaging:"
                    + " send, receive, request, respond and Immediate Data belong to messaging (the default protocol)");
        }
        return messenger;
    }

    // ---- local memory ----

    /**
     * Allocates {@code length} octets of direct memory and registers them for the peer with these
     * rights (REMOTE_WRITE needs LOCAL_WRITE).
     */
    public LocalRegion allocate(int length, Access first, Access... rest) {
        return new LocalRegion(pd.allocate(length, Access.of(first, rest)));
    }

    /**
     * Registers the whole capacity of a direct buffer for the peer (zero-based tagged offsets). The
     * region holds its own reference to the buffer until disposed.
     */
    public LocalRegion register(ByteBuf direct, Access first, Access... rest) {
        return new LocalRegion(pd.register(direct, Access.of(first, rest)));
    }

    // ---- RDMA Write ----

    /**
     * RDMA-Writes {@code length} octets of {@code source}, from {@code offset}, to the start of
     * {@code remote} — without a copy. Completes when the Write is complete at this end (RFC 5040
     * §5.5 rule 14); the peer learns of it from a later Send.
     *
     * @throws IllegalArgumentException (as the Mono's error) if the octets do not fit {@code remote}
     */
    public Mono<Void> write(RemoteMemory remote, LocalRegion source, int offset, int length) {
        Objects.requireNonNull(remote, "remote");
        Objects.requireNonNull(source, "source");
        return Mono.create(sink -> oneSided.post(RdmaMetricsRecorder.Operation.WRITE, length, sink,
                wrId -> SendWorkRequest.write(wrId, remote, new ScatterGatherEntry(source.memoryRegion(), offset,
                        length)), null, null));
    }

    /**
     * RDMA-Writes the readable octets of {@code data} to the start of {@code remote}, and releases
     * {@code data} once the Write is complete (or failed). A direct buffer goes out without a copy (it
     * is registered for the Write); a heap buffer is copied once into direct memory first.
     */
    public Mono<Void> write(RemoteMemory remote, ByteBuf data) {
        Objects.requireNonNull(remote, "remote");
        Objects.requireNonNull(data, "data");
        return Mono.create(sink -> {
            if (data.refCnt() == 0) {
                sink.error(MessagingEngine.released("Write"));
                return;
            }
            ByteBuf source = direct(data);
            MemoryRegion region = registerForWrite(source, sink);
            if (region == null) {
                return;
            }
            oneSided.post(RdmaMetricsRecorder.Operation.WRITE, source.readableBytes(), sink, wrId -> SendWorkRequest.write(wrId,
                    remote, new ScatterGatherEntry(region, source.readerIndex(), source.readableBytes())), region,
                    source);
        });
    }

    /** {@code data} itself if direct (no copy), else one copy of it in direct memory (and {@code data} released). */
    private ByteBuf direct(ByteBuf data) {
        if (data.isDirect()) {
            return data;
        }
        ByteBuf direct = connection.channel().alloc().directBuffer(data.readableBytes());
        direct.writeBytes(data, data.readerIndex(), data.readableBytes());
        data.release();
        return direct;
    }

    /** Registers {@code source} as the memory of one Write; on failure releases it, fails {@code sink}, gives null. */
    private MemoryRegion registerForWrite(ByteBuf source, MonoSink<?> sink) {
        try {
            return pd.register(source, Set.of());
        } catch (RuntimeException e) {
            source.release();
            sink.error(e);
            return null;
        }
    }

    // ---- RDMA Read ----

    /**
     * RDMA-Reads all of {@code remote} into newly allocated direct memory and emits it. The buffer is the
     * library's: it is valid while the subscriber's {@code onNext} runs and released when that returns (or when
     * it is discarded, e.g. by a {@code timeout} that fired first), so map it to a value there ({@code
     * .map(b -> b.getLong(0))}), or retain it to keep it ({@code .map(ByteBuf::retain)}, then release it
     * yourself). {@code block()} on this Mono gives a buffer already released. Completes when the Read Response is
     * placed (RFC 5040 §5.5 rule 19).
     * At most {@link #ord()} Reads are outstanding on the wire; more wait in the send queue, and beyond
     * the application's share of the send queue (a quarter of {@code sendQueueDepth} and more: half goes
     * to messages, a quarter to the Reads of large messages) Writes and Reads wait in the session, in
     * order. A cancelled operation that is still waiting is dropped; a posted one finishes on the wire.
     */
    public Mono<ByteBuf> read(RemoteMemory remote) {
        return ReleaseAfterNext.mono(readOwned(remote));
    }

    /** A Read whose result the subscriber owns: the inner operation of both read methods. */
    private Mono<ByteBuf> readOwned(RemoteMemory remote) {
        Objects.requireNonNull(remote, "remote");
        if (remote.length() > Integer.MAX_VALUE) {
            return Mono.error(new IllegalArgumentException("a read of " + remote.length() + " octets does not fit"
                    + " one buffer; read slices of at most 2 GiB"));
        }
        return Mono.create(sink -> {
            MemoryRegion region;
            try {
                region = pd.allocate((int) remote.length(), Access.of(Access.LOCAL_WRITE));
            } catch (RuntimeException e) {
                sink.error(e);
                return;
            }
            oneSided.post(RdmaMetricsRecorder.Operation.READ, remote.length(), sink,
                    wrId -> SendWorkRequest.read(wrId, ScatterGatherEntry.of(region), remote), region, null);
        });
    }

    /**
     * RDMA-Reads each remote buffer in turn, emitting the results in order: at most {@link #ord()}
     * Reads are outstanding at once, however much downstream requests, so the peer's IRD (RFC 5040
     * §6.1) is never exceeded; results wait for downstream demand, at most ORD of them. Each result is the
     * library's, as for {@link #read(RemoteMemory)}: released once {@code onNext} returns, or when discarded.
     */
    public Flux<ByteBuf> read(Publisher<RemoteMemory> remotes) {
        Objects.requireNonNull(remotes, "remotes");
        return Flux.defer(() -> {
            int ord = Math.max(1, qp.ord());
            return Flux.from(remotes).flatMapSequential(this::readOwned, ord, 1);
        }).transform(ReleaseAfterNext::flux);
    }

    // ---- RFC 7306: atomics and Immediate Data ----

    /**
     * The RFC 7306 extensions this session may use: those both ends offered at connection setup. Two SoftRDMA
     * ends agree to all of them; a peer without them (Linux siw, iWARP NICs) agrees to none, and is never sent
     * one.
     */
    public RdmapExtensions extensions() {
        return qp.extensions();
    }

    /**
     * Atomically adds {@code delta} to the 64-bit word at the start of {@code word} in the peer's memory (RFC
     * 7306 Fetch-and-Add) and emits the word's value before. The word is big-endian (as {@code ByteBuf.getLong}
     * reads it), its tagged offset a multiple of 8, and its region registered with REMOTE_ATOMIC. Atomic among
     * all atomic operations on that word, from any connection to the peer's JVM: a counter many sessions share
     * gets each value once. Atomics count against ORD as Reads do, and wait beyond it in the same way.
     *
     * @throws IllegalArgumentException (as the Mono's error) if {@code word} is shorter than 8 octets or
     *     not 8-octet aligned
     * @throws IllegalStateException (as the Mono's error) if the peer did not agree to atomics ({@link #extensions()})
     */
    public Mono<Long> fetchAdd(RemoteMemory word, long delta) {
        return fetchAdd(word, delta, 0);
    }

    /**
     * Masked Fetch-and-Add (RFC 7306): adds field by field, each set bit of {@code fieldEnds} ending a field
     * whose carry is dropped — e.g. {@code 0x80000000_80000000L} makes the word two 32-bit counters. A mask of 0
     * is {@link #fetchAdd(RemoteMemory, long)}.
     */
    public Mono<Long> fetchAdd(RemoteMemory word, long delta, long fieldEnds) {
        return atomic(word, wrId -> SendWorkRequest.maskedFetchAdd(wrId, word.stag(), word.taggedOffset(), delta,
                fieldEnds));
    }

    /**
     * Atomically replaces the 64-bit word at the start of {@code word} with {@code update} if it equals
     * {@code expect} (RFC 7306 Compare-and-Swap), and emits the word's value before: the swap happened exactly
     * when that equals {@code expect}. Same rules as {@link #fetchAdd(RemoteMemory, long)}.
     */
    public Mono<Long> compareAndSwap(RemoteMemory word, long expect, long update) {
        return compareAndSwap(word, expect, -1L, update, -1L);
    }

    /**
     * Masked Compare-and-Swap (RFC 7306): if the word equals {@code compare} in the bits of
     * {@code compareMask}, its bits in {@code swapMask} take those of {@code swap}; emits the value before.
     */
    public Mono<Long> compareAndSwap(RemoteMemory word, long compare, long compareMask, long swap, long swapMask) {
        return atomic(word, wrId -> SendWorkRequest.maskedCompareAndSwap(wrId, word.stag(), word.taggedOffset(),
                compare, compareMask, swap, swapMask));
    }

    private Mono<Long> atomic(RemoteMemory word, Function<Long, SendWorkRequest> build) {
        Objects.requireNonNull(word, "word");
        if (word.length() < Long.BYTES || (word.taggedOffset() & 7) != 0) {
            return Mono.error(new IllegalArgumentException(word + " is not an 8-octet aligned 64-bit word: atomics"
                    + " work on one (RFC 7306), e.g. region.slice(8 * i, 8)"));
        }
        if (!qp.extensions().atomics()) {
            return Mono.error(new IllegalStateException("the peer did not agree to RFC 7306 atomics at connection"
                    + " setup (agreed: " + qp.extensions() + "; Linux siw has none)"));
        }
        return Mono.create(sink -> oneSided.post(RdmaMetricsRecorder.Operation.ATOMIC, Long.BYTES, sink, build, null, null));
    }

    /**
     * RDMA-Writes the readable octets of {@code data} to the start of {@code remote}, then sends {@code immediate}
     * as RFC 7306 Immediate Data: the peer's {@link #immediates()} emits it once the octets are placed, so it
     * needs no further message to learn the Write landed. The Immediate Data consumes one of the peer's receive
     * buffers, so it is sent against a credit like a message (docs/protocol.md). {@code data} is released once the
     * Write is complete, as by {@link #write(RemoteMemory, ByteBuf)}.
     *
     * @throws IllegalStateException (as the Mono's error) if the peer did not agree to Immediate Data
     */
    public Mono<Void> writeWithImmediate(RemoteMemory remote, ByteBuf data, long immediate) {
        Objects.requireNonNull(remote, "remote");
        Objects.requireNonNull(data, "data");
        return Mono.create(sink -> {
            if (data.refCnt() == 0) {
                sink.error(MessagingEngine.released("Write"));
                return;
            }
            if (!qp.extensions().immediateData()) {
                data.release();
                sink.error(new IllegalStateException("the peer did not agree to RFC 7306 Immediate Data at"
                        + " connection setup (agreed: " + qp.extensions() + "; Linux siw has none)"));
                return;
            }
            if (data.readableBytes() > remote.length()) {
                int n = data.readableBytes();
                data.release();
                sink.error(new IllegalArgumentException(n + " octets do not fit the remote buffer of "
                        + remote.length()));
                return;
            }
            MessagingEngine m;
            try {
                m = messaging();
            } catch (IllegalStateException e) {
                data.release();
                sink.error(e);
                return;
            }
            ByteBuf direct = direct(data);
            MemoryRegion region = registerForWrite(direct, sink);
            if (region != null) {
                m.writeWithImmediate(remote, region, direct, immediate, sink);
            }
        });
    }

    /**
     * The peer's Immediate Data (RFC 7306), in order: each value after the octets of the Write it followed are
     * placed. Downstream demand posts receive buffers and grants credits as {@link #receive()}'s does, and the
     * two share them: subscribe to both if the peer sends both. One subscriber at a time.
     */
    public Flux<Long> immediates() {
        return messaging().immediates();
    }

    // ---- messaging (RDMA Send with credits, docs/protocol.md) ----

    /**
     * Sends each message of {@code messages} as one RDMA Send, never without a credit from the peer:
     * messages are requested from the publisher only as fast as credits and send slots allow, and each
     * is released once copied into registered memory. Completes when all were sent (RFC 5040 §5.5
     * rule 14). A message longer than the negotiated inline threshold (less an 8-octet header) fails
     * the Mono.
     */
    public Mono<Void> send(Publisher<ByteBuf> messages) {
        Objects.requireNonNull(messages, "messages");
        return messaging().send(messages);
    }

    /**
     * The peer's messages. Downstream {@code request(n)} posts receive buffers, and only posted buffers
     * are granted to the peer as credits: a slow subscriber stalls the sender and loses nothing. Each
     * message is a view of the registered buffer it was received into (no copy), and the library's, as in
     * Reactor Netty: it is valid while {@code onNext} runs and given back when that returns, so demand, not
     * holding buffers, is what grants credit. Decode it there ({@code .map(m -> m.toString(UTF_8))}). To keep a
     * message past {@code onNext} without a copy, retain it ({@code .map(ByteBuf::retain)}) and release it when
     * done: that is the zero-copy opt-in, and the receive buffer stays out of use (and its credit with it) until
     * then; a retained message is valid until released or until the session ends, whichever comes first. Never
     * release a message you did not retain: a message of a BATCH shares its receive buffer's count with the others. One subscriber at a time; messages that arrive with no subscriber wait for the next one.
     */
    public Flux<ByteBuf> receive() {
        return ReleaseAfterNext.flux(messaging().receive());
    }

    /**
     * Sends {@code request} and emits the peer's response to it, correlated by id; the request counts
     * against the peer's credits like any message, and a receive buffer is posted for the response.
     * {@code request} is released once sent. The response is the library's, as for {@link #receive()}: valid
     * while {@code onNext} runs, released when it returns or when discarded; an empty buffer if the peer's
     * handler completed without a value.
     */
    public Mono<ByteBuf> request(ByteBuf request) {
        Objects.requireNonNull(request, "request");
        return messaging().request(request); // released after onNext by the request itself
    }

    /**
     * Answers the peer's requests with what {@code handler} returns for each, at most
     * {@code concurrency} at a time (that many receive buffers are posted for requests). The request is the
     * library's: valid until the handler's publisher terminates, then released (retain it to keep it longer);
     * the handler may answer with the request itself. The first buffer the publisher emits is the response, and
     * the library releases it once sent; a publisher that completes empty answers with an empty response. A
     * handler that throws or errors answers with an error reply ({@link RdmaRemoteException} at the requester).
     * Either way the request's concurrency slot is free again. The handler runs on the session's event loop:
     * it must not block.
     */
    public void respond(Function<ByteBuf, ? extends Publisher<ByteBuf>> handler, int concurrency) {
        Objects.requireNonNull(handler, "handler");
        if (concurrency < 1) {
            throw new IllegalArgumentException("concurrency must be at least 1, was " + concurrency);
        }
        messaging().respond(handler, concurrency);
    }

    /** Messages received and not yet taken by a subscriber or handler (a racy snapshot, for tests and metrics). */
    public int messagesBuffered() {
        return messenger != null ? messenger.messagesBuffered() : 0;
    }

    // ---- posting and completion (event loop) ----

    /** One completion to whoever waits for it; a failure there ends the session rather than the drain. */
    private void dispatch(WorkCompletion c) {
        try {
            if (ReceiveSlots.isReceive(c.wrId())) {
                engine.receiveCompleted(c);
            } else {
                operations.complete(c);
                oneSided.postWaiting();
            }
        } catch (RuntimeException e) {
            if (!ended.isDone()) {
                engine.end(e);
                operations.failAll(e);
                qp.close();
            }
        }
    }

    private void drainCompletions() {
        cq.drainAndRearm(dispatch);
    }

    private void end(Throwable cause) {
        if (ended.isDone()) {
            return;
        }
        drainCompletions();
        if (cause == null) {
            cause = engine.failure(); // the engine closed the queue pair gracefully because the peer broke the protocol
        }
        Throwable failure = cause != null ? cause : new CancellationException("the RDMA session was closed");
        engine.end(failure);
        operations.failAll(failure);
        oneSided.end(failure);
        // A stream that ended with a Terminate was lost, however the queue pair's close reported it. Recorded
        // before onDispose() completes, so that whoever waits for it finds the session counted as closed.
        recorder.sessionClosed(this, cause != null ? cause : terminate);
        if (cause == null) {
            ended.complete(null);
            terminated.tryEmitEmpty();
        } else {
            ended.completeExceptionally(cause);
            terminated.tryEmitError(cause);
        }
        pd.close();
        connection.dispose();
    }

    private static Throwable unwrap(Throwable t) {
        return t instanceof java.util.concurrent.CompletionException && t.getCause() != null ? t.getCause() : t;
    }

    // ---- lifecycle ----

    /** Completes when the session has ended, for whatever reason. */
    public Mono<Void> onDispose() {
        return onDispose;
    }

    /**
     * Closes gracefully: work already requested finishes, then the connection closes. The close goes
     * through the event loop like every post, so an operation subscribed before it is posted first.
     */
    /**
     * Completes when the session has ended as {@link #onDispose()} does, but says how: empty after this side's
     * {@link #dispose()} finished gracefully, and otherwise the error that ended it — a
     * {@link io.softrdma.rdmap.TerminateException} for a Terminate sent or received (its Layer, EType and Code),
     * a {@link io.softrdma.ConnectionClosedException} when the peer closed or the connection broke without one
     * (RFC 5040 §6.2). Cancelling a subscriber does not close the session.
     */
    public Mono<Void> onTermination() {
        return onTermination;
    }

    @Override
    public void dispose() {
        if (loop.inEventLoop()) {
            qp.close();
        } else {
            loop.execute(qp::close);
        }
    }

    @Override
    public boolean isDisposed() {
        return ended.isDone();
    }

    @Override
    public String toString() {
        return "RdmaSession{" + rdma + ", " + messenger + "}";
    }
}
