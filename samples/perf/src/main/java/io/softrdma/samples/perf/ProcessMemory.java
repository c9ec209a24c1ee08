package io.softrdma.samples.perf;

import io.netty.util.internal.PlatformDependent;
import java.lang.management.BufferPoolMXBean;
import java.lang.management.ManagementFactory;

/**
 * What this process holds in memory now, after a full collection: the heap in use ({@code MemoryMXBean}), and the
 * direct memory reserved — Netty's count of what it allocated without a JDK cleaner (its pooled allocators take it
 * in chunks of several MiB and keep them for reuse, so this is what they reserved, not the octets of live buffers:
 * a difference over a few connections is mostly zero or one chunk), plus the JDK's {@code direct} buffer pool
 * ({@code BufferPoolMXBean}: buffers with a cleaner, Netty's too where it has no cleaner-less path). The two do not
 * overlap. For the octets of live registered buffers, count them where they are registered.
 *
 * <p>Thread safety: immutable.
 *
 * @param heap octets of heap in use after {@link System#gc()}
 * @param direct octets of direct memory reserved
 */
record ProcessMemory(long heap, long direct) {
    /** Collects (twice, so that what the first left for finalization is gone too), then reads. */
    static ProcessMemory now() {
        System.gc();
        System.gc();
        long heap = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
        long jdk = 0;
        for (BufferPoolMXBean pool : ManagementFactory.getPlatformMXBeans(BufferPoolMXBean.class)) {
            if (pool.getName().equals("direct")) {
                jdk = pool.getMemoryUsed();
            }
        }
        // -1 when Netty allocates all of its direct memory through the JDK (then the pool above counts it).
        long netty = Math.max(0, PlatformDependent.usedDirectMemory());
        return new ProcessMemory(heap, jdk + netty);
    }
}
