package io.softrdma.verbs;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.security.SecureRandom;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

class SecureRandomBufferTest {

    /** A source whose octets count up, so the test can tell which of them each draw used. */
    private static final class Counting extends SecureRandom {
        int calls;
        byte next;

        @Override
        public void nextBytes(byte[] bytes) {
            calls++;
            for (int i = 0; i < bytes.length; i++) {
                bytes[i] = next++;
            }
        }
    }

    @Test
    void drawsEveryOctetOfTheSourceOnceInOrderABlockAtATime() {
        Counting source = new Counting();
        SecureRandomBuffer random = new SecureRandomBuffer(source);
        ByteBuffer expected = ByteBuffer.allocate(8 * 130);
        for (int i = 0; i < expected.capacity(); i++) {
            expected.put((byte) i);
        }
        expected.flip();
        for (int i = 0; i < 130; i++) {
            assertThat(random.nextLong()).isEqualTo(expected.getLong());
        }
        assertThat(source.calls).as("130 longs from blocks of 64").isEqualTo(3);
    }

    @Test
    void rfc5040Section8_1_1StagKeysAndIndexesStillSpreadOverTheirRange() {
        SecureRandomBuffer random = new SecureRandomBuffer(new SecureRandom());
        Set<Integer> keys = new HashSet<>();
        for (int i = 0; i < 20_000; i++) {
            int key = random.nextInt(256);
            assertThat(key).isBetween(0, 255);
            keys.add(key);
        }
        assertThat(keys).as("every 8-bit key drawn in 20,000 tries").hasSize(256);
    }
}
