package io.softrdma.memory.cache.internal;

import static io.softrdma.memory.cache.internal.TableLayout.BUCKET_SIZE;
import static io.softrdma.memory.cache.internal.TableLayout.SLOTS;

import io.netty.buffer.ByteBuf;
import java.util.function.Function;
import java.util.function.LongSupplier;
import org.reactivestreams.Subscription;
import reactor.core.CoreSubscriber;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Operators;

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
 * <p>Why a hand-written operator ({@link Lookup}) and not a chain of Reactor operators: a GET is a small state
 * machine (hint, bucket, entries, again from the bucket) on the cache's hottest path, and as {@code defer}, {@code
 * map}, {@code flatMap}, {@code onErrorResume} and {@code retryWhen} (a processor per subscription) it cost several
 * times the client CPU of the RDMA Read it wraps (docs/benchmarks.md, "Issue 19: the GET path").
 *
 * <p>Why this class is long: the operator's states and the checks each Read's answer gets (bucket: checksum, table,
 * slots; entry: checksum, stamp, hash, key, LIVE, expiry) are one concern, the Pilaf-style lookup, and split apart
 * they would share the run's state through fields of several classes.
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

        /** A lookup answered by itself (a value, or absent), without asking the owner. */
        default void answered() {
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
     * Each subscription issues its own Reads.
     *
     * @param hint where the key's entry was found last ({@link #location}), or 0
     */
    public static <T> Mono<T> lookup(Reader reader, TableLayout layout, ByteBuf key, long hint, LongSupplier clock,
                                     Function<ByteBuf, T> decode, int maxRetries, Listener listener) {
        return lookup(reader, layout, key, KeyHash.of(key), hint, clock, decode, maxRetries, listener);
    }

    /**
     * As {@link #lookup(Reader, TableLayout, ByteBuf, long, LongSupplier, Function, int, Listener)}, for a caller that
     * has the key's hash ({@link KeyHash#of}) already, having used it to find the hint.
     */
    public static <T> Mono<T> lookup(Reader reader, TableLayout layout, ByteBuf key, long hash, long hint,
                                     LongSupplier clock, Function<ByteBuf, T> decode, int maxRetries,
                                     Listener listener) {
        return new Lookup<>(reader, layout, key, hash, hint, clock, decode, maxRetries, listener);
    }

    /** The lookup's parameters; each subscriber gets a {@link Run} of its own. */
    private static final class Lookup<T> extends Mono<T> {
        final Reader reader;
        final TableLayout layout;
        final ByteBuf key;
        final long hash;
        final int bucketOffset;
        final int tag;
        final long hintOffset;
        final int hintLength;
        final boolean hinted;
        final LongSupplier clock;
        final Function<ByteBuf, T> decode;
        final int maxRetries;
        final Listener listener;

        Lookup(Reader reader, TableLayout layout, ByteBuf key, long hash, long hint, LongSupplier clock,
               Function<ByteBuf, T> decode, int maxRetries, Listener listener) {
            this.reader = reader;
            this.layout = layout;
            this.key = key;
            this.hash = hash;
            this.bucketOffset = layout.bucketOffset(KeyHash.bucket(hash, layout.bucketCount()));
            this.tag = KeyHash.tag(hash);
            this.hintOffset = hint >>> 32;
            this.hintLength = (int) hint;
            this.hinted = hint != 0 && layout.inLog(hintOffset, hintLength);
            this.clock = clock;
            this.decode = decode;
            this.maxRetries = maxRetries;
            this.listener = listener;
        }

        @Override
        public void subscribe(CoreSubscriber<? super T> actual) {
            Run<T> run = new Run<>(this, actual);
            actual.onSubscribe(run);
            run.start();
        }
    }

    /**
     * One lookup: it subscribes to its Reads one after another, itself their subscriber. A Read's buffer is judged in
     * {@code onNext} (it is valid only then) and the verdict acted on in {@code onComplete}, so the next Read is
     * subscribed only once the last has ended. Signals of one Read are serial and Reads do not overlap, so the fields
     * need no synchronisation; {@link #cancel} may come from any thread and only touches the volatile ones.
     */
    private static final class Run<T> extends Operators.MonoSubscriber<ByteBuf, T> {
        private static final int HINT = 0;
        private static final int BUCKET = 1;
        private static final int ENTRY = 2;

        private final Lookup<T> q;
        /**
         * The slots with the key's tag in the bucket last read: offset, length and stamp of each. Made when a bucket
         * is read: a GET its hint answers needs none.
         */
        private long[] slotOffsets;
        private int[] slotLengths;
        private int[] slotStamps;
        private int slotCount;
        private int slot;
        private int stage;
        private int retriesLeft;
        /** The verdict of the Read that is ending: what onComplete does. */
        private Next next;
        private T found;
        private Throwable failure;
        private volatile Subscription read;

        private enum Next { READ_BUCKET, READ_ENTRY, ANSWER, RETRY, FAIL }

        Run(Lookup<T> q, CoreSubscriber<? super T> actual) {
            super(actual);
            this.q = q;
            this.retriesLeft = q.maxRetries;
        }

        void start() {
            if (q.hinted) {
                stage = HINT;
                issue(q.hintOffset, q.hintLength);
            } else {
                readBucket();
            }
        }

        private void readBucket() {
            stage = BUCKET;
            issue(q.bucketOffset, BUCKET_SIZE);
        }

        private void readEntry() {
            stage = ENTRY;
            issue(slotOffsets[slot], slotLengths[slot]);
        }

        private void issue(long offset, int length) {
            if (isCancelled()) {
                return;
            }
            next = null;
            Mono<ByteBuf> source;
            try {
                source = q.reader.read(offset, length);
            } catch (RuntimeException e) {
                onError(e);
                return;
            }
            source.subscribe(this);
        }

        @Override
        public void onSubscribe(Subscription s) {
            read = s;
            if (isCancelled()) {
                s.cancel();
            } else {
                s.request(Long.MAX_VALUE);
            }
        }

        @Override
        public void onNext(ByteBuf data) {
            if (isCancelled()) {
                return; // the reader releases it
            }
            try {
                switch (stage) {
                    case HINT -> judgeHint(data);
                    case BUCKET -> judgeBucket(data);
                    default -> judgeEntry(data);
                }
            } catch (TornReadException e) {
                failure = e;
                next = Next.RETRY;
            } catch (RuntimeException e) {
                failure = e;
                next = Next.FAIL;
            }
        }

        private void judgeHint(ByteBuf entry) {
            Guess<T> g = guess(entry, q.hintLength, q.hash, q.key, q.clock, q.decode);
            if (g.usable) {
                found = g.verdict.value;
                next = Next.ANSWER;
            } else {
                next = Next.READ_BUCKET;
            }
        }

        private void judgeBucket(ByteBuf bucket) {
            if (slotOffsets == null) {
                slotOffsets = new long[SLOTS];
                slotLengths = new int[SLOTS];
                slotStamps = new int[SLOTS];
            }
            slotCount = candidates(bucket, q.layout, q.tag, slotOffsets, slotLengths, slotStamps);
            slot = 0;
            if (slotCount == 0) {
                q.listener.located(q.hash, 0);
                next = Next.ANSWER;
            } else {
                next = Next.READ_ENTRY;
            }
        }

        private void judgeEntry(ByteBuf entry) {
            Verdict<T> v = verdict(entry, slotLengths[slot], slotStamps[slot], q.hash, q.key, q.clock, q.decode);
            if (v.matched) {
                q.listener.located(q.hash, location(slotOffsets[slot], slotLengths[slot]));
                found = v.value;
                next = Next.ANSWER;
            } else if (++slot < slotCount) {
                next = Next.READ_ENTRY;
            } else {
                q.listener.located(q.hash, 0);
                next = Next.ANSWER;
            }
        }

        @Override
        public void onError(Throwable e) {
            if (stage == HINT && e instanceof IllegalArgumentException) {
                // a hint outside a region smaller than it was (a new owner): no guess, the bucket decides
                readBucket();
                return;
            }
            finish(e);
        }

        @Override
        public void onComplete() {
            Next n = next;
            next = null;
            if (n == null) {
                finish(new TornReadException(stage == BUCKET ? "bucket (no data)" : "entry (no data)"));
                return;
            }
            switch (n) {
                case READ_BUCKET -> readBucket();
                case READ_ENTRY -> readEntry();
                case ANSWER -> answer();
                case RETRY -> {
                    if (retriesLeft-- > 0) {
                        q.listener.retried();
                        readBucket();
                    } else {
                        finish(failure);
                    }
                }
                default -> finish(failure);
            }
        }

        private void answer() {
            q.listener.answered();
            T value = found;
            found = null;
            if (isCancelled()) {
                return; // cancelled after the last Read was judged: no signal (a value is plain data, not released)
            }
            if (value == null) {
                actual.onComplete();
            } else {
                complete(value);
            }
        }

        private void finish(Throwable e) {
            if (!isCancelled()) {
                actual.onError(e);
            }
        }

        @Override
        public void cancel() {
            super.cancel();
            Subscription s = read;
            if (s != null) {
                s.cancel();
            }
        }
    }

    @SuppressWarnings("unchecked")
    private static <T> Guess<T> unusable() {
        return (Guess<T>) Guess.UNUSABLE;
    }

    /**
     * Fills the arrays with the slots carrying {@code tag} in {@code bucket}, checked, and says how many there are.
     *
     * @throws TornReadException if the bucket fails its checks (read again)
     * @throws StaleLayoutException if the bucket belongs to another table than {@code layout}'s
     */
    private static int candidates(ByteBuf bucket, TableLayout layout, int tag, long[] offsets, int[] lengths,
                                  int[] stamps) {
        int base = bucket.readerIndex();
        if (bucket.readableBytes() < BUCKET_SIZE) {
            throw new TornReadException("bucket (short read)");
        }
        Buckets.verify(bucket, base);
        if (Buckets.tableId(bucket, base) != layout.tableId()) {
            throw new StaleLayoutException(layout.tableId(), Buckets.tableId(bucket, base));
        }
        int n = 0;
        for (int s = 0; s < SLOTS; s++) {
            if (Buckets.tag(bucket, base, s) == tag) {
                long offset = Buckets.entryOffset(bucket, base, s);
                int length = Buckets.entryLength(bucket, base, s);
                if (!layout.inLog(offset, length)) {
                    // The checksum matched a slot outside the log: a format change (clear) raced the read.
                    throw new TornReadException("bucket slot");
                }
                offsets[n] = offset;
                lengths[n] = length;
                stamps[n] = Buckets.stamp(bucket, base, s);
                n++;
            }
        }
        return n;
    }

    private static <T> Verdict<T> verdict(ByteBuf entry, int length, int stamp, long hash, ByteBuf key,
                                          LongSupplier clock, Function<ByteBuf, T> decode) {
        int at = entry.readerIndex();
        if (entry.readableBytes() != length) {
            throw new TornReadException("entry (short read)");
        }
        Entries.verify(entry, at, length, hash, stamp);
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
