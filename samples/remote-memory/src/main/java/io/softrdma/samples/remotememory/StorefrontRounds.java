package io.softrdma.samples.remotememory;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.springframework.boot.context.event.ApplicationReadyEvent;
import org.springframework.context.event.EventListener;
import reactor.core.publisher.Flux;

/**
 * What the client does every {@code remote-memory.interval}, and checks: counts a visit (the count must grow), reads
 * every price (each must be consistent and no older than the last seen), and looks up three products twice (the
 * second lookups must come from the cache). Each round is logged and kept; a round that fails says why and the next
 * one tries again (a service pod may be restarting: {@code RemoteMemory} reconnects).
 *
 * <p>Thread safety: rounds run one at a time on one thread; {@link #results()} from any thread.
 */
public final class StorefrontRounds {
    private static final Log log = LogFactory.getLog(StorefrontRounds.class);
    private static final Duration TIMEOUT = Duration.ofSeconds(30);

    /**
     * One round's outcome.
     *
     * @param round its number, from 1
     * @param passed whether every check held
     * @param detail what was seen, or what failed
     */
    public record Result(int round, boolean passed, String detail) {
    }

    private final Storefront storefront;
    private final ProductCatalog catalog;
    private final SampleProperties sample;
    private final List<Result> results = new CopyOnWriteArrayList<>();
    private final ScheduledExecutorService rounds = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "storefront-rounds");
        t.setDaemon(true);
        return t;
    });
    private long lastVisits = -1;
    private long lastRevision;

    StorefrontRounds(Storefront storefront, ProductCatalog catalog, SampleProperties sample) {
        this.storefront = storefront;
        this.catalog = catalog;
        this.sample = sample;
    }

    /**
     * Starts the rounds once the application is ready, on a thread of their own: a round waits for its answers, which
     * Reactor's non-blocking schedulers forbid.
     */
    @EventListener(ApplicationReadyEvent.class)
    public void start() {
        rounds.scheduleWithFixedDelay(() -> results.add(round(results.size() + 1)), 0,
                sample.interval().toNanos(), TimeUnit.NANOSECONDS);
    }

    /** Stops the rounds, waiting for one under way. */
    public void stop() throws InterruptedException {
        rounds.shutdownNow();
        rounds.awaitTermination(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
    }

    /** The rounds run so far. */
    public List<Result> results() {
        return List.copyOf(results);
    }

    private Result round(int n) {
        Result r;
        try {
            r = new Result(n, true, check());
            log.info("round " + n + " passed: " + r.detail());
        } catch (RuntimeException | AssertionError e) {
            r = new Result(n, false, String.valueOf(e.getMessage()));
            log.warn("round " + n + " failed: " + r.detail());
        }
        return r;
    }

    private String check() {
        long visits = storefront.visit().block(TIMEOUT);
        if (visits <= lastVisits) {
            throw new AssertionError("the visit count went from " + lastVisits + " to " + visits);
        }
        lastVisits = visits;

        List<Price> prices = Flux.range(0, sample.skus()).concatMap(storefront::price).collectList().block(TIMEOUT);
        long oldest = Long.MAX_VALUE;
        for (Price p : prices) {
            if (!p.consistent()) {
                throw new AssertionError("price " + p + " is not one the service published");
            }
            oldest = Math.min(oldest, p.revision());
        }
        if (oldest < lastRevision) {
            throw new AssertionError("a price went back to revision " + oldest + " after " + lastRevision);
        }
        lastRevision = oldest;

        int loadsBefore = catalog.loads();
        List<String> ids = List.of("p-" + n(0), "p-" + n(1), "p-" + n(2));
        List<Product> first = new ArrayList<>();
        for (String id : ids) {
            first.add(catalog.product(id));
        }
        for (int i = 0; i < ids.size(); i++) {
            Product again = catalog.product(ids.get(i));
            if (!first.get(i).equals(again)) {
                throw new AssertionError("the cache answered " + again + " for " + first.get(i));
            }
        }
        int loaded = catalog.loads() - loadsBefore;
        if (loaded > ids.size()) {
            throw new AssertionError("products were loaded " + loaded + " times for " + ids.size()
                    + " distinct ones: the second lookups missed the cache");
        }
        return "visit " + (visits + 1) + ", " + prices.size() + " prices at revision >= " + oldest + ", "
                + ids.size() + " products looked up twice, " + loaded + " loaded (the rest from the RDMA cache)";
    }

    /** The products of this round: a few new ones each round, so that loads and hits both show. */
    private int n(int i) {
        return (results.size() * 2 + i) % 50;
    }
}
