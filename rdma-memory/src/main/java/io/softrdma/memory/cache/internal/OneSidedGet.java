package io.softrdma.memory.cache.internal;

import static io.softrdma.memory.cache.internal.TableLayout.BUCKET_SIZE;
import static io.softrdma.memory.cache.internal.TableLayout.SLOTS;

import io.netty.buffer.ByteBuf;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import java.util.function.LongSupplier;
import reactor.core.publisher.Mono;
import reactor.util.retry.Retry;

/**
 * A GET done by the client alone, Pilaf-style: an RDMA Read of the key's bucket, checked against its checksum, then an
 * RDMA Read of each entry whose slot carries the key's tag, checked against its checksum, stamp, hash and key. A check
 * that fails means the owner changed what was being read; the lookup starts again from the bucket, up to a bound,
 * after which the caller asks the owner instead (a GET never waits on a writer and never returns a torn value).
 *
 * <p>With a location hint (where the key's entry was last time) the entry alone is read first: if it is intact, the
 * key's and LIVE (the owner marks an entry DEAD before it answers the request that replaced or removed it), it is the
 * value, in one Read; otherwise the GET goes through the bucket. A GET of an unchanged key costs one Read, not two.
 *
 * <p>Thread safety: stateless; the key buffer must stay valid (not released) until the returned Mono terminates.
 */
public final class OneSidedGet {
    /** RDMA Reads of the cache region: the buffer emitted is the reader's and valid only during onNext. */
    @FunctionalInterface
    public interface Reader {
        Mono<ByteBuf> read(long offset, int length);
    }

    /** What lookups saw. */
    public interface Listener {
        /** A retry after a torn or stale read. */
        void retried();

        /** Where the key's entry is (a location for {@link #lookup}'s hint), or 0 if the key has none. */
        default void located(long hash, long location) {
        }
    }

    private record Slot(long offset, int length, int stamp) {
        long location() {
            return OneSidedGet.location(offset, length);
        }
    }

    /** An entry's verdict: its value decoded, or absent (expired), or not this key (a tag collision). */
    private record Verdict<T>(T value, boolean matched) {
    }

    /** A hinted entry as read: whether it is intact, the key's and LIVE, and what it says. */
    private record Guess<T>(boolean usable, Verdict<T> verdict) {
        static final Guess<?> UNUSABLE = new Guess<>(false, null);
    }

    private OneSidedGet() {
    }

    /** A location as a hint: entry offset (below 2^31) and length, packed; never 0. */
    public static long location(long offset, int length) {
        return offset << 32 | (length & 0xffffffffL);
    }

    /**
     * The value of {@code key} decoded by {@code decode} (given a view valid only during the call), or empty when the
     * table has no live entry for it; {@link TornReadException} when {@code maxRetries} retries all saw changes.
     *
     * @param hint where the key's entry was found last ({@link #location}), or 0
     */
    public static <T> Mono<T> lookup(Reader reader, TableLayout layout, ByteBuf key, long hint, LongSupplier clock,
                                     Function<ByteBuf, T> decode, int maxRetries, Listener listener) {
        long hash = KeyHash.of(key);
        int bucketOffset = layout.bucketOffset(KeyHash.bucket(hash, layout.bucketCount()));
        int tag = KeyHash.tag(hash);
        long hintOffset = hint >>> 32;
        int hintLength = (int) hint;
        boolean hinted = hint != 0 && layout.inLog(hintOffset, hintLength);
        // Assembled anew for every attempt: a retry must issue new Reads, not resubscribe to the old ones.
        Mono<T> throughBucket = Mono.defer(() -> reader.read(bucketOffset, BUCKET_SIZE)
                        .map(b -> candidates(b, layout, tag))
                        .flatMap(slots -> entry(reader, slots, 0, hash, key, clock, decode, listener)))
                .retryWhen(Retry.max(maxRetries)
                        .filter(TornReadException.class::isInstance)
                        .doBeforeRetry(signal -> listener.retried())
                        .onRetryExhaustedThrow((spec, signal) -> signal.failure()));
        if (!hinted) {
            return throughBucket;
        }
        // The entry alone, where it was last time: if it is intact, the key's and LIVE, it is the key's current
        // value (see Entries); anything else, and the bucket decides.
        return reader.read(hintOffset, hintLength)
                .map(e -> guess(e, hintLength, hash, key, clock, decode))
                // a hint outside a region smaller than it was (a new owner): no guess
                .onErrorResume(IllegalArgumentException.class, e -> Mono.just(unusable()))
                .flatMap(g -> g.usable ? Mono.justOrEmpty(g.verdict.value) : throughBucket);
    }

    @SuppressWarnings("unchecked")
    private static <T> Guess<T> unusable() {
        return (Guess<T>) Guess.UNUSABLE;
    }

    /** Reads the slots' entries in turn until one holds the key (Mono only: one slot matches nearly always). */
    private static <T> Mono<T> entry(Reader reader, List<Slot> slots, int i, long hash, ByteBuf key,
                                     LongSupplier clock, Function<ByteBuf, T> decode, Listener listener) {
        if (i == slots.size()) {
            listener.located(hash, 0);
            return Mono.empty();
        }
        Slot slot = slots.get(i);
        return reader.read(slot.offset, slot.length)
                .map(entry -> verdict(entry, slot, hash, key, clock, decode))
                .flatMap(v -> {
                    if (v.matched) {
                        listener.located(hash, slot.location());
                        return Mono.justOrEmpty(v.value);
                    }
                    return entry(reader, slots, i + 1, hash, key, clock, decode, listener);
                });
    }

    private static List<Slot> candidates(ByteBuf bucket, TableLayout layout, int tag) {
        int base = bucket.readerIndex();
        if (bucket.readableBytes() < BUCKET_SIZE) {
            throw new TornReadException("bucket (short read)");
        }
        Buckets.verify(bucket, base);
        if (Buckets.tableId(bucket, base) != layout.tableId()) {
            throw new StaleLayoutException(layout.tableId(), Buckets.tableId(bucket, base));
        }
        List<Slot> slots = new ArrayList<>(1);
        for (int s = 0; s < SLOTS; s++) {
            if (Buckets.tag(bucket, base, s) == tag) {
                long offset = Buckets.entryOffset(bucket, base, s);
                int length = Buckets.entryLength(bucket, base, s);
                if (!layout.inLog(offset, length)) {
                    // The checksum matched a slot outside the log: a format change (clear) raced the read.
                    throw new TornReadException("bucket slot");
                }
                slots.add(new Slot(offset, length, Buckets.stamp(bucket, base, s)));
            }
        }
        return slots;
    }

    private static <T> Verdict<T> verdict(ByteBuf entry, Slot slot, long hash, ByteBuf key, LongSupplier clock,
                                          Function<ByteBuf, T> decode) {
        int at = entry.readerIndex();
        if (entry.readableBytes() != slot.length) {
            throw new TornReadException("entry (short read)");
        }
        Entries.verify(entry, at, slot.length, hash, slot.stamp);
        return decide(entry, at, key, clock, decode);
    }

    /** The hinted entry, judged without throwing: whatever is wrong with it, the bucket's path reads the right one. */
    private static <T> Guess<T> guess(ByteBuf entry, int length, long hash, ByteBuf key, LongSupplier clock,
                                      Function<ByteBuf, T> decode) {
        int at = entry.readerIndex();
        if (entry.readableBytes() != length || !Entries.intact(entry, at, length) || Entries.hash(entry, at) != hash
                || !Entries.keyEquals(entry, at, key) || Entries.state(entry, at) != Entries.LIVE) {
            return unusable();
        }
        return new Guess<>(true, decide(entry, at, key, clock, decode));
    }

    private static <T> Verdict<T> decide(ByteBuf entry, int at, ByteBuf key, LongSupplier clock,
                                         Function<ByteBuf, T> decode) {
        if (!Entries.keyEquals(entry, at, key)) {
            return new Verdict<>(null, false);
        }
        if (Entries.expired(entry, at, clock.getAsLong())) {
            return new Verdict<>(null, true);
        }
        return new Verdict<>(decode.apply(Entries.value(entry, at)), true);
    }
}
