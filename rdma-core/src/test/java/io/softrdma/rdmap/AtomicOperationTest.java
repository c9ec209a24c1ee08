package io.softrdma.rdmap;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The arithmetic of RFC 7306 §5.1's atomic operations, independent of any wire or memory. */
class AtomicOperationTest {

    /** Compare-and-Swap's masks when it is the plain form. */
    private static final long ALL = -1L;

    @Test
    void rfc7306Section10_1AtomicOpCodesAreZeroForFetchAddAndTwoForCompareAndSwap() {
        assertThat(AtomicOperation.fromCode(0)).isEqualTo(AtomicOperation.FETCH_ADD);
        assertThat(AtomicOperation.fromCode(2)).isEqualTo(AtomicOperation.COMPARE_AND_SWAP);
        assertThat(AtomicOperation.FETCH_ADD.code()).isZero();
        assertThat(AtomicOperation.COMPARE_AND_SWAP.code()).isEqualTo(2);
    }

    @ParameterizedTest(name = "AtomicOp {0}")
    @ValueSource(ints = {1, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15})
    void rfc7306Section10_1EveryOtherAtomicOpCodeIsReserved(int code) {
        // null, not an exception: the receiver turns it into a Terminate with the offending header.
        assertThat(AtomicOperation.fromCode(code)).isNull();
    }

    @Test
    void everyOperationRoundTripsThroughItsCode() {
        for (AtomicOperation op : AtomicOperation.values()) {
            assertThat(AtomicOperation.fromCode(op.code())).isSameAs(op);
        }
    }

    // ---- Fetch-and-Add ----

    @Test
    void rfc7306Section5_1_1FetchAddWithAZeroMaskIsAPlain64BitAdd() {
        assertThat(fetchAdd(40, 2, 0)).isEqualTo(42);
        assertThat(fetchAdd(0x0000_0000_FFFF_FFFFL, 1, 0)).as("carries cross the 32-bit boundary")
                .isEqualTo(0x0000_0001_0000_0000L);
        assertThat(fetchAdd(5, -3, 0)).as("adding the two's complement subtracts").isEqualTo(2);
    }

    @Test
    void rfc7306Section5_1_1FetchAddWrapsModulo2To64() {
        assertThat(fetchAdd(-1L, 1, 0)).isZero();
        assertThat(fetchAdd(Long.MAX_VALUE, 1, 0)).isEqualTo(Long.MIN_VALUE);
        assertThat(fetchAdd(0x8000_0000_0000_0000L, 0x8000_0000_0000_0000L, 0)).isZero();
    }

    @Test
    void rfc7306Section5_1_1MaskedFetchAddDropsTheCarryOutOfEachMaskedBit() {
        // Two 32-bit counters: the low one wraps without touching the high one.
        assertThat(fetchAdd(0x0000_0001_FFFF_FFFFL, 0x0000_0000_0000_0001L, 0x8000_0000_8000_0000L))
                .isEqualTo(0x0000_0001_0000_0000L);
        assertThat(fetchAdd(0x0000_0001_FFFF_FFFFL, 0x0000_0001_0000_0001L, 0x8000_0000_8000_0000L))
                .isEqualTo(0x0000_0002_0000_0000L);
        assertThat(fetchAdd(0xFFFF_FFFF_0000_0005L, 0x0000_0001_0000_0001L, 0x8000_0000_8000_0000L))
                .as("the top field's carry leaves the word as in a plain add").isEqualTo(0x0000_0000_0000_0006L);
    }

    @Test
    void rfc7306Section5_1_1MaskedFetchAddWithEveryByteEndingAFieldIsEightByteCounters() {
        long mask = 0x8080_8080_8080_8080L;
        long original = 0xFF7F_0001_FE80_10FFL;
        long plusOneEach = 0x0101_0101_0101_0101L;
        assertThat(fetchAdd(original, plusOneEach, mask)).isEqualTo(0x0080_0102_FF81_1100L);
        assertThat(fetchAdd(original, 0x0000_0000_0000_0001L, mask)).as("only the lowest counter moves")
                .isEqualTo(0xFF7F_0001_FE80_1000L);
        assertThat(fetchAdd(0x0000_0000_0000_00FFL, 0x0000_0000_0000_00FFL, mask))
                .as("0xFF + 0xFF keeps 0xFE and the carry is lost").isEqualTo(0x0000_0000_0000_00FEL);
    }

    @Test
    void rfc7306Section5_1_1MaskedFetchAddAgreesWithAPlainAddWhenOnlyTheTopBitEndsAField() {
        // Bit 63 ends the one and only field, whose carry a 64-bit add drops anyway.
        assertThat(fetchAdd(-1L, 2, 0x8000_0000_0000_0000L)).isEqualTo(1);
        assertThat(fetchAdd(0x0000_0000_FFFF_FFFFL, 1, 0x8000_0000_0000_0000L)).isEqualTo(0x0000_0001_0000_0000L);
    }

    @Test
    void rfc7306Section5_1_1MaskedFetchAddWithEveryBitEndingAFieldIsExclusiveOr() {
        long a = 0x0123_4567_89AB_CDEFL;
        long b = 0xFEDC_BA98_7654_3210L ^ 0x5555_0000_AAAA_0000L;
        assertThat(fetchAdd(a, b, -1L)).isEqualTo(a ^ b);
    }

    @Test
    void rfc7306Section5_1_1MaskedAddMatchesTheRfcsBitSerialPseudocode() {
        SplittableRandom random = new SplittableRandom(7306);
        for (int i = 0; i < 5_000; i++) {
            long a = random.nextLong();
            long b = random.nextLong();
            long boundaries = switch (i % 5) {
                case 0 -> random.nextLong(); // many short fields
                case 1 -> random.nextLong() & random.nextLong() & random.nextLong(); // fewer, longer fields
                case 2 -> 1L << random.nextInt(64); // two fields, or one when it is bit 63
                case 3 -> (1L << random.nextInt(64)) | (1L << random.nextInt(64));
                default -> random.nextLong() & 0x8080_8080_8080_8080L; // byte-aligned counters
            };
            long expected = referenceMaskedAdd(a, b, boundaries);
            assertThat(AtomicOperation.maskedAdd(a, b, boundaries))
                    .as("maskedAdd(0x%016x, 0x%016x, 0x%016x)", a, b, boundaries).isEqualTo(expected);
            assertThat(AtomicOperation.FETCH_ADD.apply(a, b, boundaries, random.nextLong(), random.nextLong()))
                    .as("Fetch-and-Add ignores the compare operands").isEqualTo(boundaries == 0 ? a + b : expected);
        }
    }

    @Test
    void maskedAddWithNoFieldEndIsAPlainAdd() {
        SplittableRandom random = new SplittableRandom(5040);
        for (int i = 0; i < 1_000; i++) {
            long a = random.nextLong();
            long b = random.nextLong();
            assertThat(AtomicOperation.maskedAdd(a, b, 0)).isEqualTo(a + b);
            assertThat(referenceMaskedAdd(a, b, 0)).as("the reference itself").isEqualTo(a + b);
        }
    }

    /**
     * RFC 7306 §5.1.1's pseudocode for the masked FetchAdd, transcribed line by line (a ripple-carry adder that
     * drops the carry out of each bit set in the Add Mask): unlike the implementation it never builds field
     * masks, and shares none of its shift arithmetic.
     */
    private static long referenceMaskedAdd(long originalRemoteDataValue, long addData, long addMask) {
        long bitLocation = 1;
        long carry = 0;
        long remoteDataValue = 0;
        for (int bit = 0; bit <= 63; bit++) {
            if (bit != 0) {
                bitLocation = bitLocation << 1;
            }
            long val1 = (originalRemoteDataValue & bitLocation) >>> bit;
            long val2 = (addData & bitLocation) >>> bit;
            long sum = carry + val1 + val2;
            carry = (sum & 2) >> 1;
            sum = sum & 1;
            if (sum != 0) {
                remoteDataValue |= bitLocation;
            }
            carry = carry != 0 && (addMask & bitLocation) == 0 ? 1 : 0;
        }
        return remoteDataValue;
    }

    @Test
    void rfc7306Section5_1_2CompareAndSwapMatchesTheRfcsPseudocode() {
        SplittableRandom random = new SplittableRandom(7306_512);
        for (int i = 0; i < 5_000; i++) {
            long original = random.nextLong();
            long swapData = random.nextLong();
            long swapMask = i % 3 == 0 ? -1L : random.nextLong();
            long compareMask = i % 4 == 0 ? -1L : random.nextLong();
            // Half the comparisons made to match in the compared bits, or the swap would almost never happen.
            long compareData = random.nextBoolean() ? (original & compareMask) | (random.nextLong() & ~compareMask)
                    : random.nextLong();
            // §5.1.2: if (!((Compare Data ^ Original Remote Data Value) & Compare Mask)) then
            //   Remote Data Value = (Original Remote Data Value & ~(Swap Mask)) | (Swap Data & Swap Mask)
            // else Remote Data Value = Original Remote Data Value
            long expected = ((compareData ^ original) & compareMask) == 0
                    ? (original & ~swapMask) | (swapData & swapMask) : original;
            assertThat(AtomicOperation.COMPARE_AND_SWAP.apply(original, swapData, swapMask, compareData, compareMask))
                    .isEqualTo(expected);
        }
    }

    // ---- Compare-and-Swap ----

    @Test
    void rfc7306Section5_1_2CompareAndSwapSwapsWhenTheWordEqualsTheCompareData() {
        assertThat(compareAndSwap(42, 42, ALL, 100, ALL)).isEqualTo(100);
        assertThat(compareAndSwap(-1L, -1L, ALL, 0, ALL)).isZero();
    }

    @Test
    void rfc7306Section5_1_2CompareAndSwapLeavesTheWordWhenItDiffers() {
        assertThat(compareAndSwap(42, 41, ALL, 100, ALL)).isEqualTo(42);
        assertThat(compareAndSwap(0x8000_0000_0000_0000L, 0, ALL, 7, ALL)).as("a difference in the top bit alone")
                .isEqualTo(0x8000_0000_0000_0000L);
        assertThat(compareAndSwap(1, 0, ALL, 7, ALL)).as("a difference in the bottom bit alone").isEqualTo(1);
    }

    @Test
    void rfc7306Section5_1_2MaskedCompareAndSwapComparesOnlyTheCompareMaskBits() {
        long original = 0x1122_3344_5566_7788L;
        // Bits 32..47 hold 0x3344; everything else in the compare data is garbage that must not matter.
        long compareMask = 0x0000_FFFF_0000_0000L;
        assertThat(compareAndSwap(original, 0xEEEE_3344_EEEE_EEEEL, compareMask, 0, ALL)).as("match: swapped")
                .isZero();
        assertThat(compareAndSwap(original, 0x1122_3345_5566_7788L, compareMask, 0, ALL))
                .as("one compared bit differs: untouched").isEqualTo(original);
        assertThat(compareAndSwap(original, 0xDEAD_BEEF_DEAD_BEEFL, 0, 0, ALL))
                .as("an empty compare mask always matches").isZero();
    }

    @Test
    void rfc7306Section5_1_2MaskedCompareAndSwapSwapsOnlyTheSwapMaskBits() {
        long original = 0x1122_3344_5566_7788L;
        assertThat(compareAndSwap(original, original, ALL, 0xAAAA_AAAA_AAAA_AAAAL, 0x0000_0000_0000_FFFFL))
                .isEqualTo(0x1122_3344_5566_AAAAL);
        assertThat(compareAndSwap(original, original, ALL, 0xAAAA_AAAA_AAAA_AAAAL, 0xFF00_0000_0000_00F0L))
                .isEqualTo(0xAA22_3344_5566_77A8L);
        assertThat(compareAndSwap(original, original, ALL, 0xAAAA_AAAA_AAAA_AAAAL, 0))
                .as("an empty swap mask changes nothing").isEqualTo(original);
    }

    @Test
    void rfc7306Section5_1_2MaskedCompareAndSwapCanTakeALockBitWithoutTouchingTheRest() {
        // Lock in bit 0, owner id in bits 8..15 left alone, counter in the high half left alone.
        long unlocked = 0x0000_0007_0000_2A00L;
        long locked = compareAndSwap(unlocked, 0, 1, 1, 1);
        assertThat(locked).isEqualTo(0x0000_0007_0000_2A01L);
        assertThat(compareAndSwap(locked, 0, 1, 1, 1)).as("already held: a second taker fails").isEqualTo(locked);
    }

    @Test
    void compareAndSwapIgnoresNothingButItsMasks() {
        SplittableRandom random = new SplittableRandom(7306_4);
        for (int i = 0; i < 2_000; i++) {
            long original = random.nextLong();
            long compare = random.nextLong();
            long compareMask = random.nextLong();
            long swap = random.nextLong();
            long swapMask = random.nextLong();
            long expected = (original & compareMask) == (compare & compareMask)
                    ? (original & ~swapMask) | (swap & swapMask) : original;
            assertThat(AtomicOperation.COMPARE_AND_SWAP.apply(original, swap, swapMask, compare, compareMask))
                    .isEqualTo(expected);
            // Force a match through the compared bits to cover the swap side as often as the keep side.
            long matching = (original & compareMask) | (random.nextLong() & ~compareMask);
            assertThat(AtomicOperation.COMPARE_AND_SWAP.apply(original, swap, swapMask, matching, compareMask))
                    .isEqualTo((original & ~swapMask) | (swap & swapMask));
        }
    }

    private static long fetchAdd(long original, long add, long fieldEnds) {
        return AtomicOperation.FETCH_ADD.apply(original, add, fieldEnds, 0, 0);
    }

    private static long compareAndSwap(long original, long compare, long compareMask, long swap, long swapMask) {
        return AtomicOperation.COMPARE_AND_SWAP.apply(original, swap, swapMask, compare, compareMask);
    }
}
