package io.softrdma.rsocket;

import static io.softrdma.rsocket.RSocketPair.TIMEOUT;
import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.rsocket.Payload;
import io.rsocket.RSocket;
import io.rsocket.util.ByteBufPayload;
import io.softrdma.rdmap.RdmapOpcode;
import io.softrdma.reactive.MessagingOptions;
import io.softrdma.verbs.QueuePairCounters;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;

/** The transports' own messaging sizes: frames of 4 KiB payloads go inline, and the sizes only ever go up. */
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
        assertThat(RSocketMessaging.DEFAULTS.inlineSize()).isEqualTo(8192);
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
