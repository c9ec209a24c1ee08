package io.softrdma.memory.cache.internal;

import static io.softrdma.memory.cache.internal.TableLayout.BUCKET_SIZE;
import static io.softrdma.memory.cache.internal.TableLayout.SLOTS;

import io.netty.buffer.ByteBuf;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import java.util.function.LongSupplier;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.util.retry.Retry;

/**
 * A GET done by the client alone, Pilaf-style: an RDMA Read of the key's bucket, checked against its checksum, then an
 * RDMA Read of each entry whose slot carries the key's tag, checked against its checksum, hash and key. A check that
 * fails means the owner changed what was being read; the lookup starts again from the bucket, up to a bound, after
 * which the caller asks the owner instead (a GET never waits on a writer and never returns a torn value).
 *
 * <p>Thread safety: stateless; the key buffer must stay valid (not released) until the returned Mono terminates.
 */
public final class OneSidedGet {
    /** RDMA Reads of the cache region: the buffer emitted is the reader's and valid only during onNext. */
    @FunctionalInterface
    public interface Reader {
        Mono<ByteBuf> read(long offset, int length);
    }

    /** What one lookup attempt saw. */
    public interface Listener {
        /** A retry after a torn or stale read. */
        void retried();
    }

    private record Slot(long offset, int length) {
    }

    /** An entry's verdict: its value decoded, or absent (expired), or not this key (a tag collision). */
    private record Verdict<T>(T value, boolean matched) {
    }

    private OneSidedGet() {
    }

    /**
     * The value of {@code key} decoded by {@code decode} (given a view valid only during the call), or empty when the
     * table has no live entry for it; {@link TornReadException} when {@code maxRetries} retries all saw changes.
     */
    public static <T> Mono<T> lookup(Reader reader, TableLayout layout, ByteBuf key, LongSupplier clock,
                                     Function<ByteBuf, T> decode, int maxRetries, Listener listener) {
        long hash = KeyHash.of(key);
        int bucketOffset = layout.bucketOffset(KeyHash.bucket(hash, layout.bucketCount()));
        int tag = KeyHash.tag(hash);
        // Assembled anew for every attempt: a retry must issue new Reads, not resubscribe to the old ones.
        return Mono.defer(() -> reader.read(bucketOffset, BUCKET_SIZE)
                .map(bucket -> candidates(bucket, layout, tag))
                .flatMapMany(Flux::fromIterable)
                .concatMap(slot -> reader.read(slot.offset, slot.length)
                        .map(entry -> verdict(entry, slot.length, hash, key, clock, decode)))
                .filter(Verdict::matched)
                .next()
                .flatMap(v -> Mono.justOrEmpty(v.value)))
                .retryWhen(Retry.max(maxRetries)
                        .filter(TornReadException.class::isInstance)
                        .doBeforeRetry(signal -> listener.retried())
                        .onRetryExhaustedThrow((spec, signal) -> signal.failure()));
    }

    private static List<Slot> candidates(ByteBuf bucket, TableLayout layout, int tag) {
        int base = bucket.readerIndex();
        if (bucket.readableBytes() < BUCKET_SIZE) {
            throw new TornReadException("bucket (short read)");
        }
        Buckets.verify(bucket, base);
        List<Slot> slots = new ArrayList<>(1);
        for (int s = 0; s < SLOTS; s++) {
            if (Buckets.tag(bucket, base, s) == tag) {
                long offset = Buckets.entryOffset(bucket, base, s);
                int length = Buckets.entryLength(bucket, base, s);
                if (!layout.inLog(offset, length)) {
                    // The checksum matched a slot outside the log: a format change (clear) raced the read.
                    throw new TornReadException("bucket slot");
                }
                slots.add(new Slot(offset, length));
            }
        }
        return slots;
    }

    private static <T> Verdict<T> verdict(ByteBuf entry, int length, long hash, ByteBuf key, LongSupplier clock,
                                          Function<ByteBuf, T> decode) {
        int at = entry.readerIndex();
        if (entry.readableBytes() != length) {
            throw new TornReadException("entry (short read)");
        }
        Entries.verify(entry, at, length, hash);
        if (!Entries.keyEquals(entry, at, key)) {
            return new Verdict<>(null, false);
        }
        if (Entries.expired(entry, at, clock.getAsLong())) {
            return new Verdict<>(null, true);
        }
        return new Verdict<>(decode.apply(Entries.value(entry, at)), true);
    }
}
