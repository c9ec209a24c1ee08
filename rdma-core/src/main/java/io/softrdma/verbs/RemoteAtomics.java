package io.softrdma.verbs;

import io.softrdma.rdmap.AtomicOperation;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * Carries out RFC 7306 atomic operations on 64-bit words of registered memory, atomically with respect to
 * every other atomic operation on the same word through any queue pair of this JVM — also through another
 * region registered over the same memory. That is the guarantee RFC 7306 gives (atomicity among the atomic
 * operations of one RNIC), and what makes a word shared by many connections a linearizable counter or lock.
 * Plain loads and stores of the word (the application's, or an RDMA Write's) are not ordered with atomics.
 *
 * <p>A word is held in network byte order (big-endian), as {@code ByteBuf.getLong} reads it. A naturally
 * aligned word — the usual case, registered memory comes from pooled direct chunks — is updated with the
 * CPU's compare-and-swap through a {@link VarHandle}, without a lock. A word whose address is not a multiple
 * of 8 (a region registered over an odd slice; the Remote TO itself is always aligned) is updated under a
 * lock striped by its address; whether a word is aligned depends only on its address, so every operation
 * on it takes the same path.
 *
 * <p>Thread safety: any thread; the locks are held for one load and one store, never across I/O.
 */
final class RemoteAtomics {
    private static final VarHandle WORD = MethodHandles.byteBufferViewVarHandle(long[].class, ByteOrder.BIG_ENDIAN);
    private static final int STRIPES = 64;
    private static final Object[] LOCKS = new Object[STRIPES];
    /** For a word of heap memory, which has no stable address: one lock, correct if slow. */
    private static final Object UNKNOWN_ADDRESS = new Object();

    static {
        for (int i = 0; i < STRIPES; i++) {
            LOCKS[i] = new Object();
        }
    }

    private RemoteAtomics() {
    }

    /**
     * Applies {@code op} to the word at {@code index} of {@code memory} and returns its value before.
     *
     * @param memory a buffer over the region's memory, index 0 its first octet
     */
    static long apply(ByteBuffer memory, int index, AtomicOperation op, long addOrSwapData, long addOrSwapMask,
            long compareData, long compareMask) {
        if (memory.isDirect() && memory.alignmentOffset(index, Long.BYTES) == 0) {
            if (op == AtomicOperation.FETCH_ADD && addOrSwapMask == 0) {
                return (long) WORD.getAndAdd(memory, index, addOrSwapData);
            }
            if (op == AtomicOperation.COMPARE_AND_SWAP && addOrSwapMask == -1L && compareMask == -1L) {
                return (long) WORD.compareAndExchange(memory, index, compareData, addOrSwapData);
            }
            long original = (long) WORD.getVolatile(memory, index);
            for (;;) {
                long updated = op.apply(original, addOrSwapData, addOrSwapMask, compareData, compareMask);
                if (updated == original) {
                    return original; // a failed compare, or an add of 0: the volatile read is the operation
                }
                long witness = (long) WORD.compareAndExchange(memory, index, original, updated);
                if (witness == original) {
                    return original;
                }
                original = witness;
            }
        }
        // Keyed by the word's address (alignmentOffset reads it from a direct buffer), so that two regions over
        // the same memory take the same lock; a heap buffer has no stable address, and takes one lock for all.
        Object lock = memory.isDirect() ? LOCKS[memory.alignmentOffset(index, 8 * STRIPES) >>> 3] : UNKNOWN_ADDRESS;
        synchronized (lock) {
            // Plain access through the VarHandle is allowed unaligned, and leaves the buffer's byte order alone.
            long original = (long) WORD.get(memory, index);
            long updated = op.apply(original, addOrSwapData, addOrSwapMask, compareData, compareMask);
            if (updated != original) {
                WORD.set(memory, index, updated);
            }
            return original;
        }
    }
}
