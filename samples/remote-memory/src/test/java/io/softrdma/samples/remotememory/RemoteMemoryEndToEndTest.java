package io.softrdma.samples.remotememory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.List;
import io.softrdma.testing.HttpProbe;
import org.junit.jupiter.api.Test;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * Both applications of the sample on loopback, as they run in production but in one JVM: the service lends its
 * region, the client RDMA-Reads and RDMA-Writes it and checks it against the service's checksum, round after round;
 * then both report UP on {@code /actuator/health} and SoftRDMA's meters on {@code /actuator/prometheus}.
 */
class RemoteMemoryEndToEndTest {
    @Test
    void theClientReadsAndWritesTheServicesMemoryAndBothAreHealthyAndMeasured() throws Exception {
        try (ConfigurableApplicationContext service = new SpringApplicationBuilder(RemoteMemoryApplication.class)
                .profiles("service").run("--server.port=0", "--rdma.server.port=0", "--rdma.server.address=127.0.0.1",
                        "--remote-memory.size=256KB")) {
            int serviceHttp = service.getEnvironment().getRequiredProperty("local.server.port", Integer.class);
            int serviceRdma = service.getEnvironment().getRequiredProperty("local.rdma.server.port", Integer.class);
            try (ConfigurableApplicationContext client = new SpringApplicationBuilder(RemoteMemoryApplication.class)
                    .profiles("client").run("--server.port=0", "--rdma.client.host=127.0.0.1",
                            "--rdma.client.port=" + serviceRdma, "--remote-memory.size=256KB",
                            "--remote-memory.service-url=http://127.0.0.1:" + serviceHttp,
                            "--remote-memory.interval=100ms", "--remote-memory.rounds=0")) {
                RemoteMemoryCheck check = client.getBean(RemoteMemoryCheck.class);
                await().atMost(Duration.ofSeconds(60)).until(() -> check.results().size() >= 3);
                List<RemoteMemoryCheck.Result> results = check.results();
                assertThat(results).hasSizeGreaterThanOrEqualTo(3);
                assertThat(results).allSatisfy(r -> assertThat(r.passed()).as(r.detail()).isTrue());

                int clientHttp = client.getEnvironment().getRequiredProperty("local.server.port", Integer.class);
                for (int port : new int[] {serviceHttp, clientHttp}) {
                    String health = HttpProbe.get(port, "/actuator/health");
                    assertThat(health).startsWith("{").contains("\"status\":\"UP\"").contains("\"rdma\":{");
                }
                assertThat(HttpProbe.get(serviceHttp, "/actuator/health")).contains("\"listening\":true");

                String served = HttpProbe.get(serviceHttp, "/actuator/prometheus");
                assertThat(HttpProbe.sample(served, "rdma_connections{peer=\"none\",role=\"server\"}")).isEqualTo(1);
                assertThat(HttpProbe.sample(served, "rdma_bytes_total{direction=\"sent\",opcode=\"read.response\",peer=\"none\",role=\"server\"}"))
                        .isGreaterThanOrEqualTo(3 * 256 * 1024);
                assertThat(HttpProbe.sample(served, "rdma_bytes_total{direction=\"received\",opcode=\"write\",peer=\"none\",role=\"server\"}"))
                        .isGreaterThanOrEqualTo(3 * 64 * 1024);
                assertThat(HttpProbe.sample(served, "rdma_reads_ird_reads{peer=\"none\",role=\"server\"}")).isPositive();
                assertThat(HttpProbe.sample(served, "rdma_credits_granted_credits{peer=\"none\",role=\"server\"}")).isPositive();

                String used = HttpProbe.get(clientHttp, "/actuator/prometheus");
                assertThat(HttpProbe.sample(used, "rdma_operation_seconds_count{operation=\"read\",outcome=\"success\","
                        + "peer=\"none\",role=\"client\"}")).isGreaterThanOrEqualTo(3);
                assertThat(HttpProbe.sample(used, "rdma_operation_seconds_count{operation=\"write\",outcome=\"success\","
                        + "peer=\"none\",role=\"client\"}")).isGreaterThanOrEqualTo(3);
                assertThat(HttpProbe.sample(used, "rdma_reads_ord_reads{peer=\"none\",role=\"client\"}")).isPositive();
                assertThat(HttpProbe.sample(used, "rdma_reads_outstanding_reads{peer=\"none\",role=\"client\"}")).isGreaterThanOrEqualTo(0);
                // (rdma_terminates appears with the first Terminate: its tags are the Terminate's Layer/EType/Code.)
                assertThat(used).contains("rdma_credits_available_credits{peer=\"none\",role=\"client\"}",
                        "rdma_startup_failures_connections_total{peer=\"none\",reason=\"rejected\",role=\"client\"}");
            }
        }
    }
}
