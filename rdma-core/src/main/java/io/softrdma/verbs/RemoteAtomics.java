package io.softrdma.verbs;

import io.softrdma.rdmap.AtomicOperation;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * Carries out RFC 7306 atomic operations on 64-bit words of registered memory, atomically with respect to
 * every other atomic operation on the same word through any queue pair of this JVM — also through another
 * region registered over the same memory. That is the guarantee RFC 7306 §5.3 gives (atomicity among the atomic
 * operations of one RNIC), and what makes a word shared by many connections a linearizable counter or lock.
 * Plain loads and stores of the word (the application's, or an RDMA Write's) are not ordered with atomics
 * (§5.4 rule 2 makes that optional).
 *
 * <p>A word is held in network byte order (big-endian), as {@code ByteBuf.getLong} reads it: RFC 7306 §5.1.1
 * performs the operation "in the endian format of the target memory", and a {@code ByteBuf}'s is big-endian.
 * Every word is naturally aligned — RFC 7306 §5.1.1, §5.1.2 and §8.2 forbid the operation on any other, and the
 * receiver Terminates such a request before it gets here — so each is updated with the CPU's compare-and-swap
 * through a {@link VarHandle}, without a lock.
 *
 * <p>Thread safety: any thread; stateless.
 */
final class RemoteAtomics {
    private static final VarHandle WORD = MethodHandles.byteBufferViewVarHandle(long[].class, ByteOrder.BIG_ENDIAN);

    private RemoteAtomics() {
    }

    /**
     * Applies {@code op} to the word at {@code index} of {@code memory} and returns its value before.
     *
     * @param memory a direct buffer over the region's memory, index 0 its first octet
     * @throws IllegalArgumentException if the word's address is not a multiple of 8 (memory is not touched)
     */
    static long apply(ByteBuffer memory, int index, AtomicOperation op, long addOrSwapData, long addOrSwapMask,
            long compareData, long compareMask) {
        if (!memory.isDirect() || memory.alignmentOffset(index, Long.BYTES) != 0) {
            throw new IllegalArgumentException("an atomic operation needs a 64-bit aligned word of direct memory"
                    + " (RFC 7306 §5.1.1, §5.1.2); index " + index + " of " + memory + " is not one");
        }
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
}
