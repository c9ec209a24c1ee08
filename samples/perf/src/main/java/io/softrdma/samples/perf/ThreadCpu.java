package io.softrdma.samples.perf;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.util.ArrayList;
import java.util.List;

/**
 * CPU time used by the threads whose names start with a prefix (an event loop group's), so that a
 * phase can report how busy each side was: on loopback both sides share the machine, and the side
 * that saturates its core is where the time goes. Kernel work done for a thread (its system calls,
 * and on loopback much of the peer's TCP receive processing) counts too.
 *
 * <p>Thread safety: {@link #restart} may be called from any thread, {@link #utilization} afterwards.
 */
final class ThreadCpu {
    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

    private final String prefix;
    private volatile long[] threadIds;
    private volatile long startCpu;
    private volatile long startWall;

    private ThreadCpu(String prefix) {
        this.prefix = prefix;
    }

    /** Starts measuring the threads named {@code prefix...}. */
    static ThreadCpu start(String prefix) {
        ThreadCpu t = new ThreadCpu(prefix);
        t.restart();
        return t;
    }

    /** Measures from now on, the threads alive now (event loops start their thread on first use). */
    void restart() {
        threadIds = threadsNamed(prefix);
        startCpu = cpuNanos();
        startWall = System.nanoTime();
    }

    private static long[] threadsNamed(String prefix) {
        List<Long> ids = new ArrayList<>();
        long[] all = THREADS.getAllThreadIds();
        ThreadInfo[] infos = THREADS.getThreadInfo(all, 0);
        for (ThreadInfo info : infos) {
            if (info != null && info.getThreadName().startsWith(prefix)) {
                ids.add(info.getThreadId());
            }
        }
        return ids.stream().mapToLong(Long::longValue).toArray();
    }

    /** The share of one core these threads used since the (re)start: 1.0 is one core fully busy. */
    double utilization() {
        long wall = System.nanoTime() - startWall;
        long[] ids = threadIds;
        if (ids.length == 0 || !THREADS.isThreadCpuTimeSupported() || wall <= 0) {
            return Double.NaN;
        }
        return (double) (cpuNanos() - startCpu) / wall;
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
}
