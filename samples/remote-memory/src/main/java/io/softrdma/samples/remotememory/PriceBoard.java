package io.softrdma.samples.remotememory;

import io.netty.buffer.ByteBufAllocator;
import io.softrdma.memory.MemoryCodec;
import io.softrdma.memory.ServerRegion;
import io.softrdma.spring.memory.RdmaMemoryServer;
import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.springframework.boot.context.event.ApplicationReadyEvent;
import org.springframework.context.event.EventListener;

/**
 * The service's own use of its memory: it publishes every SKU's price in region {@code prices} as a versioned record
 * when the application is ready, then republishes them every interval. Clients read the records with one-sided RDMA
 * Reads while it writes; the record's version and checksum make them retry rather than see half a price.
 *
 * <p>Thread safety: start and stop by the application context; the updates run on one thread, one at a time.
 */
public final class PriceBoard {
    private final RdmaMemoryServer memory;
    private final int skus;
    private final Duration interval;
    private final AtomicLong revision = new AtomicLong();
    private final ScheduledExecutorService updates = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "price-board");
        t.setDaemon(true);
        return t;
    });

    PriceBoard(RdmaMemoryServer memory, int skus, Duration interval) {
        this.memory = memory;
        this.skus = skus;
        this.interval = interval;
    }

    /**
     * Publishes the first prices once the memory server runs, and schedules the next on a thread of their own: a
     * record write may wait for a remote writer to let go of the record, which no event loop or Reactor non-blocking
     * thread may do.
     */
    @EventListener(ApplicationReadyEvent.class)
    public void start() {
        publish();
        updates.scheduleWithFixedDelay(this::publish, interval.toNanos(), interval.toNanos(), TimeUnit.NANOSECONDS);
    }

    /** Stops the updates, waiting for one under way. */
    public void stop() throws InterruptedException {
        updates.shutdownNow();
        updates.awaitTermination(10, TimeUnit.SECONDS);
    }

    /** The revision last published, 0 before the first. */
    public long revision() {
        return revision.get();
    }

    private void publish() {
        ServerRegion prices = memory.region("prices");
        long next = revision.get() + 1;
        for (int sku = 0; sku < skus; sku++) {
            prices.writeRecord(Layout.price(sku),
                    MemoryCodec.json().encode(Price.of(sku, next), ByteBufAllocator.DEFAULT));
        }
        revision.set(next);
    }

    @Override
    public String toString() {
        return "PriceBoard{skus=" + skus + ", revision=" + revision() + "}";
    }
}
