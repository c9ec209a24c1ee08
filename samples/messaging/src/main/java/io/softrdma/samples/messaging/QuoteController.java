package io.softrdma.samples.messaging;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.math.BigDecimal;
import java.time.Instant;
import org.springframework.context.annotation.Profile;
import org.springframework.messaging.handler.annotation.MessageMapping;
import org.springframework.stereotype.Controller;
import reactor.core.publisher.Flux;
import reactor.core.scheduler.Schedulers;

/**
 * Quotes: request-stream ({@code quotes.stream}), a producer as fast as it is asked to be. It makes a quote only
 * when one is requested ({@link Flux#generate}): the requester's REQUEST_N frames are its pace, so a slow consumer
 * slows it down, and the meter {@code messaging.quotes.emitted} tracks what the consumer has taken plus its request
 * window. Underneath, each quote is one RSocket frame, one SoftRDMA message sent against the receiver's credit.
 *
 * <p>Thread safety: thread-safe; each stream has its own sequence. Buffers: none; Spring's codecs encode each quote
 * into a frame that RSocket and the transport own from then on.
 */
@Controller
@Profile("server")
public class QuoteController {
    private final Counter emitted;

    QuoteController(MeterRegistry registry) {
        this.emitted = Counter.builder("messaging.quotes.emitted").baseUnit("quotes")
                .description("quotes made by quotes.stream: as many as the requesters asked for").register(registry);
    }

    /**
     * Request-stream: quotes of {@code request.symbol()}, without end, each as soon as it is requested. They are made
     * on a worker, not on the connection's event loop that delivers the requests: a requester that asks for
     * everything at once (REQUEST_N of 2^31-1) would otherwise keep that loop making quotes, and its CANCEL could
     * never be read. Such a requester gets quotes as fast as they are made, queued in RSocket's send queue ahead of
     * the transport's credits; a consumer that asks for what it can take, as {@link MessagingClient} does, holds the
     * producer to its pace.
     */
    @MessageMapping("quotes.stream")
    Flux<Quote> stream(QuoteRequest request) {
        String symbol = request.symbol();
        return Flux.<Quote, Long>generate(() -> 0L, (sequence, sink) -> {
            emitted.increment();
            sink.next(new Quote(symbol, sequence, price(sequence), Instant.now()));
            return sequence + 1;
        }).subscribeOn(Schedulers.parallel());
    }

    /** A price that moves: 100.00 to 104.98, 79 cents a step, modulo 4.99. */
    private static BigDecimal price(long sequence) {
        return BigDecimal.valueOf(10_000 + (sequence * 79) % 499, 2);
    }
}
