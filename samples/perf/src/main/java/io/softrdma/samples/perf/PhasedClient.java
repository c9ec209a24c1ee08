package io.softrdma.samples.perf;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import java.util.concurrent.CompletableFuture;

/**
 * A client that runs a warm-up phase (unless empty) and then the measured one on its connection,
 * each for its budget, paced when a rate is given.
 */
abstract class PhasedClient extends ChannelInboundHandlerAdapter {
    private final Budget[] phases;
    private final double rate;
    private final int pacedSize;
    private final Runnable measuring;
    private final CompletableFuture<Long> elapsed;
    ChannelHandlerContext ctx;
    Pacer pacer;
    private int phase;
    private long start;
    long deadline;

    PhasedClient(Budget warmup, Budget budget, double rate, int pacedSize, Runnable measuring,
            CompletableFuture<Long> elapsed) {
        this.phases = warmup.isEmpty() ? new Budget[] {budget} : new Budget[] {warmup, budget};
        this.rate = rate;
        this.pacedSize = pacedSize;
        this.measuring = measuring;
        this.elapsed = elapsed;
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
        this.ctx = ctx;
        this.pacer = new Pacer(rate, pacedSize, ctx.executor(), this::proceed);
        begin();
    }

    private void begin() {
        if (measured()) {
            measuring.run();
        }
        start = System.nanoTime();
        deadline = phases[phase].deadline(start);
        pacer.start(start);
        startPhase(phases[phase]);
    }

    boolean measured() {
        return phase == phases.length - 1;
    }

    /** The current phase is over: the next begins, or the run ends. */
    void phaseDone() {
        if (++phase < phases.length) {
            begin();
        } else {
            elapsed.complete(System.nanoTime() - start);
        }
    }

    boolean pastDeadline() {
        return System.nanoTime() - deadline >= 0;
    }

    /** The run failed: it ends with {@code cause}. */
    void failed(Throwable cause) {
        elapsed.completeExceptionally(cause);
    }

    /** Resets the counters for a phase of this budget and starts it. */
    abstract void startPhase(Budget budget);

    /** Sends what may be sent now. */
    abstract void proceed();
}
