package io.softrdma.reactive;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.Unpooled;
import io.softrdma.testing.WithoutLeakTracking;
import io.softrdma.verbs.QueuePairState;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.test.StepVerifier;

/**
 * Backpressure at scale, with Netty's leak tracking off (at PARANOID it records every buffer access,
 * and a million messages would take minutes); MessagingTest covers the same paths with tracking on.
 */
@ExtendWith(WithoutLeakTracking.class)
class MillionMessagesTest {
    /**
     * The backpressure test: a consumer requesting one message at a time against a producer as
     * fast as credits allow, a million messages: none lost, none out of order, no Terminate, and never
     * more messages buffered at the receiver than its receive queue holds.
     */
    @Test
    void aMillionMessagesToAConsumerRequestingOneAtATime() throws Exception {
        try (SessionPair pair = new SessionPair(c -> c.withReceiveQueueDepth(16))) {
            int count = Integer.getInteger("softrdma.test.messages", 1_000_000);
            AtomicLong next = new AtomicLong();
            AtomicLong mostBuffered = new AtomicLong();
            Mono<Void> sending = pair.client.send(Flux.range(0, count)
                    .map(i -> Unpooled.directBuffer(8).writeLong(i)));
            Flux<Long> receiving = pair.serverSession.receive().limitRate(1).map(b -> {
                mostBuffered.accumulateAndGet(pair.serverSession.messagesBuffered(), Math::max);
                return b.readLong();
            });
            StepVerifier.create(Flux.merge(sending.then(Mono.<Long>empty()), receiving).take(count)
                    .filter(v -> v != next.getAndIncrement()).count())
                    .expectNext(0L).expectComplete().verify(Duration.ofMinutes(5));
            assertThat(next.get()).isEqualTo(count);
            // Batches pack up to (4096 - 8) / (4 + 8) = 340 of these 8-octet messages into one receive buffer: what
            // waits at the receiver is bounded by its 16 buffers, not by the million.
            assertThat(mostBuffered.get()).as("messages waiting at the receiver")
                    .isLessThanOrEqualTo(16 * ((MessagingOptions.DEFAULTS.inlineSize() - 8) / 12));
            assertThat(pair.client.connection().queuePair().state()).isEqualTo(QueuePairState.RTS);
            assertThat(pair.serverSession.connection().queuePair().state()).isEqualTo(QueuePairState.RTS);
        }
    }
}
