package io.softrdma.samples.messaging;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.math.BigDecimal;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.IntStream;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.springframework.boot.context.event.ApplicationReadyEvent;
import org.springframework.context.event.EventListener;
import org.springframework.messaging.rsocket.RSocketRequester;
import reactor.core.Disposable;
import reactor.core.Disposables;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.util.retry.Retry;

/**
 * The client role's work, through an {@link RSocketRequester} only, once the application is ready:
 * <ul>
 *   <li>a slow consumer of {@code quotes.stream}: it asks for {@code request-window} quotes ahead and spends
 *       {@code consume-delay} on each, so the server makes quotes at this pace, not its own;</li>
 *   <li>every {@code interval}, a round of the other routes: {@code orders.process} (a channel of
 *       {@code orders-per-round} orders, one of them invalid), {@code events.record} (fire-and-forget, one event per
 *       status) and {@code orders.get} (request-response, the first order of the round).</li>
 * </ul>
 * Meters: {@code messaging.quotes.consumed}, {@code messaging.client.rounds} per {@code outcome}.
 *
 * <p>Thread safety: thread-safe; started once, closed once. Buffers: none; the requester's codecs turn frames into
 * objects and release them.
 */
public class MessagingClient {
    private static final Log log = LogFactory.getLog(MessagingClient.class);

    private final RSocketRequester requester;
    private final MessagingProperties.Client settings;
    private final Counter consumed;
    private final Counter roundsPassed;
    private final Counter roundsFailed;
    private final AtomicLong lastSequence = new AtomicLong(-1);
    private final AtomicLong gaps = new AtomicLong();
    private final AtomicLong round = new AtomicLong();
    private final Disposable.Composite running = Disposables.composite();

    MessagingClient(RSocketRequester requester, MessagingProperties.Client settings, MeterRegistry registry) {
        this.requester = requester;
        this.settings = settings;
        this.consumed = Counter.builder("messaging.quotes.consumed").baseUnit("quotes")
                .description("quotes the client has finished with").register(registry);
        this.roundsPassed = Counter.builder("messaging.client.rounds").tag("outcome", "passed").baseUnit("rounds")
                .description("rounds of orders.process, events.record and orders.get").register(registry);
        this.roundsFailed = Counter.builder("messaging.client.rounds").tag("outcome", "failed").baseUnit("rounds")
                .description("rounds of orders.process, events.record and orders.get").register(registry);
    }

    /** Starts the quote consumer and the rounds when the application is ready. */
    @EventListener(ApplicationReadyEvent.class)
    void start() {
        log.info("streaming " + settings.symbol() + " quotes from " + settings.host() + ":" + settings.port() + ", "
                + settings.requestWindow() + " ahead, " + settings.consumeDelay().toMillis() + " ms each");
        running.add(quotes().subscribe());
        running.add(Flux.interval(Duration.ZERO, settings.interval())
                .onBackpressureDrop()
                .concatMap(tick -> round(round.incrementAndGet()), 1)
                .subscribe());
    }

    /**
     * The slow consumer. {@code limitRate} asks for {@code request-window} quotes, and for three quarters of that
     * again each time as many have been taken: those are the REQUEST_N frames the server's producer waits for. A
     * lost connection ends the stream with an error; it starts again, on a new connection, after a pause.
     */
    Flux<Quote> quotes() {
        return requester.route("quotes.stream").data(new QuoteRequest(settings.symbol()))
                .retrieveFlux(Quote.class)
                .limitRate(settings.requestWindow())
                .concatMap(q -> Mono.delay(settings.consumeDelay()).thenReturn(q), 1)
                .doOnNext(this::consume)
                .doOnSubscribe(s -> lastSequence.set(-1))
                .retryWhen(Retry.backoff(Long.MAX_VALUE, Duration.ofSeconds(1)).maxBackoff(Duration.ofSeconds(10))
                        .doBeforeRetry(r -> log.warn("quote stream ended (" + r.failure() + "); again")));
    }

    private void consume(Quote quote) {
        long previous = lastSequence.getAndSet(quote.sequence());
        if (quote.sequence() != previous + 1) {
            gaps.incrementAndGet();
        }
        consumed.increment();
        if (quote.sequence() % 1000 == 0) {
            log.info("consumed quote " + quote.sequence() + " of " + quote.symbol() + " at " + quote.price());
        }
    }

    /** One round: process orders (one invalid), record an event per status, read the first order back. */
    Mono<Void> round(long n) {
        List<Order> batch = IntStream.range(0, settings.ordersPerRound())
                .mapToObj(i -> new Order("r" + n + "-" + i, "message slot", i == 1 ? 0 : i + 1, new BigDecimal("1.50")))
                .toList();
        return requester.route("orders.process").data(Flux.fromIterable(batch)).retrieveFlux(OrderStatus.class)
                .concatMap(status -> requester.route("events.record")
                        .data(new Event(status.state() == OrderStatus.State.ACCEPTED ? "order.accepted"
                                : "order.rejected", status.orderId(), Instant.now()))
                        .send().thenReturn(status))
                .collectList()
                .flatMap(statuses -> requester.route("orders.get").data(new OrderRequest(batch.get(0).id()))
                        .retrieveMono(Order.class)
                        .doOnNext(order -> log.info("round " + n + ": " + statuses.size() + " statuses, "
                                + statuses.stream().filter(s -> s.state() == OrderStatus.State.ACCEPTED).count()
                                + " accepted; read back order " + order.id() + " (total " + order.total() + ")")))
                .doOnSuccess(o -> roundsPassed.increment())
                .doOnError(e -> {
                    roundsFailed.increment();
                    log.warn("round " + n + " failed: " + e);
                })
                .onErrorResume(e -> Mono.empty())
                .then();
    }

    /** Quotes whose sequence number was not the one after the last: none, unless a stream started over. */
    long gaps() {
        return gaps.get();
    }

    /** Stops the consumer and the rounds. */
    void close() {
        running.dispose();
    }
}
