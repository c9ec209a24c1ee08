package io.softrdma.samples.perftest;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.softrdma.verbs.Access;
import io.softrdma.verbs.MemoryRegion;
import io.softrdma.verbs.ProtectionDomain;
import java.util.Set;

/**
 * Registration as perftest does it: zeroed direct memory whose base tagged offset is its address; and this
 * sample's fill pattern. Thread safety: stateless; the region owns the memory it registers.
 */
final class Buffers {
    private Buffers() {
    }

    /**
     * Registers {@code length} octets; the region keeps its own reference to the memory, released with the
     * protection domain.
     */
    static MemoryRegion register(ProtectionDomain pd, int length, Set<Access> access) {
        ByteBuf memory = PooledByteBufAllocator.DEFAULT.directBuffer(length, length);
        try {
            memory.setZero(0, length);
            long address = memory.hasMemoryAddress() ? memory.memoryAddress() : 0;
            return pd.register(memory, access, address);
        } finally {
            memory.release();
        }
    }

    /**
     * This sample's fill pattern, checked with {@code --verify}: octet i of a buffer is {@code (i * 7 + 3) & 0xff}
     * — not perftest's (random octets), so only a peer that is this sample can be checked.
     */
    static byte pattern(long i) {
        return (byte) (i * 7 + 3);
    }

    /** Fills {@code b[offset, offset + length)} with the pattern, in one bulk copy (a tracked buffer is slow per octet). */
    static void fill(ByteBuf b, int offset, int length) {
        byte[] p = new byte[length];
        for (int i = 0; i < length; i++) {
            p[i] = pattern(i);
        }
        b.setBytes(offset, p);
    }

    /**
     * The first octet of {@code b[offset, offset + length)} that is not the pattern from {@code from} on (a
     * message sent from {@code from} octets into a filled buffer), or -1.
     */
    static int firstMismatch(ByteBuf b, int offset, int length, long from) {
        byte[] got = new byte[length];
        b.getBytes(offset, got);
        for (int i = 0; i < length; i++) {
            if (got[i] != pattern(from + i)) {
                return i;
            }
        }
        return -1;
    }
}
