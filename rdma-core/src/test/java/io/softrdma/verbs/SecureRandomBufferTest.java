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

    /** {@code n} octets counting up from 0, as {@link Counting} hands them out. */
    private static ByteBuffer countingUp(int n) {
        ByteBuffer b = ByteBuffer.allocate(n);
        for (int i = 0; i < n; i++) {
            b.put((byte) i);
        }
        return b.flip();
    }

    @Test
    void drawsEveryOctetOfTheSourceOnceInOrderABlockAtATime() {
        Counting source = new Counting();
        SecureRandomBuffer random = new SecureRandomBuffer(source);
        ByteBuffer expected = countingUp(8 * 130);
        for (int i = 0; i < 130; i++) {
            assertThat(random.nextLong()).isEqualTo(expected.getLong());
        }
        assertThat(source.calls).as("130 longs from blocks of 64").isEqualTo(3);
    }

    @Test
    void anIntDrawsFourOctetsNotEight() {
        Counting source = new Counting();
        SecureRandomBuffer random = new SecureRandomBuffer(source);
        ByteBuffer expected = countingUp(4 * 130);
        for (int i = 0; i < 130; i++) {
            assertThat(random.nextInt()).isEqualTo(expected.getInt());
        }
        assertThat(source.calls).as("130 ints from blocks of 128").isEqualTo(2);
        // A bounded draw, as an STag's key is, takes one int: its low octet is the fourth of the next four.
        assertThat(random.nextInt(256)).isEqualTo(523 & 0xff);
        assertThat(random.nextInt()).isEqualTo(ByteBuffer.wrap(new byte[] {(byte) 524, (byte) 525, (byte) 526,
            (byte) 527}).getInt());
    }

    @Test
    void stagsComeFromTheNistDrbg() {
        assertThat(StagTable.source().getAlgorithm()).isEqualTo("DRBG");
    }

    @Test
    void rfc5040Section8_1_1StagKeysAndIndexesStillSpreadOverTheirRange() {
        SecureRandomBuffer random = new SecureRandomBuffer(StagTable.source());
        Set<Integer> keys = new HashSet<>();
        for (int i = 0; i < 20_000; i++) {
            int key = random.nextInt(256);
            assertThat(key).isBetween(0, 255);
            keys.add(key);
        }
        assertThat(keys).as("every 8-bit key drawn in 20,000 tries").hasSize(256);
    }
}
