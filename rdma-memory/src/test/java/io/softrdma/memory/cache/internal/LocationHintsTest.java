package io.softrdma.memory.cache.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.buffer.Unpooled;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class LocationHintsTest {

    private static long hash(String key) {
        return KeyHash.of(Unpooled.wrappedBuffer(key.getBytes(StandardCharsets.US_ASCII)));
    }

    @Test
    void remembersUpdatesAndForgetsAKeysLocation() {
        LocationHints hints = new LocationHints(16);
        long h = hash("a");
        assertThat(hints.get(h)).isZero();
        hints.put(h, OneSidedGet.location(4096, 80));
        assertThat(hints.get(h)).isEqualTo(OneSidedGet.location(4096, 80));
        hints.put(h, OneSidedGet.location(8192, 88));
        assertThat(hints.get(h)).isEqualTo(OneSidedGet.location(8192, 88));
        hints.put(h, 0); // found absent
        assertThat(hints.get(h)).isZero();
    }

    @Test
    void fourKeysOfOneSetAreAllRemembered() {
        // capacity 4: a single set of four ways, so every key shares it
        LocationHints hints = new LocationHints(4);
        for (int i = 0; i < 4; i++) {
            hints.put(hash("k" + i), OneSidedGet.location(1024 + 8L * i, 64));
        }
        for (int i = 0; i < 4; i++) {
            assertThat(hints.get(hash("k" + i))).as("k" + i).isEqualTo(OneSidedGet.location(1024 + 8L * i, 64));
        }
        // a fifth takes one way; the other three stay
        hints.put(hash("k4"), OneSidedGet.location(2048, 64));
        assertThat(hints.get(hash("k4"))).isEqualTo(OneSidedGet.location(2048, 64));
        int kept = 0;
        for (int i = 0; i < 4; i++) {
            kept += hints.get(hash("k" + i)) != 0 ? 1 : 0;
        }
        assertThat(kept).isEqualTo(3);
    }

    @Test
    void aKeyFoundAbsentTakesNoWayFromAnother() {
        LocationHints hints = new LocationHints(4);
        for (int i = 0; i < 4; i++) {
            hints.put(hash("k" + i), OneSidedGet.location(1024 + 8L * i, 64));
        }
        hints.put(hash("absent"), 0);
        for (int i = 0; i < 4; i++) {
            assertThat(hints.get(hash("k" + i))).isNotZero();
        }
    }

    @Test
    void theBenchmarksThousandKeysNearlyAllFitInTheDefault4096() {
        // Direct-mapped, a fifth of these keys lost their hint to another's and cost a second Read on every GET.
        LocationHints hints = new LocationHints(4096);
        for (int round = 0; round < 3; round++) {
            for (int i = 0; i < 1000; i++) {
                hints.put(hash("perf:" + i), OneSidedGet.location(64L * (i + 1), 64));
            }
        }
        int found = 0;
        for (int i = 0; i < 1000; i++) {
            found += hints.get(hash("perf:" + i)) == OneSidedGet.location(64L * (i + 1), 64) ? 1 : 0;
        }
        assertThat(found).isGreaterThanOrEqualTo(990);
    }

    @Test
    void capacityMustBeAPowerOfTwo() {
        assertThatThrownBy(() -> new LocationHints(3)).hasMessage("capacity 3 must be a power of two");
        assertThatThrownBy(() -> new LocationHints(0)).hasMessage("capacity 0 must be a power of two");
    }
}
