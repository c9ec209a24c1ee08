package io.softrdma.verbs;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.util.random.RandomGenerator;

/**
 * The device's STag index: maps the 24-bit index of an STag to its memory region.
 *
 * <p>Indexes and keys are drawn at random (RFC 5040 §8.1.1 requirement 8: "difficult to predict ...
 * sparsely populate them over the full available range"), as Linux siw does. An open-addressing table
 * keyed by index; lookups (event loops, on every tagged segment) take no lock and allocate nothing;
 * registration and removal (application threads) serialize on the table.
 *
 * <p>Thread safety: lookups from any thread; mutations synchronized.
 */
final class StagTable {
    /** RFC 5040 leaves the split to the RNIC; siw uses a 24-bit index and an 8-bit key. */
    static final int INDEX_BITS = 24;
    static final int KEY_MASK = 0xFF;
    private static final int MAX_INDEX = (1 << INDEX_BITS) - 1;
    private static final Object REMOVED = new Object();
    private static final VarHandle SLOTS = MethodHandles.arrayElementVarHandle(Object[].class);

    private final RandomGenerator random;
    private volatile Object[] slots = new Object[64];
    private int used;
    private int removed;

    StagTable() {
        this(new SecureRandomBuffer(source()));
    }

    /**
     * Where STags' unpredictable octets come from: the JDK's NIST SP 800-90A DRBG (Hash_DRBG, SHA-256, seeded and
     * reseeded from the operating system), or the platform default where a provider lacks it. Not Linux's default
     * NativePRNG, which reads /dev/urandom and mixes in SHA1PRNG for every block: 4.4 µs per 512 octets on the
     * project's machine against the DRBG's 1.5 ({@code StagRegistrationBenchmark}), and every RDMA Read registers its
     * sink.
     */
    static SecureRandom source() {
        try {
            return SecureRandom.getInstance("DRBG");
        } catch (NoSuchAlgorithmException e) {
            return new SecureRandom();
        }
    }

    StagTable(RandomGenerator random) {
        this.random = random;
    }

    static int index(int stag) {
        return stag >>> 8;
    }

    static int key(int stag) {
        return stag & KEY_MASK;
    }

    static int stag(int index, int key) {
        return index << 8 | key;
    }

    /** A random key that differs from {@code previous} (so a reregistered region never reuses its STag). */
    synchronized int newKey(int previous) {
        int key;
        do {
            key = random.nextInt(256);
        } while (key == previous);
        return key;
    }

    /**
     * Gives the region a fresh random index and key, then publishes it: lookups never see a region
     * whose STag is not set yet.
     */
    synchronized void add(DefaultMemoryRegion region) {
        if (used + removed + 1 > slots.length / 2) {
            rehash(used + 1 > slots.length / 4 ? slots.length * 2 : slots.length);
        }
        while (true) {
            // Index 0 is never used, so STag 0 (the "no STag" of untagged headers) never names a region.
            int index = 1 + random.nextInt(MAX_INDEX);
            if (find(slots, index) == null) {
                region.activate(index, random.nextInt(256));
                insert(slots, index, region);
                used++;
                return;
            }
        }
    }

    synchronized void remove(int index) {
        Object[] table = slots;
        int mask = table.length - 1;
        for (int i = mix(index) & mask; ; i = (i + 1) & mask) {
            Object o = (Object) SLOTS.getAcquire(table, i);
            if (o == null) {
                return;
            }
            if (o instanceof DefaultMemoryRegion r && r.index() == index) {
                SLOTS.setRelease(table, i, REMOVED);
                used--;
                removed++;
                return;
            }
        }
    }

    /** The region whose index is the STag's, or null; the caller checks the key and validity. */
    DefaultMemoryRegion lookup(int stag) {
        return find(slots, index(stag));
    }

    int size() {
        return used;
    }

    private static DefaultMemoryRegion find(Object[] table, int index) {
        int mask = table.length - 1;
        for (int i = mix(index) & mask; ; i = (i + 1) & mask) {
            Object o = (Object) SLOTS.getAcquire(table, i);
            if (o == null) {
                return null;
            }
            if (o instanceof DefaultMemoryRegion r && r.index() == index) {
                return r;
            }
        }
    }

    private static void insert(Object[] table, int index, DefaultMemoryRegion region) {
        int mask = table.length - 1;
        for (int i = mix(index) & mask; ; i = (i + 1) & mask) {
            Object o = table[i];
            if (o == null || o == REMOVED) {
                SLOTS.setRelease(table, i, region);
                return;
            }
        }
    }

    private void rehash(int capacity) {
        Object[] fresh = new Object[capacity];
        for (Object o : slots) {
            if (o instanceof DefaultMemoryRegion r) {
                insert(fresh, r.index(), r);
            }
        }
        removed = 0;
        slots = fresh;
    }

    private static int mix(int index) {
        int h = index * 0x9E3779B9;
        return h ^ (h >>> 16);
    }
}
