package io.softrdma.samples.perf;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.util.ArrayList;
import java.util.List;

/**
 * CPU time and heap allocation of the threads whose names start with a prefix (an event loop
 * group's), so that a phase can report how busy each side was and what it allocated per operation.
 * On loopback both sides share the machine, and the side that saturates its core is where the time
 * goes; kernel work done for a thread (its system calls, and on loopback much of the peer's TCP
 * receive processing) counts too.
 *
 * <p>Thread safety: {@link #restart} may be called from any thread, the readings afterwards.
 */
final class ThreadUsage {
    private static final com.sun.management.ThreadMXBean THREADS =
            (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();

    private final String prefix;
    private volatile long[] threadIds = new long[0];
    private volatile long startCpu;
    private volatile long startAllocated;
    private volatile long startWall;

    private ThreadUsage(String prefix) {
        this.prefix = prefix;
    }

    /** Starts measuring the threads named {@code prefix...}. */
    static ThreadUsage start(String prefix) {
        ThreadUsage t = new ThreadUsage(prefix);
        t.restart();
        return t;
    }

    /** Measures from now on, the threads alive now (event loops start their thread on first use). */
    void restart() {
        threadIds = threadsNamed(prefix);
        startCpu = cpuNanos();
        startAllocated = allocatedBytes();
        startWall = System.nanoTime();
    }

    /** The share of one core these threads used since the (re)start: 1.0 is one core fully busy. */
    double utilization() {
        long wall = System.nanoTime() - startWall;
        if (threadIds.length == 0 || !THREADS.isThreadCpuTimeSupported() || wall <= 0) {
            return Double.NaN;
        }
        return (double) (cpuNanos() - startCpu) / wall;
    }

    /** Heap octets these threads allocated since the (re)start. */
    long allocated() {
        if (threadIds.length == 0 || !THREADS.isThreadAllocatedMemorySupported()) {
            return -1;
        }
        return allocatedBytes() - startAllocated;
    }

    private static long[] threadsNamed(String prefix) {
        List<Long> ids = new ArrayList<>();
        for (ThreadInfo info : THREADS.getThreadInfo(THREADS.getAllThreadIds(), 0)) {
            if (info != null && info.getThreadName().startsWith(prefix)) {
                ids.add(info.getThreadId());
            }
        }
        return ids.stream().mapToLong(Long::longValue).toArray();
    }

    private long cpuNanos() {
        long sum = 0;
        for (long id : threadIds) {
            long cpu = THREADS.getThreadCpuTime(id);
            if (cpu > 0) {
                sum += cpu;
            }
        }
        return sum;
    }

    private long allocatedBytes() {
        long[] ids = threadIds;
        if (ids.length == 0) {
            return 0;
        }
        long sum = 0;
        for (long bytes : THREADS.getThreadAllocatedBytes(ids)) {
            if (bytes > 0) {
                sum += bytes;
            }
        }
        return sum;
    }
}
