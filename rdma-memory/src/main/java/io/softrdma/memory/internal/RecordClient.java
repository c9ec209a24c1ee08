package io.softrdma.memory.internal;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.softrdma.memory.RecordLayout;
import io.softrdma.memory.RegionAccess;
import io.softrdma.memory.RemoteMemoryException;
import io.softrdma.memory.TornRecordException;
import java.time.Duration;
import java.util.concurrent.atomic.LongAdder;
import reactor.core.publisher.Mono;
import reactor.core.publisher.SynchronousSink;
import reactor.util.retry.Retry;

/**
 * The client's side of versioned records (docs/protocol.md, "Versioned records"), over one region's operations: a
 * read that checks and retries, a write that takes the record's lock with Compare-and-Swap.
 *
 * <p>Thread safety: stateless but for a JVM-wide counter; any thread.
 */
final class RecordClient {
    /** Record attempts made at once before backing off: a writer holds a record for about one round trip. */
    private static final int EAGER_ATTEMPTS = 16;

    /** One attempt found the record torn or locked: retried, never surfaced. */
    static final class TornAttempt extends RuntimeException {
        private static final long serialVersionUID = 1L;

        TornAttempt() {
            super("torn", null, false, false);
        }
    }

    private static final TornAttempt TORN = new TornAttempt();
    /** Torn or locked record attempts seen by every client in this JVM, retried (for tests and metrics). */
    private static final LongAdder TORN_ATTEMPTS = new LongAdder();

    private final RegionClient region;
    private final String name;
    private final int attempts;

    RecordClient(RegionClient region, int attempts) {
        this.region = region;
        this.name = region.name();
        this.attempts = attempts;
    }

    /** How many record reads and lock attempts found a record torn or locked, and were retried, so far. */
    static long tornAttempts() {
        return TORN_ATTEMPTS.sum();
    }

    /** Retries torn attempts: {@link #EAGER_ATTEMPTS} at once, then backing off from 10 µs to 1 ms. */
    private Retry tornRetries(long offset) {
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

    /** The payload of the record at {@code offset}; {@code capacity} -1 when unknown (then two Reads an attempt). */
    Mono<ByteBuf> read(long offset, int capacity) {
        return Mono.defer(() -> {
            Records.checkPlace(name, offset, 0, Long.MAX_VALUE);
            Mono<ByteBuf> attempt = capacity >= 0 ? readOnce(offset, capacity) : readTwice(offset);
            return attempt.retryWhen(tornRetries(offset));
        });
    }

    /** One Read of header and up to {@code capacity} octets (cut at the region's end), checked. */
    private Mono<ByteBuf> readOnce(long offset, int capacity) {
        return region.op(RegionAccess.READ, offset, RecordLayout.HEADER, l -> {
            long length = Math.min(RecordLayout.HEADER + (long) capacity, l.remote().length() - offset);
            return l.session().read(l.remote().slice(offset, length)).handle(RecordClient::checked);
        }, RegionClient.Repeat.IF_LOST);
    }

    /** The header first, to learn the length, then header and payload in one Read, checked. */
    private Mono<ByteBuf> readTwice(long offset) {
        return region.op(RegionAccess.READ, offset, RecordLayout.HEADER, l -> l.session()
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
                        .handle(RecordClient::checked)), RegionClient.Repeat.IF_LOST);
    }

    /** Emits the payload of a consistent record (a slice of the library's buffer), or fails the attempt. */
    private static void checked(ByteBuf record, SynchronousSink<ByteBuf> sink) {
        int length = Records.verify(record);
        if (length < 0) {
            sink.error(TORN);
        } else {
            sink.next(record.slice(record.readerIndex() + RecordLayout.HEADER, length));
        }
    }

    /**
     * Writes {@code payload} as the record at {@code offset} under its lock; releases {@code payload}. Once started,
     * the protocol runs to its end even if the subscriber cancels: a writer cancelled between taking the lock and
     * giving it back would leave the record locked for ever (and every reader failing), so cancelling only stops the
     * waiting.
     */
    Mono<Void> write(long offset, ByteBuf payload) {
        return Mono.defer(() -> Mono.fromFuture(locked(offset, payload).doFinally(s -> payload.release()).toFuture(),
                true));
    }

    private Mono<Void> locked(long offset, ByteBuf payload) {
        int length = payload.readableBytes();
        return Mono.defer(() -> {
            Records.checkPlace(name, offset, length, Long.MAX_VALUE);
            // Take the lock: an even version made odd by Compare-and-Swap (retried while another writer holds it).
            // The versions are compared as primitives: boxed Longs above 127 are distinct objects.
            Mono<Long> lock = region.getLong(offset)
                    .flatMap(version -> (version & 1) != 0 ? Mono.error(TORN)
                            : region.compareAndSwap(offset, version, version + 1)
                                    .flatMap(before -> before.longValue() == version.longValue() ? Mono.just(version)
                                            : Mono.error(TORN)))
                    .retryWhen(tornRetries(offset));
            return lock.flatMap(version -> {
                ByteBuf body = ByteBufAllocator.DEFAULT.directBuffer(8 + length);
                body.writeInt(length).writeInt(Records.checksum(version + 2, length, payload, payload.readerIndex()));
                body.writeBytes(payload, payload.readerIndex(), length);
                return region.write(offset + RecordLayout.LENGTH, body)
                        .then(region.compareAndSwap(offset, version + 1, version + 2))
                        .flatMap(before -> before == version + 1 ? Mono.<Void>empty()
                                : Mono.error(new RemoteMemoryException(name, "the lock of the record at " + offset
                                        + " of region '" + name + "' was taken from this writer (version " + before
                                        + ", expected " + (version + 1) + "): something wrote the record outside"
                                        + " the record protocol")));
            });
        });
    }
}
