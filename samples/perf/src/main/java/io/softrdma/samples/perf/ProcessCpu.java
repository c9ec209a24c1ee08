package io.softrdma.samples.perf;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The CPU time of another process (Redis), from Linux's {@code /proc/<pid>/stat}: user plus system time of all its
 * threads, in clock ticks, over the wall time between {@link #restart} and {@link #utilization}.
 *
 * <p>Thread safety: {@link #restart} and {@link #utilization} from one thread at a time.
 */
final class ProcessCpu {
    /**
     * Clock ticks per second of {@code /proc}'s times ({@code USER_HZ}): 100 on every Linux architecture Java runs
     * on (the kernel exports times in that unit whatever its internal HZ).
     */
    private static final double TICKS_PER_SECOND = 100;

    private final Path stat;
    private long startTicks;
    private long startWall;

    ProcessCpu(long pid) {
        this.stat = Path.of("/proc", Long.toString(pid), "stat");
        restart();
    }

    void restart() {
        startTicks = ticks();
        startWall = System.nanoTime();
    }

    /** The share of one core used since the restart, or NaN where {@code /proc} cannot tell (not Linux). */
    double utilization() {
        long ticks = ticks();
        long wall = System.nanoTime() - startWall;
        if (ticks < 0 || startTicks < 0 || wall <= 0) {
            return Double.NaN;
        }
        return (ticks - startTicks) / TICKS_PER_SECOND / (wall / 1e9);
    }

    /** utime + stime (fields 14 and 15 of proc(5)), or -1 when unreadable. */
    private long ticks() {
        try {
            String line = Files.readString(stat);
            // The command name (field 2) is in parentheses and may hold spaces: count fields after its end.
            String[] fields = line.substring(line.lastIndexOf(')') + 2).split(" ");
            return Long.parseLong(fields[11]) + Long.parseLong(fields[12]);
        } catch (IOException | RuntimeException e) {
            return -1;
        }
    }
}
