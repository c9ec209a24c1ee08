package io.softrdma.verbs;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.Unpooled;
import java.nio.ByteBuffer;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

final class DefaultProtectionDomain implements ProtectionDomain {
    private final RdmaDevice device;
    private final int id;
    private final Set<DefaultMemoryRegion> regions = ConcurrentHashMap.newKeySet();

    DefaultProtectionDomain(RdmaDevice device, int id) {
        this.device = device;
        this.id = id;
    }

    @Override
    public RdmaDevice device() {
        return device;
    }

    @Override
    public MemoryRegion register(ByteBuf buffer, Set<Access> access) {
        return register(buffer, access, 0);
    }

    @Override
    public MemoryRegion register(ByteBuf buffer, Set<Access> access, long baseTaggedOffset) {
        requireDirect(buffer);
        return add(buffer.retain(), access, baseTaggedOffset, false);
    }

    @Override
    public MemoryRegion registerUnchanging(ByteBuf buffer) {
        requireDirect(buffer);
        return add(buffer.retain(), Access.of(Access.REMOTE_READ), 0, true);
    }

    private static void requireDirect(ByteBuf buffer) {
        Objects.requireNonNull(buffer, "buffer");
        if (!buffer.isDirect()) {
            throw new IllegalArgumentException("register direct memory (a direct ByteBuf); this buffer is on the"
                    + " heap and may move");
        }
    }

    @Override
    public MemoryRegion register(ByteBuffer buffer, Set<Access> access) {
        Objects.requireNonNull(buffer, "buffer");
        if (!buffer.isDirect()) {
            throw new IllegalArgumentException("register direct memory (ByteBuffer.allocateDirect); this"
                    + " ByteBuffer is on the heap and may move");
        }
        return add(Unpooled.wrappedBuffer(buffer.duplicate().clear()), access, 0, false);
    }

    @Override
    public MemoryRegion allocate(int length, Set<Access> access) {
        if (length < 0) {
            throw new IllegalArgumentException("length " + length + " must not be negative");
        }
        ByteBuf memory = PooledByteBufAllocator.DEFAULT.directBuffer(length, length);
        if (access.contains(Access.REMOTE_READ) || access.contains(Access.REMOTE_ATOMIC)) {
            // Pooled memory holds what its last user left there: never let a peer read that (an atomic returns
            // the word's value before, so it reads too).
            memory.setZero(0, length);
        }
        memory.writerIndex(length);
        return add(memory, access, 0, false);
    }

    private MemoryRegion add(ByteBuf owned, Set<Access> access, long baseTaggedOffset, boolean unchanging) {
        try {
            Objects.requireNonNull(access, "access");
            if (access.contains(Access.REMOTE_WRITE) && !access.contains(Access.LOCAL_WRITE)) {
                throw new IllegalArgumentException("REMOTE_WRITE needs LOCAL_WRITE as well (as in verbs): " + access);
            }
            if (access.contains(Access.REMOTE_ATOMIC) && !access.contains(Access.LOCAL_WRITE)) {
                throw new IllegalArgumentException("REMOTE_ATOMIC needs LOCAL_WRITE as well (as in verbs): " + access);
            }
            if (access.contains(Access.REMOTE_ATOMIC) && owned.nioBufferCount() != 1) {
                // An atomic works on the memory itself through one ByteBuffer view; a composite has none.
                throw new IllegalArgumentException("REMOTE_ATOMIC needs one contiguous buffer, not a composite of "
                        + owned.nioBufferCount() + ": register a single direct buffer");
            }
            if (Long.compareUnsigned(baseTaggedOffset + owned.capacity(), baseTaggedOffset) < 0) {
                throw new IllegalArgumentException("base tagged offset 0x" + Long.toHexString(baseTaggedOffset)
                        + " plus " + owned.capacity() + " octets wraps past 2^64");
            }
            DefaultMemoryRegion region = new DefaultMemoryRegion(this, device.stagTable(), owned, baseTaggedOffset,
                    access, unchanging);
            regions.add(region);
            return device.register(region);
        } catch (RuntimeException e) {
            owned.release();
            throw e;
        }
    }

    @Override
    public QueuePair createQueuePair(QueuePairConfig config) {
        return new DefaultQueuePair(this, Objects.requireNonNull(config, "config"));
    }

    void forget(DefaultMemoryRegion region) {
        regions.remove(region);
    }

    /** Deregisters every region still registered in this domain; queue pairs are closed on their own. */
    @Override
    public void close() {
        for (DefaultMemoryRegion r : regions) {
            r.close();
        }
    }

    @Override
    public String toString() {
        return "ProtectionDomain#" + id;
    }
}
