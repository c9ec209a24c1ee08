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
 * <p>Thread safety: any thread. The lease is a volatile reference replaced whole; concurrent resolutions share one
 * request.
 */
public final class RegionClient {
    /** Record attempts made at once before backing off: a writer holds a record for about one round trip. */
    private static final int EAGER_ATTEMPTS = 16;

    private final String name;
    private final ServerLink link;
    private final ClientSettings settings;
    private volatile ClientLease lease;
    private Mono<ClientLease> resolving;
    private volatile long size = -1;
    private volatile Set<RegionAccess> rights = Set.of();

    RegionClient(String name, ServerLink link, ClientSettings settings) {
        this.name = name;
        this.link = link;
        this.settings = settings;
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
            ClientLease l = lease;
            long now = settings.clock().millis();
            if (l != null && !l.session().isDisposed() && now < l.expiresAt() - l.margin()) {
                if (now >= l.renewAt()) {
                    renew(l);
                }
                return Mono.just(l);
            }
            return resolve();
        });
    }

    private Mono<ClientLease> resolve() {
        synchronized (this) {
            if (resolving != null) {
                return resolving;
            }
            @SuppressWarnings("unchecked")
            Mono<ClientLease>[] self = new Mono[1];
            self[0] = link.session()
                    .flatMap(s -> DirectoryClient.resolve(s, name, settings.clock(), null))
                    .map(DirectoryClient.Resolved::lease)
                    .doOnNext(this::install)
                    .doFinally(signal -> {
                        synchronized (this) {
                            if (resolving == self[0]) {
                                resolving = null;
                            }
                        }
                    })
                    .cache();
            resolving = self[0];
            return self[0];
        }
    }

    private void install(ClientLease l) {
        lease = l;
        size = l.remote().length();
        rights = l.rights();
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
        if (e instanceof IllegalArgumentException || e instanceof RemoteMemoryException || e instanceof TornAttempt) {
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
    private enum Repeat {
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
    private <T> Mono<T> op(RegionAccess right, long offset, long length, Function<ClientLease, Mono<T>> body,
            Repeat repeat) {
        if (offset < 0 || length < 0) {
            return Mono.error(new IllegalArgumentException("offset " + offset + " and length " + length
                    + " must not be negative"));
        }
        return lease().flatMap(l -> {
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

    // ---- versioned records ----

    /** One attempt found the record torn or locked: retried, never surfaced. */
    static final class TornAttempt extends RuntimeException {
        private static final long serialVersionUID = 1L;

        TornAttempt() {
            super("torn", null, false, false);
        }
    }

    private static final TornAttempt TORN = new TornAttempt();
    /** Torn or locked record attempts seen by every client in this JVM, retried (for tests and metrics). */
    private static final java.util.concurrent.atomic.LongAdder TORN_ATTEMPTS = new java.util.concurrent.atomic
            .LongAdder();

    /** How many record reads and lock attempts found a record torn or locked, and were retried, so far. */
    public static long tornAttempts() {
        return TORN_ATTEMPTS.sum();
    }

    /** Retries torn attempts: {@link #EAGER_ATTEMPTS} at once, then backing off from 10 µs to 1 ms. */
    private Retry tornRetries(long offset) {
        int attempts = settings.recordAttempts();
        return Retry.from(signals -> signals.concatMap(signal -> {
            if (!(signal.failure() instanceof TornAttempt)) {
                return Mono.error(signal.failure());
            }
            TORN_ATTEMPTS.increment();
            long done = signal.totalRetries() + 1;
            if (done >= attempts) {
                return Mono.error(new TornRecordException(name, "the record at " + offset + " of region '" + name
                        + "' was locked by a writer or inconsistent for " + attempts + " attempts"));
            }
            if (done < EAGER_ATTEMPTS) {
                return Mono.just(done);
            }
            long micros = Math.min(1000, 10L << Math.min(10, done - EAGER_ATTEMPTS));
            return Mono.delay(Duration.ofNanos(micros * 1000)).thenReturn(done);
        }));
    }

    public Mono<ByteBuf> readRecord(long offset, int capacity) {
        return Mono.defer(() -> {
            Records.checkPlace(name, offset, 0, Long.MAX_VALUE);
            Mono<ByteBuf> attempt = capacity >= 0 ? readRecordOnce(offset, capacity) : readRecordTwice(offset);
            return attempt.retryWhen(tornRetries(offset));
        });
    }

    /** One Read of header and up to {@code capacity} octets (cut at the region's end), checked. */
    private Mono<ByteBuf> readRecordOnce(long offset, int capacity) {
        return op(RegionAccess.READ, offset, RecordLayout.HEADER, l -> {
            long length = Math.min(RecordLayout.HEADER + (long) capacity, l.remote().length() - offset);
            return l.session().read(l.remote().slice(offset, length)).handle(this::checked);
        }, Repeat.IF_LOST);
    }

    /** The header first, to learn the length, then header and payload in one Read, checked. */
    private Mono<ByteBuf> readRecordTwice(long offset) {
        return op(RegionAccess.READ, offset, RecordLayout.HEADER, l -> l.session()
                .read(l.remote().slice(offset, RecordLayout.HEADER))
                .handle((header, sink) -> {
                    long version = header.getLong(header.readerIndex() + RecordLayout.VERSION);
                    int length = header.getInt(header.readerIndex() + RecordLayout.LENGTH);
                    if ((version & 1) != 0 || length < 0
                            || offset + RecordLayout.HEADER + (long) length > l.remote().length()) {
                        sink.error(TORN);
                    } else {
                        sink.next(length);
                    }
                })
                .flatMap(length -> l.session().read(l.remote().slice(offset, RecordLayout.HEADER + (int) length))
                        .handle(this::checked)), Repeat.IF_LOST);
    }

    /** Emits the payload of a consistent record (a slice of the library's buffer), or fails the attempt. */
    private void checked(ByteBuf record, reactor.core.publisher.SynchronousSink<ByteBuf> sink) {
        int length = Records.verify(record);
        if (length < 0) {
            sink.error(TORN);
        } else {
            sink.next(record.slice(record.readerIndex() + RecordLayout.HEADER, length));
        }
    }

    public Mono<Void> writeRecord(long offset, ByteBuf payload) {
        int length = payload.readableBytes();
        return Mono.defer(() -> {
            Records.checkPlace(name, offset, length, Long.MAX_VALUE);
            // Take the lock: an even version made odd by Compare-and-Swap (retried while another writer holds it).
            Mono<Long> lock = getLong(offset)
                    .flatMap(version -> (version & 1) != 0 ? Mono.error(TORN)
                            : compareAndSwap(offset, version, version + 1)
                                    .flatMap(before -> before.longValue() == version.longValue() ? Mono.just(version)
                                            : Mono.error(TORN)))
                    .retryWhen(tornRetries(offset));
            return lock.flatMap(version -> {
                ByteBuf body = ByteBufAllocator.DEFAULT.directBuffer(8 + length);
                body.writeInt(length).writeInt(Records.checksum(version + 2, length, payload, payload.readerIndex()));
                body.writeBytes(payload, payload.readerIndex(), length);
                return write(offset + RecordLayout.LENGTH, body)
                        .then(compareAndSwap(offset, version + 1, version + 2))
                        .flatMap(before -> before == version + 1 ? Mono.<Void>empty()
                                : Mono.error(new RemoteMemoryException(name, "the lock of the record at " + offset
                                        + " of region '" + name + "' was taken from this writer (version " + before
                                        + ", expected " + (version + 1) + "): something wrote the record outside"
                                        + " the record protocol")));
            });
        }).doFinally(s -> payload.release());
    }

    public <T> Mono<T> readValue(long offset, Class<T> type) {
        return readRecord(offset, -1).map(b -> settings.codec().decode(b, type));
    }

    public Mono<Void> writeValue(long offset, Object value) {
        return Mono.defer(() -> writeRecord(offset, settings.codec().encode(value, ByteBufAllocator.DEFAULT)));
    }

    @Override
    public String toString() {
        ClientLease l = lease;
        return name + " on " + HashRing.name(link.address()) + (l != null ? " " + l.remote() + " " + l.rights()
                : " (not resolved)");
    }
}
