package io.softrdma.mpa;

import static org.assertj.core.api.Assertions.assertThat;

import io.softrdma.testing.LeakCheck;
import java.util.List;
import java.util.TreeSet;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.lifecycle.AfterContainer;

/**
 * RFC 5044 §4 and §6 as properties: any sequence of ULPDUs, framed with Markers on or off and CRCs on
 * or off, and cut into reads at any boundaries, decodes to the same ULPDUs; and the framed stream
 * obeys the RFC as the independent oracle reads it.
 */
class FpduRoundTripProperties {

    @Property(tries = 300)
    void anyUlpdusSplitAnywhereDecodeToTheSameUlpdus(@ForAll("ulpdus") List<byte[]> ulpdus,
            @ForAll boolean crc, @ForAll boolean markers, @ForAll("cutFractions") List<Double> cutFractions) {
        byte[] wire = FpduTestSupport.encode(crc, markers, ulpdus);
        TreeSet<Integer> cuts = new TreeSet<>();
        for (double f : cutFractions) {
            int cut = (int) (f * wire.length);
            if (cut > 0 && cut < wire.length) {
                cuts.add(cut);
            }
        }
        int[] cutArray = cuts.stream().mapToInt(Integer::intValue).toArray();
        List<byte[]> decoded = FpduTestSupport.decode(wire, crc, markers, cutArray);
        assertThat(decoded).hasSameSizeAs(ulpdus);
        for (int i = 0; i < ulpdus.size(); i++) {
            assertThat(decoded.get(i)).as("ULPDU %d", i).isEqualTo(ulpdus.get(i));
        }
        assertThat(FpduTestSupport.oracleParse(wire, crc, markers)).containsExactlyElementsOf(ulpdus);
    }

    @Provide
    Arbitrary<List<byte[]>> ulpdus() {
        Arbitrary<Integer> small = Arbitraries.integers().between(0, 600);
        Arbitrary<Integer> large = Arbitraries.integers().between(600, 9000);
        Arbitrary<Integer> edge = Arbitraries.of(0, 1, 2, 3, 4, 506, 507, 508, 509, 510, 511, 512, 64768);
        Arbitrary<Integer> length = Arbitraries.frequencyOf(
                net.jqwik.api.Tuple.of(6, small), net.jqwik.api.Tuple.of(2, large), net.jqwik.api.Tuple.of(2, edge));
        Arbitrary<byte[]> ulpdu = Combinators.combine(length, Arbitraries.integers())
                .as(FpduTestSupport::pattern);
        return ulpdu.list().ofMinSize(1).ofMaxSize(12);
    }

    @Provide
    Arbitrary<List<Double>> cutFractions() {
        return Arbitraries.doubles().between(0, 1).list().ofMaxSize(20);
    }

    @AfterContainer
    static void noLeaks() {
        LeakCheck.assertNoLeaks();
    }

}
