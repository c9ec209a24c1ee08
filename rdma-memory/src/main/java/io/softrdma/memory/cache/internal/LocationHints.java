package io.softrdma.memory.cache.internal;

import java.util.concurrent.atomic.AtomicLongArray;

/**
 * Where keys' entries were last found ({@link OneSidedGet#location}), by key hash: a set-associative table of
 * (hash, location) pairs, four ways to a set. A GET that finds its key's location here reads the entry alone, one RDMA
 * Read instead of two; a key with none goes through its bucket.
 *
 * <p>Why four ways: with one (direct-mapped), keys whose hashes share a slot evict each other, and a client cycling
 * over 1,000 keys with 4,096 slots found a fifth of its GETs without a hint, each costing a second round trip. With
 * four, a set overflows only when five of the keys in use share it.
 *
 * <p>Thread safety: any thread. A pair is two plain stores, not atomic together: a reader may pair one key's hash
 * with another's location, which only costs it a wasted Read (the entry's own hash and key decide, and the bucket
 * after them).
 */
public final class LocationHints {
    private static final int WAYS = 4;

    private final AtomicLongArray pairs;
    private final int ways;
    private final int setMask;

    /**
     * @param capacity how many keys' locations to remember: a power of two
     */
    public LocationHints(int capacity) {
        if (capacity <= 0 || Integer.bitCount(capacity) != 1) {
            throw new IllegalArgumentException("capacity " + capacity + " must be a power of two");
        }
        this.ways = Math.min(WAYS, capacity);
        this.setMask = capacity / ways - 1;
        this.pairs = new AtomicLongArray(2 * capacity);
    }

    private int set(long hash) {
        // not the bits that choose the bucket (the high 32) nor the tag's lowest ones
        return 2 * ways * ((int) (hash >>> 7) & setMask);
    }

    /** The location last remembered for {@code hash}, or 0 if none. */
    public long get(long hash) {
        int base = set(hash);
        for (int w = 0; w < ways; w++) {
            if (pairs.get(base + 2 * w) == hash) {
                return pairs.get(base + 2 * w + 1);
            }
        }
        return 0;
    }

    /**
     * Remembers {@code location} for {@code hash}: in its own way if it has one, else in a free way, else in place of
     * a way chosen by the location's octets. A key found absent ({@code location} 0) takes no way from another.
     */
    public void put(long hash, long location) {
        int base = set(hash);
        int free = -1;
        for (int w = 0; w < ways; w++) {
            int at = base + 2 * w;
            if (pairs.get(at) == hash) {
                pairs.set(at + 1, location);
                return;
            }
            if (free < 0 && pairs.get(at + 1) == 0) {
                free = w;
            }
        }
        if (location == 0) {
            return;
        }
        // No shared counter to contend on: the victim varies with where the entry is (Fibonacci hashing of it).
        int w = free >= 0 ? free : (int) ((location * 0x9E3779B97F4A7C15L) >>> 62) & (ways - 1);
        pairs.set(base + 2 * w, hash);
        pairs.set(base + 2 * w + 1, location);
    }
}
