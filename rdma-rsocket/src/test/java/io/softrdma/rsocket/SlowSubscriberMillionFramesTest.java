package io.softrdma.rsocket;

import static io.softrdma.rsocket.Payloads.numbered;
import static io.softrdma.rsocket.Payloads.utf8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.netty.buffer.PooledByteBufAllocator;
import io.rsocket.Payload;
import io.rsocket.RSocket;
import io.softrdma.rdmap.RdmapOpcode;
import io.softrdma.reactive.RdmaSession;
import io.softrdma.testing.WithoutLeakTracking;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.reactivestreams.Subscription;
import reactor.core.Disposable;
import reactor.core.publisher.BaseSubscriber;
import reactor.core.publisher.Flux;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

/**
 * A slow subscriber for a million frames: a request-stream of 1,000,000 small payloads that the requester takes in
 * rounds, stopping between them, through {@code limitRate}. REQUEST_N (spec "Flow Control: Reactive Streams
 * Semantics") bounds what the responder may send, and under it SoftRDMA's credits bound what each side holds: memory
 * stays bounded, nothing is lost or reordered, no Terminate, and the connection stays open throughout.
 *
 * <p>Netty's leak tracking is off for this class ({@link WithoutLeakTracking}): at PARANOID it records every access
 * to every one of some three million buffers, which would make this a test of the leak detector. Every path this
 * test runs is run, tracked, by the other tests of this module; here the pool's own count of direct memory in use
 * stands in for it.
 */
@ExtendWith(WithoutLeakTracking.class)
class SlowSubscriberMillionFramesTest {
    private static final int PAYLOADS = 1_000_000;
    /** The subscriber takes this many, then stops until the test has looked at both ends. */
    private static final int ROUND = 100_000;
    /** What limitRate keeps requested ahead: the most the responder may have emitted beyond what was taken. */
    private static final int PREFETCH = 256;

    @Test
    void aMillionFramesToASlowSubscriberKeepMemoryBoundedWithNoTerminate() throws Exception {
        AtomicLong emitted = new AtomicLong();
        try (RSocketPair pair = new RSocketPair(new RSocket() {
            @Override
            public Flux<Payload> requestStream(Payload p) {
                int n = Integer.parseInt(utf8(p));
                return Flux.range(0, n).map(i -> numbered(i)).doOnNext(x -> emitted.incrementAndGet());
            }
        })) {
            RdmaDuplexConnection serverConnection = pair.serverConnection();
            RdmaSession client = pair.clientConnection().session();
            RdmaSession server = serverConnection.session();
            long directBefore = PooledByteBufAllocator.DEFAULT.metric().usedDirectMemory();

            // What each side holds, sampled while the frames flow.
            AtomicLong maxQueued = new AtomicLong();
            AtomicLong maxBuffered = new AtomicLong();
            AtomicLong maxDirect = new AtomicLong();
            Scheduler sampling = Schedulers.newSingle("sampler");
            Disposable sampler = Flux.interval(Duration.ofMillis(2), sampling).subscribe(t -> {
                maxQueued.accumulateAndGet(serverConnection.framesQueued(), Math::max);
                maxBuffered.accumulateAndGet(client.messagesBuffered() + server.messagesBuffered(), Math::max);
                maxDirect.accumulateAndGet(PooledByteBufAllocator.DEFAULT.metric().usedDirectMemory(), Math::max);
            });

            Rounds subscriber = new Rounds();
            pair.client.requestStream(Payloads.text(String.valueOf(PAYLOADS))).limitRate(PREFETCH)
                    .publishOn(Schedulers.single(), 32).map(Payloads::index).subscribe(subscriber);
            try {
                for (long taken = ROUND; taken <= PAYLOADS; taken += ROUND) {
                    long round = taken;
                    await().atMost(RSocketPair.TIMEOUT).until(() -> subscriber.received.get() == round);
                    // Stopped: the responder is held by REQUEST_N, at most what limitRate and publishOn prefetched.
                    await().atMost(RSocketPair.TIMEOUT).untilAsserted(() -> {
                        assertThat(serverConnection.framesQueued()).isZero();
                        assertThat(client.messagesBuffered()).isZero();
                    });
                    assertThat(emitted.get() - round).isBetween(0L, (long) PREFETCH + 32);
                    assertThat(client.isDisposed()).isFalse();
                    subscriber.request(ROUND);
                }
                subscriber.done.get(RSocketPair.TIMEOUT.toSeconds(), TimeUnit.SECONDS);
            } finally {
                sampler.dispose();
                sampling.dispose();
            }

            assertThat(subscriber.failure.get()).isNull();
            assertThat(subscriber.received).hasValue(PAYLOADS);
            assertThat(emitted).hasValue(PAYLOADS);
            assertThat(maxQueued.get()).as("frames queued at the responder").isLessThanOrEqualTo(PREFETCH + 32);
            assertThat(maxBuffered.get()).as("messages held by either session")
                    .isLessThanOrEqualTo(client.statistics().receiveBuffersPosted()
                            + server.statistics().receiveBuffersPosted() + 2L * PREFETCH);
            assertThat(maxDirect.get() - directBefore).as("pooled direct memory taken while the frames flowed")
                    .isLessThan(64L * 1024 * 1024);
            for (RdmaSession s : new RdmaSession[] {client, server}) {
                assertThat(s.isDisposed()).isFalse();
                assertThat(s.statistics().counters().messages(RdmapOpcode.TERMINATE, true)).isZero();
                assertThat(s.statistics().counters().messages(RdmapOpcode.TERMINATE, false)).isZero();
            }
            assertThat(pair.client.isDisposed()).isFalse();
        }
    }

    /** Takes a round, then stops until asked for the next; checks that every index comes once, in order. */
    private static final class Rounds extends BaseSubscriber<Long> {
        final AtomicLong received = new AtomicLong();
        final AtomicReference<String> failure = new AtomicReference<>();
        final CompletableFuture<Void> done = new CompletableFuture<>();

        @Override
        protected void hookOnSubscribe(Subscription s) {
            s.request(ROUND);
        }

        @Override
        protected void hookOnNext(Long index) {
            long expected = received.getAndIncrement();
            if (index != expected && failure.get() == null) {
                failure.set("payload " + index + " arrived where " + expected + " was due");
            }
        }

        @Override
        protected void hookOnComplete() {
            done.complete(null);
        }

        @Override
        protected void hookOnError(Throwable t) {
            done.completeExceptionally(t);
        }
    }
}
