package io.softrdma.samples.messaging;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import io.softrdma.testing.HttpProbe;
import org.junit.jupiter.api.Test;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * The producer and the slow consumer on loopback, in one JVM: every message arrives in order; the producer never
 * gets far ahead of the consumer (its demand is the producer's credit) and so runs at the consumer's pace; both
 * report UP and show the credit meters in {@code /actuator/prometheus}.
 */
class MessagingEndToEndTest {
    private static final int MESSAGES = 1500;
    @Test
    void aSlowConsumerThrottlesTheProducerAndLosesNothing() throws Exception {
        try (ConfigurableApplicationContext consumer = new SpringApplicationBuilder(MessagingApplication.class)
                .profiles("consumer").run("--server.port=0", "--rdma.server.port=0", "--rdma.server.address=127.0.0.1",
                        "--messaging.consume-delay=2ms")) {
            int consumerHttp = consumer.getEnvironment().getRequiredProperty("local.server.port", Integer.class);
            int consumerRdma = consumer.getEnvironment().getRequiredProperty("local.rdma.server.port", Integer.class);
            long start = System.nanoTime();
            try (ConfigurableApplicationContext producer = new SpringApplicationBuilder(MessagingApplication.class)
                    .profiles("producer").run("--server.port=0", "--rdma.client.host=127.0.0.1",
                            "--rdma.client.port=" + consumerRdma, "--messaging.messages=" + MESSAGES)) {
                Producer p = producer.getBean(Producer.class);
                Consumer c = consumer.getBean(Consumer.class);
                java.util.concurrent.atomic.AtomicLong ahead = new java.util.concurrent.atomic.AtomicLong();
                // Each poll also samples how far the producer is ahead.
                await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(20)).until(() -> {
                    ahead.accumulateAndGet(p.produced() - c.received(), Math::max);
                    return c.received() >= MESSAGES;
                });
                long mostAhead = ahead.get();
                double seconds = (System.nanoTime() - start) / 1e9;
                assertThat(c.received()).isEqualTo(MESSAGES);
                assertThat(c.outOfOrder()).isZero();
                // The producer was held to the consumer's pace: its send window (64) plus what the consumer's
                // reserve buffers hold (a few 1 KB messages per 4 KB Send) — never the whole stream.
                assertThat(mostAhead).as("messages produced ahead of the consumer").isLessThan(200);
                // 2 ms a message: at most ~500 a second, so 1500 take at least ~3 s end to end.
                assertThat(seconds).as("seconds for %d messages at 2 ms each", MESSAGES).isGreaterThan(2.5);

                int producerHttp = producer.getEnvironment().getRequiredProperty("local.server.port", Integer.class);
                for (int port : new int[] {consumerHttp, producerHttp}) {
                    assertThat(HttpProbe.get(port, "/actuator/health")).contains("\"status\":\"UP\"").contains("\"rdma\":{");
                }
                assertThat(HttpProbe.get(producerHttp, "/stats")).contains("\"produced\":" + MESSAGES);
                String consumed = HttpProbe.get(consumerHttp, "/actuator/prometheus");
                assertThat(HttpProbe.sample(consumed, "rdma_messages_total{direction=\"received\",opcode=\"send\","
                        + "role=\"server\"}")).as("Sends (several messages each)").isPositive();
                assertThat(HttpProbe.sample(consumed, "rdma_bytes_total{direction=\"received\",opcode=\"send\",role=\"server\"}"))
                        .isGreaterThanOrEqualTo(MESSAGES * 1024.0);
                assertThat(consumed).contains("rdma_credits_granted_credits{role=\"server\"}");
                String produced = HttpProbe.get(producerHttp, "/actuator/prometheus");
                assertThat(produced).contains("rdma_credits_available_credits{role=\"client\"}");
                assertThat(HttpProbe.sample(produced, "rdma_connections{role=\"client\"}")).isEqualTo(1);
            }
        }
    }
}
