package io.softrdma.memory.internal;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.softrdma.memory.RecordLayout;
import io.softrdma.memory.RegionAccess;
import io.softrdma.memory.RegionAccessDeniedException;
import io.softrdma.memory.RegionRevokedException;
import io.softrdma.memory.RegionSlice;
import io.softrdma.memory.RemoteMemoryException;
import io.softrdma.memory.TornRecordException;
import io.softrdma.rdmap.TerminateCode;
import io.softrdma.rdmap.TerminateException;
import io.softrdma.rdmap.TerminateLayer;
import io.softrdma.reactive.RdmaSession;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;
import org.reactivestreams.Publisher;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.util.retry.Retry;

/**
 * One named region on one server as the client uses it: the current lease (resolved, renewed, dropped when revoked)
 * and every operation of {@link io.softrdma.memory.RemoteRegion}, each run on the lease's session.
 *
 * <p>Why this class is long: the lease's life (resolve, renew, forget) and the operations that use it are one concern —
 * every operation takes the current lease, checks its rights and bounds, and turns a failure into "revoked, resolve
 * again" or a typed error by the same rules ({@code op}); the versioned records' retry loop lives in {@code
 * RecordClient}.
 *
 * <p>Thread safety: any thread. The lease is a volatile reference replaced whole; concurrent resolutions share one
 * request.
 */
public final class RegionClient {
    private final String name;
    private final ServerLink link;
    private final ClientSettings settings;
    private volatile ClientLease lease;
    private Mono<ClientLease> resolving;
    private volatile long size = -1;
    private volatile Set<RegionAccess> rights = Set.of();
    private final RecordClient records;

    RegionClient(String name, ServerLink link, ClientSettings settings) {
        this.name = name;
        this.link = link;
        this.settings = settings;
        this.records = new RecordClient(this, settings.recordAttempts());
    }

    public String name() {
        return name;
    }

    public long size() {
        return size;
    }

    public Set<RegionAccess> rights() {
        return rights;
    }

    public InetSocketAddress server() {
        return link.address();
    }

    /** Completes once a lease is held (resolving if need be). */
    Mono<Void> ensure() {
        return lease().then();
    }

    // ---- the lease ----

    private Mono<ClientLease> lease() {
        return Mono.defer(() -> {
            ClientLease l = usableLease();
            return l != null ? Mono.just(l) : resolve();
        });
    }

    /**
     * The current lease if it can be used now (its session open, its expiry beyond the safety margin), renewing it
     * in the background when half of it has passed; null if the region must be resolved first. No I/O, no waiting.
     */
    private ClientLease usableLease() {
        ClientLease l = lease;
        long now = settings.clock().millis();
        if (l != null && !l.session().isDisposed() && now < l.expiresAt() - l.margin()) {
            if (now >= l.renewAt()) {
                renew(l);
            }
            return l;
        }
        return null;
    }

    /** Whether an operation now would run on a lease already held: nothing to resolve first. */
    public boolean leased() {
        return usableLease() != null;
    }

    private Mono<ClientLease> resolve() {
        synchronized (this) {
            if (resolving != null) {
                return resolving;
            }
            java.util.concurrent.atomic.AtomicReference<Mono<ClientLease>> self = new java.util.concurrent.atomic
                    .AtomicReference<>();
            self.set(link.session()
                    .flatMap(s -> DirectoryClient.resolve(s, name, settings.clock(), null))
                    // The cached session may be one a Terminate is closing (right after a revocation): its end is
                    // moments away, and the next subscription to the link connects anew.
                    .retryWhen(Retry.backoff(3, Duration.ofMillis(10)).filter(DirectoryClient::connectionLost)
                            .onRetryExhaustedThrow((spec, signal) -> signal.failure()))
                    .map(DirectoryClient.Resolved::lease)
                    .doOnNext(this::install)
                    .doFinally(signal -> {
                        synchronized (this) {
                            if (resolving == self.get()) {
                                resolving = null;
                            }
                        }
                    })
                    .cache());
            resolving = self.get();
            return resolving;
        }
    }

    private void install(ClientLease l) {
        lease = l;
        size = l.remote().length();
        rights = l.rights();
    }

    /** Renews the current lease if it is still {@code l}'s and half of it has passed. */
    private void renewIfDue(ClientLease l) {
        ClientLease current = lease;
        if (current != null && current.id() == l.id() && settings.clock().millis() >= current.renewAt()) {
            renew(current);
        }
    }

    /** Renews {@code l} in the background, once at a time; a refusal drops it, so the next use resolves. */
    private void renew(ClientLease l) {
        if (!l.renewing().compareAndSet(false, true)) {
            return;
        }
        long sentAt = settings.clock().millis();
        DirectoryClient.renew(l.session(), name, l.id()).subscribe(
                duration -> {
                    synchronized (this) {
                        if (lease == l) {
                            lease = l.renewed(duration, sentAt);
                        }
                    }
                },
                e -> forget(l));
    }

    private void forget(ClientLease l) {
        synchronized (this) {
            if (lease == l) {
                lease = null;
            }
        }
    }

    /**
     * The error an operation on {@code l} failed with, as this package's types. A Terminate for an invalid or
     * unassociated STag (RFC 5040 §7.2 Remote Protection Error, RFC 5041 §7.2 Tagged Buffer Error — what the server
     * sends for a lease it ended) is {@link RegionRevokedException}. A connection lost without a Terminate may still
     * be one: the server resets a connection whose requests were still arriving when it sent the Terminate, and the
     * reset can overtake it. So the client resolves again at once, telling the server the lost lease's id, and the
     * server says why that lease ended — a revocation, or not (then the error is a plain
     * {@link RemoteMemoryException}). Either way the lease is dropped and, if the server is reachable, replaced.
     */
    private Mono<Throwable> classify(ClientLease l, Throwable e) {
        if (e instanceof IllegalArgumentException || e instanceof RemoteMemoryException
                || e instanceof RecordClient.TornAttempt) {
            return Mono.just(e);
        }
        forget(l);
        TerminateException terminate = terminate(e);
        // The operation failed because the session is ending: wait until it has, so that the next operation (or
        // the resolution below) connects anew rather than meeting the ending session.
        Mono<Void> ended = l.session().onDispose().timeout(Duration.ofSeconds(5), Mono.empty());
        if (terminate != null && isProtectionError(terminate.code())) {
            return ended.then(Mono.just(new RegionRevokedException(name, "the lease on region '" + name + "' is no"
                    + " longer valid (it expired, or the owner revoked, resized or dropped the region): the server"
                    + " answered with a Terminate, " + terminate.code() + "; the next operation resolves the region"
                    + " again", e)));
        }
        return ended
                .then(link.session())
                .flatMap(s -> DirectoryClient.resolve(s, name, settings.clock(), l.id()))
                .map(resolved -> {
                    install(resolved.lease());
                    LeaseEnd why = resolved.previous();
                    if (why.revoked()) {
                        return (Throwable) new RegionRevokedException(name, "the lease on region '" + name + "' "
                                + why.words() + "; its connection ended before the Terminate arrived (" + e
                                + "); resolved again on a new connection", e);
                    }
                    return lost(e);
                })
                .onErrorResume(again -> {
                    if (again instanceof RegionRevokedException || again instanceof io.softrdma.memory
                            .NoSuchRegionException) {
                        // dropped meanwhile, or the session ended again: the region's fate is the news
                        again.addSuppressed(e);
                        return Mono.just(again);
                    }
                    Throwable failure = lost(e);
                    failure.addSuppressed(again);
                    return Mono.just(failure);
                });
    }

    private RemoteMemoryException lost(Throwable e) {
        return new RemoteMemoryException(name, "the connection to memory server " + HashRing.name(link.address())
                + " failed during an operation on region '" + name + "': " + e + "; the next operation reconnects",
                e);
    }

    private static TerminateException terminate(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof TerminateException te) {
                return te;
            }
        }
        return null;
    }

    /** EType 1 of RDMAP (Remote Protection Error) or DDP (Tagged Buffer Error): the STag was refused. */
    private static boolean isProtectionError(TerminateCode code) {
        TerminateLayer layer = code.terminateLayer();
        return (layer == TerminateLayer.RDMAP || layer == TerminateLayer.DDP) && code.errorType() == 1;
    }

    /** When an operation may run once more, on a new lease, after its session ended under it. */
    enum Repeat {
        /** It handed a buffer over (a Write): the buffer is gone, so the error goes to the caller. */
        NEVER,
        /**
         * It met an ended session before it was posted, so it never reached the wire (an atomic): the session
         * ended between the lease check and the post, and the caller should not see that.
         */
        IF_NOT_POSTED,
        /** A Read: repeating it is harmless even if it reached the wire, so a lost connection is retried too. */
        IF_LOST
    }

    /** Runs {@code body} on the current lease once the right and bounds are checked, translating its errors. */
    <T> Mono<T> op(RegionAccess right, long offset, long length, Function<ClientLease, Mono<T>> body,
            Repeat repeat) {
        if (offset < 0 || length < 0) {
            return Mono.error(new IllegalArgumentException("offset " + offset + " and length " + length
                    + " must not be negative"));
        }
        // The lease is looked at when the operation is subscribed (a retry's resubscription sees the new one); held
        // already, it is used as it is, without the resolve's operators on the path of every Read.
        return Mono.defer(() -> {
            ClientLease held = usableLease();
            return held != null ? on(held, right, offset, length, body, repeat)
                    : resolve().flatMap(l -> on(l, right, offset, length, body, repeat));
        });
    }

    private <T> Mono<T> on(ClientLease l, RegionAccess right, long offset, long length,
            Function<ClientLease, Mono<T>> body, Repeat repeat) {
        if (!l.rights().contains(right)) {
            return Mono.error(denied(l, right));
        }
        if (offset + length > l.remote().length()) {
            return Mono.error(new IllegalArgumentException("[" + offset + ", " + (offset + length) + ") is"
                    + " outside region '" + name + "' of " + l.remote().length() + " octets"));
        }
        return body.apply(l).onErrorResume(e -> {
            if (repeat != Repeat.NEVER && e instanceof IllegalStateException && l.session().isDisposed()) {
                forget(l);
                return op(right, offset, length, body, Repeat.NEVER);
            }
            return classify(l, e).flatMap(failure -> repeat == Repeat.IF_LOST
                    && failure.getClass() == RemoteMemoryException.class && !(e instanceof RemoteMemoryException)
                    ? op(right, offset, length, body, Repeat.NEVER) // classify resolved again: on the new lease
                    : Mono.error(failure));
        });
    }

    private RegionAccessDeniedException denied(ClientLease l, RegionAccess right) {
        return new RegionAccessDeniedException(name, "this peer holds " + l.rights() + " on region '" + name
                + "', not " + right + " (the server's AccessPolicy and the region's access decide)");
    }

    private static void checkWord(long offset) {
        if ((offset & 7) != 0) {
            throw new IllegalArgumentException("word offset " + offset + " must be a multiple of 8 (RFC 7306"
                    + " atomics work on aligned 64-bit words)");
        }
    }

    /** Releases the current lease, if any: the server deregisters it now rather than at expiry. */
    public Mono<Void> release() {
        return Mono.defer(() -> {
            ClientLease l = lease;
            if (l == null || l.session().isDisposed()) {
                return Mono.empty();
            }
            forget(l);
            return DirectoryClient.release(l.session(), name, l.id());
        });
    }

    // ---- octets and words ----

    public Mono<ByteBuf> read(long offset, int length) {
        return op(RegionAccess.READ, offset, length, l -> l.session().read(l.remote().slice(offset, length)),
                Repeat.IF_LOST);
    }

    public Flux<ByteBuf> read(Publisher<RegionSlice> slices) {
        return lease().flatMapMany(l -> {
            if (!l.rights().contains(RegionAccess.READ)) {
                return Flux.error(denied(l, RegionAccess.READ));
            }
            Flux<io.softrdma.verbs.RemoteMemory> remotes = Flux.from(slices).map(s -> {
                renewIfDue(l); // a long Flux of reads is "in use" for as long as it runs
                if (s.offset() + s.length() > l.remote().length()) {
                    throw new IllegalArgumentException("slice [" + s.offset() + ", " + (s.offset() + s.length())
                            + ") is outside region '" + name + "' of " + l.remote().length() + " octets");
                }
                return l.remote().slice(s.offset(), s.length());
            });
            return l.session().read(remotes).onErrorResume(e -> classify(l, e).flatMap(Mono::error));
        });
    }

    public Mono<Void> write(long offset, ByteBuf data) {
        AtomicBoolean handed = new AtomicBoolean();
        return op(RegionAccess.WRITE, offset, data.readableBytes(), l -> {
            handed.set(true);
            return l.session().write(l.remote().slice(offset, data.readableBytes()), data);
        }, Repeat.NEVER).doFinally(s -> {
            if (handed.compareAndSet(false, true)) {
                data.release(); // never handed to the session: it is still ours to release
            }
        });
    }

    public Mono<Long> getLong(long offset) {
        return read(offset, 8).map(b -> b.getLong(b.readerIndex()));
    }

    public Mono<Void> putLong(long offset, long value) {
        return Mono.defer(() -> write(offset, ByteBufAllocator.DEFAULT.directBuffer(8).writeLong(value)));
    }

    public Mono<Long> fetchAdd(long offset, long delta) {
        return Mono.defer(() -> {
            checkWord(offset);
            return op(RegionAccess.ATOMIC, offset, 8, l -> l.session().fetchAdd(l.remote().slice(offset, 8), delta),
                    Repeat.IF_NOT_POSTED);
        });
    }

    public Mono<Long> compareAndSwap(long offset, long expect, long update) {
        return Mono.defer(() -> {
            checkWord(offset);
            return op(RegionAccess.ATOMIC, offset, 8,
                    l -> l.session().compareAndSwap(l.remote().slice(offset, 8), expect, update),
                    Repeat.IF_NOT_POSTED);
        });
    }

    // ---- versioned records: RecordClient, over the operations above ----

    /** How many record reads and lock attempts found a record torn or locked, and were retried, in this JVM. */
    public static long tornAttempts() {
        return RecordClient.tornAttempts();
    }

    public Mono<ByteBuf> readRecord(long offset, int capacity) {
        return records.read(offset, capacity);
    }

    public Mono<Void> writeRecord(long offset, ByteBuf payload) {
        return records.write(offset, payload);
    }

    public <T> Mono<T> readValue(long offset, Class<T> type) {
        return records.read(offset, -1).map(b -> settings.codec().decode(b, type));
    }

    public Mono<Void> writeValue(long offset, Object value) {
        return Mono.defer(() -> records.write(offset, settings.codec().encode(value, ByteBufAllocator.DEFAULT)));
    }

    @Override
    public String toString() {
        ClientLease l = lease;
        return name + " on " + HashRing.name(link.address()) + (l != null ? " " + l.remote() + " " + l.rights()
                : " (not resolved)");
    }
}
