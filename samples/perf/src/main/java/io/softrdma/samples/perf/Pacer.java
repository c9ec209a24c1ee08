package io.softrdma.samples.perf;

import io.netty.util.concurrent.EventExecutor;
import java.util.concurrent.TimeUnit;

/**
 * Spreads a phase's operations evenly at a given rate ({@code --rate}), for example so that a packet
 * capture of loopback traffic keeps up; unpaced when the rate is 0. Note: event loop only.
 */
final class Pacer {
    private final long nanosPerOperation;
    private final EventExecutor executor;
    private final Runnable resume;
    private final Runnable scheduledResume = this::scheduledResume;
    private long start;
    /** Operations that may have started at the last look at the clock. */
    private long allowed;
    private boolean resumeScheduled;

    /**
     * @param mibPerSecond the rate, or 0 for none
     * @param size octets per operation
     * @param executor the event loop the phase runs on
     * @param resume what to run when more operations may start
     */
    Pacer(double mibPerSecond, int size, EventExecutor executor, Runnable resume) {
        this.nanosPerOperation = mibPerSecond <= 0 ? 0
                : Math.max(1, (long) (1e9 * size / (mibPerSecond * 1024 * 1024)));
        this.executor = executor;
        this.resume = resume;
    }

    void start(long startNanos) {
        this.start = startNanos;
        this.allowed = 0;
    }

    /**
     * Whether operation number {@code started} (counting from 0) may start now; if not, arranges for
     * {@code resume} to run when it may.
     */
    boolean mayStart(long started) {
        if (nanosPerOperation == 0 || started < allowed) {
            return true;
        }
        long now = System.nanoTime();
        allowed = (now - start) / nanosPerOperation + 1;
        if (started < allowed) {
            return true;
        }
        if (!resumeScheduled) {
            resumeScheduled = true;
            long wait = start + started * nanosPerOperation - now;
            executor.schedule(scheduledResume, Math.max(wait, 1), TimeUnit.NANOSECONDS);
        }
        return false;
    }

    private void scheduledResume() {
        resumeScheduled = false;
        resume.run();
    }
}
