package io.softrdma.rsocket;

import static io.softrdma.rsocket.RSocketPair.TIMEOUT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.netty.buffer.ByteBuf;
import io.rsocket.Payload;
import io.rsocket.RSocket;
import io.rsocket.util.ByteBufPayload;
import io.softrdma.rdmap.RdmapOpcode;
import io.softrdma.reactive.MessagingOptions;
import io.softrdma.verbs.QueuePairCounters;
import io.netty.channel.EventLoop;
import io.softrdma.reactive.RdmaSession;
import io.softrdma.reactive.SessionStatistics;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;

/**
 * The transports' own messaging sizes: frames of 4 KiB payloads go inline, three to a Send when they are queued
 * together, and the sizes only ever go up.
 */
class RSocketMessagingTest {
    private static final RSocket ECHO_LENGTH = new RSocket() {
        @Override
        public Mono<Payload> requestResponse(Payload p) {
            try {
                return Mono.just(Payloads.text(Integer.toString(p.data().readableBytes())));
            } finally {
                p.release();
            }
        }
    };

    @Test
    void theTransportsFactoriesUseRSocketsSizes() {
        assertThat(RdmaClientTransport.create("127.0.0.1", 7471).client().configuration().session().messaging())
                .isEqualTo(RSocketMessaging.DEFAULTS);
        assertThat(RdmaServerTransport.create("127.0.0.1", 0).server().configuration().session().messaging())
                .isEqualTo(RSocketMessaging.DEFAULTS);
        assertThat(RSocketMessaging.DEFAULTS.inlineSize()).isEqualTo(16384);
        assertThat(RSocketMessaging.DEFAULTS.sendWindowBytes()).isEqualTo(8L << 20);
        assertThat(RSocketMessaging.DEFAULTS.maxMessageSize()).isEqualTo(MessagingOptions.DEFAULTS.maxMessageSize());
    }

    @Test
    void ofRaisesSmallerSizesAndKeepsLargerOnesAndEverythingElse() {
        MessagingOptions small = MessagingOptions.DEFAULTS.withMaxQueuedOperations(7).withRemoteInvalidation(false);
        MessagingOptions raised = RSocketMessaging.of(small);
        assertThat(raised.inlineSize()).isEqualTo(RSocketMessaging.INLINE_SIZE);
        assertThat(raised.sendWindowBytes()).isEqualTo(RSocketMessaging.SEND_WINDOW_BYTES);
        assertThat(raised.maxQueuedOperations()).isEqualTo(7);
        assertThat(raised.remoteInvalidation()).isFalse();
        MessagingOptions large = MessagingOptions.DEFAULTS.withInlineSize(32 * 1024).withSendWindow(10, 64L << 20);
        assertThat(RSocketMessaging.of(large)).isEqualTo(large);
    }

    /**
     * The reason for the sizes: a 4 KiB payload's frame (6 octets of header, spec "Frame Header Format", then the
     * data) does not fit the library's 4 KiB Send (4,088 octets after SoftRDMA's header) and costs an RDMA Read
     * (RFC 5040 §4.4); with {@link RSocketMessaging#DEFAULTS} it goes in the Send itself.
     */
    @Test
    void aFourKibibytePayloadGoesInlineWithRSocketsSizesAndByReadWithoutThem() {
        assertThat(readsForOneFourKibibyteRequest(MessagingOptions.DEFAULTS)).as("library defaults").isEqualTo(1);
        assertThat(readsForOneFourKibibyteRequest(RSocketMessaging.DEFAULTS)).as("RSocket's").isZero();
    }

    /**
     * Why 16 KiB rather than just enough for one such frame: frames of 4 KiB payloads (4,102 octets each) that queue
     * together share one Send, a BATCH of three (docs/protocol.md), so its work request, FPDU, CRC32c and completion
     * are paid once for the three.
     */
    @Test
    void threeFourKibibyteFramesQueuedTogetherShareOneSend() throws Exception {
        AtomicInteger arrived = new AtomicInteger();
        RSocket counting = new RSocket() {
            @Override
            public Mono<Void> fireAndForget(Payload p) {
                p.release();
                arrived.incrementAndGet();
                return Mono.empty();
            }
        };
        try (RSocketPair pair = new RSocketPair(counting, s -> s, c -> c,
                s -> s.messaging(RSocketMessaging.DEFAULTS), c -> c.messaging(RSocketMessaging.DEFAULTS))) {
            pair.client.fireAndForget(ByteBufPayload.create(Payloads.pattern(4096, 1))).block(TIMEOUT);
            await().atMost(TIMEOUT).until(() -> arrived.get() == 1);
            RdmaSession session = pair.clientConnection().session();
            // Credits settled both ways, so that neither a shortage nor a standalone CREDIT splits the three.
            await().atMost(TIMEOUT).until(() -> {
                SessionStatistics s = session.statistics();
                return s.creditsAvailable() > 8 && s.creditsGranted() > 8;
            });
            QueuePairCounters counters = session.statistics().counters();
            long sendsBefore = counters.messages(RdmapOpcode.SEND, false);
            long octetsBefore = counters.octets(RdmapOpcode.SEND, false);
            EventLoop loop = session.connection().channel().eventLoop();
            // Queued together: handed to RSocket in one task of the loop that sends them.
            loop.submit(() -> {
                for (int i = 2; i <= 4; i++) {
                    pair.client.fireAndForget(ByteBufPayload.create(Payloads.pattern(4096, i))).subscribe();
                }
            }).get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
            await().atMost(TIMEOUT).until(() -> arrived.get() == 4);
            assertThat(counters.messages(RdmapOpcode.SEND, false) - sendsBefore).as("Sends for three frames")
                    .isEqualTo(1);
            assertThat(counters.octets(RdmapOpcode.SEND, false) - octetsBefore).as("the Send's octets")
                    .isGreaterThan(3 * 4102L).isLessThanOrEqualTo(RSocketMessaging.INLINE_SIZE);
        }
    }

    private static long readsForOneFourKibibyteRequest(MessagingOptions messaging) {
        try (RSocketPair pair = new RSocketPair(ECHO_LENGTH, s -> s, c -> c, s -> s.messaging(messaging),
                c -> c.messaging(messaging))) {
            QueuePairCounters server = pair.serverConnection().session().statistics().counters();
            long before = server.messages(RdmapOpcode.RDMA_READ_REQUEST, false);
            ByteBuf data = Payloads.pattern(4096, 3);
            String answer = pair.client.requestResponse(ByteBufPayload.create(data)).map(Payloads::utf8)
                    .block(TIMEOUT);
            assertThat(answer).isEqualTo("4096");
            return server.messages(RdmapOpcode.RDMA_READ_REQUEST, false) - before;
        }
    }
}
