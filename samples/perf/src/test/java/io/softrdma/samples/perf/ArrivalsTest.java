package io.softrdma.samples.perf;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class ArrivalsTest {
    @Test
    void aWaitCompletesOnceItsCountArrives() {
        Arrivals arrivals = new Arrivals();
        CompletableFuture<Void> two = arrivals.await(2);
        arrivals.arrived();
        assertThat(two).isNotDone();
        arrivals.arrived();
        assertThat(two).isDone();
        assertThat(arrivals.await(1)).as("a count already reached").isDone();
    }

    /**
     * A phase waits for all it sent while the next arrivals still come (a fire-and-forget stream's, counted on the
     * responder's event loop): no wait may complete before the count reaches its own target, whatever the previous
     * wait's target was. Each wait here is set while arrivals run far past the previous target.
     */
    @Test
    void noWaitCompletesBeforeItsCountWhileArrivalsRace() throws Exception {
        Arrivals arrivals = new Arrivals();
        AtomicBoolean stop = new AtomicBoolean();
        AtomicLong early = new AtomicLong();
        Thread counter = new Thread(() -> {
            while (!stop.get()) {
                arrivals.arrived();
            }
        });
        counter.start();
        try {
            long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(500);
            while (System.nanoTime() < deadline) {
                long target = arrivals.count() + 1_000;
                CompletableFuture<Void> f = arrivals.await(target);
                f.get(10, TimeUnit.SECONDS);
                if (arrivals.count() < target) {
                    early.incrementAndGet();
                }
            }
        } finally {
            stop.set(true);
            counter.join();
        }
        assertThat(early.get()).as("waits completed before their count arrived").isZero();
    }
}
