package io.softrdma.mpa;

import static org.assertj.core.api.Assertions.assertThat;

import io.softrdma.testing.LeakCheck;
import io.softrdma.testing.LeakCheckAfterLastInvocation;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.TreeSet;
import java.util.stream.IntStream;
import java.util.stream.LongStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * RFC 5044 §4 and §6 over generated cases: any sequence of ULPDUs, framed with Markers on or off and
 * CRCs on or off, and cut into reads at any boundaries, decodes to the same ULPDUs; and the framed
 * stream obeys the RFC as the independent oracle reads it.
 *
 * <p>Each random case is drawn from a {@link SplittableRandom} seeded with the number in its display
 * name, so a failing case is rerun as it failed. The explicit cases pin the edge values: ULPDUs of
 * 0-4 octets, of lengths next to the 512-octet Marker interval and to the ranges the random lengths
 * come from, of the largest length an FPDU allows with CRCs and Markers, the longest list (12) of
 * ULPDUs, reads of one octet each, and a stream read whole.
 */
class FpduRoundTripTest {
    /** Random cases; each is one test, named by its seed. */
    private static final int RANDOM_CASES = 300;
    private static final int MAX_ULPDUS = 12;
    private static final int MAX_CUTS = 20;
    /** Lengths the random draw picks 2 times in 10. */
    private static final List<Integer> EDGE_LENGTHS =
            List.of(0, 1, 2, 3, 4, 506, 507, 508, 509, 510, 511, 512, 64768);
    /** Every explicit single-ULPDU length: the edge lengths and the bounds of the small and large ranges. */
    private static final List<Integer> EXPLICIT_LENGTHS = List.copyOf(new TreeSet<>(
            Stream.concat(EDGE_LENGTHS.stream(), Stream.of(599, 600, 601, 8999, 9000)).toList()));

    static LongStream seeds() {
        return LongStream.rangeClosed(1, RANDOM_CASES);
    }

    /** Every explicit length with CRCs on and off and Markers on and off, one ULPDU read whole. */
    static Stream<Arguments> singleUlpduEdges() {
        List<Arguments> cases = new ArrayList<>();
        long seed = 0;
        for (int length : EXPLICIT_LENGTHS) {
            for (boolean crc : new boolean[] {false, true}) {
                for (boolean markers : new boolean[] {false, true}) {
                    cases.add(Arguments.of(seed++, length, crc, markers));
                }
            }
        }
        return cases.stream();
    }

    /** The longest list: the twelve short edge lengths, read one octet at a time. */
    static Stream<Arguments> twelveShortUlpdusReadOctetByOctet() {
        return Stream.of(Arguments.of(-1L, false, false), Arguments.of(Long.MAX_VALUE, false, true),
                Arguments.of(Long.MIN_VALUE, true, false), Arguments.of(1L, true, true));
    }

    @LeakCheckAfterLastInvocation
    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void anyUlpdusSplitAnywhereDecodeToTheSameUlpdus(long seed) {
        SplittableRandom random = new SplittableRandom(seed);
        int count = random.nextInt(1, MAX_ULPDUS + 1);
        List<byte[]> ulpdus = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            ulpdus.add(FpduTestSupport.pattern(length(random), random.nextInt()));
        }
        boolean crc = random.nextBoolean();
        boolean markers = random.nextBoolean();
        double[] cutFractions = random.doubles(random.nextInt(0, MAX_CUTS + 1)).toArray();
        roundTrip(ulpdus, crc, markers, cutFractions);
    }

    @LeakCheckAfterLastInvocation
    @ParameterizedTest(name = "seed {0}: one ULPDU of {1} octets, CRC {2}, Markers {3}")
    @MethodSource("singleUlpduEdges")
    void anEdgeLengthUlpduDecodesToTheSameUlpdu(long seed, int length, boolean crc, boolean markers) {
        roundTrip(List.of(FpduTestSupport.pattern(length, (int) seed)), crc, markers, new double[0]);
    }

    @LeakCheckAfterLastInvocation
    @ParameterizedTest(name = "seed {0}: twelve short ULPDUs in one-octet reads, CRC {1}, Markers {2}")
    @MethodSource("twelveShortUlpdusReadOctetByOctet")
    void theLongestListOfShortUlpdusReadOctetByOctetDecodesToTheSameUlpdus(long seed, boolean crc, boolean markers) {
        List<byte[]> ulpdus = EDGE_LENGTHS.stream().filter(n -> n <= 512)
                .map(n -> FpduTestSupport.pattern(n, (int) (seed ^ n))).toList();
        assertThat(ulpdus).hasSize(MAX_ULPDUS);
        byte[] wire = FpduTestSupport.encode(crc, markers, ulpdus);
        int[] everyOctet = IntStream.range(1, wire.length).toArray();
        check(ulpdus, crc, markers, wire, everyOctet);
    }

    /** A length: 6 in 10 from 0-600, 2 in 10 from 600-9000, 2 in 10 one of {@link #EDGE_LENGTHS}. */
    private static int length(SplittableRandom random) {
        int pick = random.nextInt(10);
        if (pick < 6) {
            return random.nextInt(0, 601);
        }
        if (pick < 8) {
            return random.nextInt(600, 9001);
        }
        return EDGE_LENGTHS.get(random.nextInt(EDGE_LENGTHS.size()));
    }

    private static void roundTrip(List<byte[]> ulpdus, boolean crc, boolean markers, double[] cutFractions) {
        byte[] wire = FpduTestSupport.encode(crc, markers, ulpdus);
        TreeSet<Integer> cuts = new TreeSet<>();
        for (double f : cutFractions) {
            int cut = (int) (f * wire.length);
            if (cut > 0 && cut < wire.length) {
                cuts.add(cut);
            }
        }
        check(ulpdus, crc, markers, wire, cuts.stream().mapToInt(Integer::intValue).toArray());
    }

    private static void check(List<byte[]> ulpdus, boolean crc, boolean markers, byte[] wire, int[] cutArray) {
        List<byte[]> decoded = FpduTestSupport.decode(wire, crc, markers, cutArray);
        assertThat(decoded).hasSameSizeAs(ulpdus);
        for (int i = 0; i < ulpdus.size(); i++) {
            assertThat(decoded.get(i)).as("ULPDU %d", i).isEqualTo(ulpdus.get(i));
        }
        assertThat(FpduTestSupport.oracleParse(wire, crc, markers)).containsExactlyElementsOf(ulpdus);
    }

    @AfterAll
    static void noLeaks() {
        LeakCheck.assertNoLeaks();
    }
}
