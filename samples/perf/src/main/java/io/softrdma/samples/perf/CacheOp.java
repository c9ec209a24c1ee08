package io.softrdma.samples.perf;

import java.util.Locale;

/**
 * An operation the cache benchmark measures: what a phase does to a store, given the key's index and the value
 * written.
 *
 * <p>Thread safety: immutable.
 */
enum CacheOp {
    GET, SET;

    /** As rows and {@code --ops} name it: {@code get}, {@code set}. */
    String wireName() {
        return name().toLowerCase(Locale.ROOT);
    }

    /**
     * The operation {@code --ops} names.
     *
     * @throws IllegalArgumentException naming the choices
     */
    static CacheOp parse(String v) {
        for (CacheOp op : values()) {
            if (op.wireName().equals(v)) {
                return op;
            }
        }
        throw new IllegalArgumentException("--ops " + v + ": choose get, set or get,set");
    }
}
