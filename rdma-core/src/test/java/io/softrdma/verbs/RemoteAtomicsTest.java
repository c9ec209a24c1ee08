package io.softrdma.verbs;

import static org.assertj.core.api.Assertions.assertThat;

import io.softrdma.rdmap.AtomicOperation;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * RFC 7306 §5.1 atomics on memory: the word is in network byte order, every operation on one word is atomic
 * with respect to every other (§5.3), and only an aligned word of direct memory is operated on (§5.1.1, §5.1.2).
 */
class RemoteAtomicsTest {

    private static final ExecutorService POOL = Executors.newFixedThreadPool(4);

    @AfterAll
    static void stopPool() {
        POOL.shutdownNow();
    }

    /** How the test reaches a word: the buffer and its index. */
    record Word(String name, ByteBuffer memory, int index) {
        @Override
        public String toString() {
            return name;
        }

        long get() {
            return memory.duplicate().order(ByteOrder.BIG_ENDIAN).getLong(index);
        }

        void set(long value) {
            memory.duplicate().order(ByteOrder.BIG_ENDIAN).putLong(index, value);
        }

        long apply(AtomicOperation op, long addOrSwapData, long addOrSwapMask, long compareData, long compareMask) {
            return RemoteAtomics.apply(memory, index, op, addOrSwapData, addOrSwapMask, compareData, compareMask);
        }

        long fetchAdd(long delta) {
            return apply(AtomicOperation.FETCH_ADD, delta, 0, 0, 0);
        }

        long compareAndSwap(long expect, long update) {
            return apply(AtomicOperation.COMPARE_AND_SWAP, update, -1L, expect, -1L);
        }
    }

    /** An index of a fresh direct buffer where an 8-octet word is naturally aligned (or, if not, misaligned). */
    private static int index(ByteBuffer direct, boolean aligned) {
        for (int i = 8; i < direct.capacity() - 16; i++) {
            if ((direct.alignmentOffset(i, Long.BYTES) == 0) == aligned) {
                return i;
            }
        }
        throw new AssertionError("no such index");
    }

    static Stream<Arguments> words() {
        return Stream.of(word("aligned direct"));
    }

    private static Arguments word(String name) {
        ByteBuffer memory = ByteBuffer.allocateDirect(64);
        int index = index(memory, true);
        assertThat(memory.alignmentOffset(index, Long.BYTES)).isZero();
        return Arguments.of(new Word(name, memory, index));
    }

    @Test
    void rfc7306Section5_1_1AWordAtAnUnalignedAddressIsRefusedAndNotModified() {
        // The receiver Terminates such a request first (§8.2); this is the last line: no lock-emulated update.
        ByteBuffer memory = ByteBuffer.allocateDirect(64);
        for (int i = 0; i < 64; i++) {
            memory.put(i, (byte) 0xEE);
        }
        int index = index(memory, false);
        for (AtomicOperation op : AtomicOperation.values()) {
            org.assertj.core.api.Assertions.assertThatThrownBy(() -> RemoteAtomics.apply(memory, index, op, 1, 0, 0xEE,
                    -1L)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("aligned");
        }
        for (int i = 0; i < 64; i++) {
            assertThat(memory.get(i)).as("octet %d", i).isEqualTo((byte) 0xEE);
        }
    }

    @Test
    void heapMemoryIsRefused() {
        // Registration takes direct memory only; a heap word has no address whose alignment is stable to rely on.
        ByteBuffer heap = ByteBuffer.allocate(64);
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> RemoteAtomics.apply(heap, 8,
                AtomicOperation.FETCH_ADD, 1, 0, 0, -1L)).isInstanceOf(IllegalArgumentException.class);
        assertThat(heap.getLong(8)).isZero();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("words")
    void wordsAreBigEndianInMemory(Word word) {
        word.set(0);
        assertThat(word.fetchAdd(0x0102_0304_0506_0708L)).isZero();
        byte[] octets = new byte[8];
        word.memory().duplicate().position(word.index()).get(octets);
        assertThat(octets).containsExactly(1, 2, 3, 4, 5, 6, 7, 8);
        assertThat(word.get()).isEqualTo(0x0102_0304_0506_0708L);

        assertThat(word.compareAndSwap(0x0102_0304_0506_0708L, 0x1122_3344_5566_7788L))
                .isEqualTo(0x0102_0304_0506_0708L);
        word.memory().duplicate().position(word.index()).get(octets);
        assertThat(octets).containsExactly(0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("words")
    void wordsAreBigEndianWhateverTheBuffersByteOrder(Word word) {
        word.memory().order(ByteOrder.LITTLE_ENDIAN);
        word.set(0);
        word.fetchAdd(0x0102_0304_0506_0708L);
        assertThat(word.get()).isEqualTo(0x0102_0304_0506_0708L);
        assertThat(word.memory().get(word.index())).as("most significant octet first").isEqualTo((byte) 1);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("words")
    void neighbouringOctetsAreNotTouched(Word word) {
        ByteBuffer all = word.memory().duplicate();
        for (int i = 0; i < all.capacity(); i++) {
            all.put(i, (byte) 0xEE);
        }
        word.set(0);
        word.fetchAdd(-1L);
        word.compareAndSwap(-1L, 0x5555_5555_5555_5555L);
        word.apply(AtomicOperation.FETCH_ADD, 0x0101_0101_0101_0101L, 0x8080_8080_8080_8080L, 0, 0);
        for (int i = 0; i < all.capacity(); i++) {
            if (i < word.index() || i >= word.index() + 8) {
                assertThat(all.get(i)).as("octet %d", i).isEqualTo((byte) 0xEE);
            }
        }
        assertThat(word.get()).isEqualTo(0x5656_5656_5656_5656L);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("words")
    void rfc7306Section5_1_1FetchAddReturnsTheOriginalAndStoresTheSum(Word word) {
        word.set(40);
        assertThat(word.fetchAdd(2)).isEqualTo(40);
        assertThat(word.get()).isEqualTo(42);
        word.set(-1L);
        assertThat(word.fetchAdd(1)).isEqualTo(-1L);
        assertThat(word.get()).as("wraps modulo 2^64").isZero();
        assertThat(word.fetchAdd(0)).as("an add of zero is a read").isZero();
        assertThat(word.get()).isZero();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("words")
    void rfc7306Section5_1_1MaskedFetchAddDropsTheCarryOutOfEachFieldEnd(Word word) {
        word.set(0x0000_0001_FFFF_FFFFL);
        assertThat(word.apply(AtomicOperation.FETCH_ADD, 1, 0x8000_0000_8000_0000L, 0, 0))
                .isEqualTo(0x0000_0001_FFFF_FFFFL);
        assertThat(word.get()).isEqualTo(0x0000_0001_0000_0000L);
        word.set(0xFF00_FF00_FF00_FF00L);
        word.apply(AtomicOperation.FETCH_ADD, 0x0101_0101_0101_0101L, 0x8080_8080_8080_8080L, 0, 0);
        assertThat(word.get()).isEqualTo(0x0001_0001_0001_0001L);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("words")
    void rfc7306Section5_1_2CompareAndSwapSwapsOnlyOnAMatch(Word word) {
        word.set(42);
        assertThat(word.compareAndSwap(42, 100)).isEqualTo(42);
        assertThat(word.get()).isEqualTo(100);
        assertThat(word.compareAndSwap(42, 7)).as("the original tells the requester it failed").isEqualTo(100);
        assertThat(word.get()).isEqualTo(100);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("words")
    void rfc7306Section5_1_2MaskedCompareAndSwapComparesAndSwapsOnlyTheMaskedBits(Word word) {
        word.set(0x1122_3344_5566_7788L);
        // Compare bits 32..47 only (0x3344), swap the low 16 bits only.
        assertThat(word.apply(AtomicOperation.COMPARE_AND_SWAP, 0xAAAA_AAAA_AAAA_AAAAL, 0xFFFFL,
                0xEEEE_3344_EEEE_EEEEL, 0x0000_FFFF_0000_0000L)).isEqualTo(0x1122_3344_5566_7788L);
        assertThat(word.get()).isEqualTo(0x1122_3344_5566_AAAAL);
        assertThat(word.apply(AtomicOperation.COMPARE_AND_SWAP, 0, -1L, 0xEEEE_3345_EEEE_EEEEL,
                0x0000_FFFF_0000_0000L)).isEqualTo(0x1122_3344_5566_AAAAL);
        assertThat(word.get()).as("one compared bit differed").isEqualTo(0x1122_3344_5566_AAAAL);
    }

    @Test
    void theLockFreePathsAgreeWithTheArithmeticOnRandomOperations() {
        // Plain add, plain compare-and-exchange, and the retry loop for the masked forms: each must give the word
        // AtomicOperation.apply computes (which AtomicOperationTest checks against the RFC's pseudocode).
        ByteBuffer memory = ByteBuffer.allocateDirect(64);
        Word aligned = new Word("aligned", memory, index(memory, true));
        java.util.SplittableRandom random = new java.util.SplittableRandom(7306);
        for (int i = 0; i < 5_000; i++) {
            long start = random.nextLong();
            aligned.set(start);
            AtomicOperation op = random.nextBoolean() ? AtomicOperation.FETCH_ADD : AtomicOperation.COMPARE_AND_SWAP;
            long data = random.nextLong();
            long mask = switch (random.nextInt(3)) {
                case 0 -> 0;
                case 1 -> -1L;
                default -> random.nextLong();
            };
            // Half the compares are made to match, or Compare-and-Swap would almost never swap.
            long compare = random.nextBoolean() ? start : random.nextLong();
            long compareMask = random.nextBoolean() ? -1L : random.nextLong();
            long expected = op.apply(start, data, mask, compare, compareMask);
            assertThat(aligned.apply(op, data, mask, compare, compareMask)).isEqualTo(start);
            assertThat(aligned.get()).as("aligned %s", op).isEqualTo(expected);
        }
    }

    // ---- concurrency ----

    private static final int THREADS = 4;
    private static final int PER_THREAD = 50_000;

    static Stream<Arguments> sharedWords() {
        return Stream.of(word("aligned (lock-free)"));
    }

    /** Runs {@code task} on {@link #THREADS} threads released together, and returns what each returned. */
    private static List<long[]> race(java.util.function.IntFunction<long[]> task) throws Exception {
        CyclicBarrier start = new CyclicBarrier(THREADS);
        List<Future<long[]>> futures = new ArrayList<>();
        for (int t = 0; t < THREADS; t++) {
            int thread = t;
            futures.add(POOL.submit(() -> {
                start.await(5, TimeUnit.SECONDS);
                return task.apply(thread);
            }));
        }
        List<long[]> results = new ArrayList<>();
        for (Future<long[]> f : futures) {
            results.add(f.get(10, TimeUnit.SECONDS));
        }
        return results;
    }

    /** Asserts that the values are exactly 0..n-1, each once: no two operations saw the same word. */
    private static void assertExactlyZeroTo(List<long[]> values, int n) {
        BitSet seen = new BitSet(n);
        int count = 0;
        for (long[] v : values) {
            for (long x : v) {
                assertThat(x).isBetween(0L, n - 1L);
                assertThat(seen.get((int) x)).as("original %d returned twice", x).isFalse();
                seen.set((int) x);
                count++;
            }
        }
        assertThat(count).isEqualTo(n);
        assertThat(seen.cardinality()).isEqualTo(n);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("sharedWords")
    void rfc7306Section5_3ConcurrentFetchAddsAreLinearizable(Word word) throws Exception {
        word.set(0);
        List<long[]> originals = race(t -> {
            long[] seen = new long[PER_THREAD];
            for (int i = 0; i < PER_THREAD; i++) {
                seen[i] = word.fetchAdd(1);
            }
            return seen;
        });
        assertThat(word.get()).isEqualTo((long) THREADS * PER_THREAD);
        assertExactlyZeroTo(originals, THREADS * PER_THREAD);
        for (long[] seen : originals) {
            // One thread's operations are in its program order, so it sees the counter only grow.
            assertThat(seen).isSorted();
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("sharedWords")
    void rfc7306Section5_3ConcurrentMaskedFetchAddsKeepEveryFieldExact(Word word) throws Exception {
        // Two 32-bit counters in one word: on an aligned word this is the compare-and-exchange retry loop.
        word.set(0);
        List<long[]> originals = race(t -> {
            long[] seen = new long[PER_THREAD];
            for (int i = 0; i < PER_THREAD; i++) {
                seen[i] = word.apply(AtomicOperation.FETCH_ADD, 0x0000_0001_0000_0001L, 0x8000_0000_8000_0000L, 0,
                        0) & 0xFFFF_FFFFL;
            }
            return seen;
        });
        long total = (long) THREADS * PER_THREAD;
        assertThat(word.get()).isEqualTo(total << 32 | total);
        assertExactlyZeroTo(originals, THREADS * PER_THREAD);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("sharedWords")
    void rfc7306Section5_3ConcurrentCompareAndSwapIncrementsLoseNoUpdate(Word word) throws Exception {
        word.set(0);
        int perThread = PER_THREAD / 2;
        List<long[]> successes = race(t -> {
            long[] won = new long[perThread];
            // Compare-and-Swap of 0 with 0 reads the word without changing it, as a remote requester would.
            long expect = word.compareAndSwap(0, 0);
            for (int n = 0; n < perThread; ) {
                long original = word.compareAndSwap(expect, expect + 1);
                if (original == expect) {
                    won[n++] = original;
                    expect = original + 1;
                } else {
                    expect = original;
                }
            }
            return won;
        });
        assertThat(word.get()).isEqualTo((long) THREADS * perThread);
        assertExactlyZeroTo(successes, THREADS * perThread);
    }

    @Test
    void rfc7306Section5_3FetchAddsThroughTwoViewsOfOneWordAreAtomic() throws Exception {
        // Two regions over the same memory make two ByteBuffers, one a slice that starts 3 octets in (so the word
        // has another index there), but the word is the same, and so is the CPU's compare-and-swap on it.
        ByteBuffer memory = ByteBuffer.allocateDirect(64);
        int index = index(memory, true);
        Word a = new Word("view a", memory.duplicate(), index);
        Word b = new Word("view b", memory.duplicate().position(3).slice(), index - 3);
        a.set(0);
        List<long[]> originals = race(t -> {
            Word w = t % 2 == 0 ? a : b;
            long[] seen = new long[PER_THREAD];
            for (int i = 0; i < PER_THREAD; i++) {
                seen[i] = w.fetchAdd(1);
            }
            return seen;
        });
        assertThat(a.get()).isEqualTo((long) THREADS * PER_THREAD);
        assertExactlyZeroTo(originals, THREADS * PER_THREAD);
    }
}
