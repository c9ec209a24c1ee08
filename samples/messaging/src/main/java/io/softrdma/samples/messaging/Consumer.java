package io.softrdma.samples.messaging;

import io.softrdma.reactive.RdmaSession;
import io.softrdma.spring.autoconfigure.RdmaSessionHandler;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.reactivestreams.Publisher;
import org.springframework.context.annotation.Profile;
import org.springframework.stereotype.Component;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;
import reactor.core.publisher.Mono;

/**
 * The consumer: takes each producer's messages one at a time, spending {@code messaging.consume-delay} on each, and
 * checks that they come in order. Its demand of one message at a time is all the credit the producer gets, so the
 * producer sends at this pace and nothing piles up. {@code GET /stats} shows the counts.
 */
@Component
@Profile("consumer")
@RestController
public class Consumer implements RdmaSessionHandler {
    private static final Log log = LogFactory.getLog(Consumer.class);

    private final MessagingProperties properties;
    private final Rate received = new Rate();
    private final AtomicLong outOfOrder = new AtomicLong();
    private final AtomicLong expected = new AtomicLong();

    Consumer(MessagingProperties properties) {
        this.properties = properties;
    }

    @Override
    public Publisher<Void> handle(RdmaSession session) {
        log.info("consuming from " + session.connection().remoteAddress() + ", "
                + properties.consumeDelay().toMillis() + " ms per message");
        expected.set(0);
        // Each message is decoded as it arrives (the library releases its buffer when onNext returns); the slow
        // work after it is what demand, and so credit, waits for.
        return session.receive()
                .map(m -> m.getLong(m.readerIndex()))
                .concatMap(sequence -> Mono.delay(properties.consumeDelay()).thenReturn(sequence), 1)
                .doOnNext(this::consume)
                .then();
    }

    private void consume(long sequence) {
        if (sequence != expected.getAndIncrement()) {
            outOfOrder.incrementAndGet();
            expected.set(sequence + 1);
        }
        received.add();
        if (sequence % 1000 == 0) {
            log.info("consumed message " + sequence + " (" + Math.round(received.perSecond()) + " msgs/s)");
        }
    }

    @GetMapping("/stats")
    Map<String, Object> stats() {
        Map<String, Object> s = new LinkedHashMap<>();
        s.put("received", received.count());
        s.put("perSecond", Math.round(received.perSecond()));
        s.put("outOfOrder", outOfOrder.get());
        return s;
    }

    long received() {
        return received.count();
    }

    long outOfOrder() {
        return outOfOrder.get();
    }
}
