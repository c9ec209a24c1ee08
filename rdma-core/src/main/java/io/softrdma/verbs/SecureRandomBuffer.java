package io.softrdma.verbs;

import java.nio.ByteBuffer;
import java.security.SecureRandom;
import java.util.random.RandomGenerator;

/**
 * A {@link SecureRandom}'s output drawn a block at a time: the same unpredictable octets STags need (RFC 5040 §8.1.1
 * requirement 8), without a call into the provider, its lock and its clock check for every STag. Every registration
 * draws an index and a key, and a Read registers its sink, so Linux's NativePRNG per draw cost a few percent of a
 * client's CPU on small Reads (docs/benchmarks.md, "Issue 19: the GET path").
 *
 * <p>Thread safety: not thread-safe; {@link StagTable} draws under its lock.
 */
final class SecureRandomBuffer implements RandomGenerator {
    private static final int BLOCK = 512;

    private final SecureRandom source;
    private final byte[] block = new byte[BLOCK];
    private final ByteBuffer octets = ByteBuffer.wrap(block);

    SecureRandomBuffer(SecureRandom source) {
        this.source = source;
        octets.position(BLOCK); // drawn on first use
    }

    @Override
    public long nextLong() {
        return available(Long.BYTES).getLong();
    }

    /**
     * Four octets, not the eight of {@link RandomGenerator}'s default (half of a {@link #nextLong}): an STag's index
     * and key are {@code nextInt(bound)} draws, so a block serves twice as many registrations.
     */
    @Override
    public int nextInt() {
        return available(Integer.BYTES).getInt();
    }

    /** The block, with at least {@code n} octets not yet drawn: a new one if fewer are left. */
    private ByteBuffer available(int n) {
        if (octets.remaining() < n) {
            source.nextBytes(block);
            octets.clear();
        }
        return octets;
    }
}
