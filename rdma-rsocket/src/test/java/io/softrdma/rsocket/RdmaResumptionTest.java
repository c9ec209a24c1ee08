package io.softrdma.rsocket;

import static io.softrdma.rsocket.Payloads.numbered;
import static io.softrdma.rsocket.Payloads.utf8;
import static io.softrdma.rsocket.RSocketPair.TIMEOUT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.rsocket.Payload;
import io.rsocket.RSocket;
import io.rsocket.core.Resume;
import io.rsocket.resume.InMemoryResumableFramesStore;
import io.rsocket.util.ByteBufPayload;
import io.softrdma.rdmap.RdmapOpcode;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;
import org.reactivestreams.Subscription;
import reactor.core.publisher.BaseSubscriber;
import reactor.core.publisher.Flux;
import reactor.util.retry.Retry;

/**
 * RSocket resumption (spec "Resuming Operation": RESUME, RESUME_OK, the implied position) across a new RDMA
 * connection: the first connection breaks under a running stream, the client opens a second one with RSocket's
 * retry, and the stream goes on over it with no payload lost or duplicated.
 */
class RdmaResumptionTest {
    private static final int PAYLOADS = 20_000;
    /** Requested before the break: about half of it is still in flight, or queued, when the connection breaks. */
    private static final int FIRST_REQUEST = 10_000;

    @Test
    void specResumingOperationAStreamGoesOnOverASecondRdmaConnectionWithNothingLostOrDuplicated() throws Exception {
        try (RSocketPair pair = new RSocketPair(new RSocket() {
            @Override
            public Flux<Payload> requestStream(Payload p) {
                int n = Integer.parseInt(utf8(p));
                // Every 500th payload is above the inline threshold: a LARGE message lent for an RDMA Read, some of
                // them lent when the connection breaks and never read on it.
                return Flux.range(0, n).map(i -> i % 500 == 499
                        ? ByteBufPayload.create(Payloads.pattern(64 * 1024, i).setLong(0, i)) : numbered(i));
            }
        }, s -> s.resume(resume("server")), c -> c.resume(resume("client")
                .retry(Retry.fixedDelay(Long.MAX_VALUE, Duration.ofMillis(50)))), s -> s, c -> c)) {
            List<Long> received = new CopyOnWriteArrayList<>();
            CompletableFuture<Void> done = new CompletableFuture<>();
            BaseSubscriber<Long> subscriber = new BaseSubscriber<>() {
                @Override
                protected void hookOnSubscribe(Subscription s) {
                    s.request(FIRST_REQUEST);
                }

                @Override
                protected void hookOnNext(Long value) {
                    received.add(value);
                }

                @Override
                protected void hookOnComplete() {
                    done.complete(null);
                }

                @Override
                protected void hookOnError(Throwable t) {
                    done.completeExceptionally(t);
                }
            };
            pair.client.requestStream(Payloads.text(String.valueOf(PAYLOADS))).map(Payloads::index)
                    .subscribe(subscriber);

            await().atMost(TIMEOUT).until(() -> received.size() >= FIRST_REQUEST / 2);
            RdmaDuplexConnection first = pair.clientConnection();
            first.session().connection().channel().close(); // the TCP connection breaks under the stream
            int atBreak = received.size();
            subscriber.request(Long.MAX_VALUE);

            done.get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
            assertThat(received).containsExactlyElementsOf(LongStream.range(0, PAYLOADS).boxed().toList());
            assertThat(atBreak).isLessThan(FIRST_REQUEST);
            assertThat(first.isDisposed()).isTrue();
            assertThat(pair.clientConnections).hasSize(2);
            assertThat(pair.serverConnections).hasSize(2);
            RdmaDuplexConnection second = pair.clientConnection();
            assertThat(second.isDisposed()).isFalse();
            assertThat(second.session().statistics().counters().messages(RdmapOpcode.SEND, true)
                    + second.session().statistics().counters().messages(RdmapOpcode.SEND_WITH_INVALIDATE, true))
                    .as("Sends the client received over the second RDMA connection").isPositive();
            assertThat(pair.client.isDisposed()).isFalse();
        }
    }

    /**
     * Resumption with a store large enough for every frame the test may have in flight: RSocket's default, 100,000
     * octets, would drop frames the peer has not yet acknowledged (KEEPALIVE every 20 s), and the resumption would be
     * rejected for a reason that is the store's, not the transport's.
     */
    private static Resume resume(String tag) {
        return new Resume().sessionDuration(Duration.ofSeconds(30))
                .storeFactory(token -> new InMemoryResumableFramesStore(tag, token, 64 * 1024 * 1024));
    }
}
