package io.softrdma.samples.remotememory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.softrdma.spring.memory.RdmaMemoryServer;
import io.softrdma.testing.HttpProbe;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * Both applications of the sample on loopback, as they run in production but in one JVM: the service owns its regions
 * and its cache; the storefront counts visits, reads prices and caches products, round after round, all checked;
 * the service sees the visits in its own memory; both report UP with SoftRDMA's meters; and a client without the
 * credential is refused.
 */
class RemoteMemoryEndToEndTest {
    @Test
    void theStorefrontUsesTheServicesRegionsAndCacheOneSided() throws Exception {
        try (ConfigurableApplicationContext service = new SpringApplicationBuilder(RemoteMemoryApplication.class)
                .profiles("service").run("--server.port=0", "--rdma.memory.server.port=0",
                        "--rdma.memory.server.address=127.0.0.1", "--remote-memory.interval=100ms")) {
            int serviceHttp = service.getEnvironment().getRequiredProperty("local.server.port", Integer.class);
            int serviceRdma = service.getEnvironment().getRequiredProperty(RdmaMemoryServer.PORT_PROPERTY,
                    Integer.class);
            // The client configured as the Helm chart configures it: a client.yaml over the image's application.yaml
            // that empties the server list and names the service whose addresses are the servers.
            Path clientYaml = Files.createTempFile("client", ".yaml");
            Files.writeString(clientYaml, String.join("\n", "rdma:", "  memory:", "    client:", "      servers: []",
                    "      service: 127.0.0.1", "      port: " + serviceRdma, ""));
            try (ConfigurableApplicationContext client = new SpringApplicationBuilder(RemoteMemoryApplication.class)
                    .profiles("client").run("--server.port=0", "--spring.config.additional-location=file:" + clientYaml,
                            "--remote-memory.interval=100ms")) {
                StorefrontRounds rounds = client.getBean(StorefrontRounds.class);
                await().atMost(Duration.ofSeconds(60)).until(() -> rounds.results().size() >= 3);
                List<StorefrontRounds.Result> results = rounds.results();
                assertThat(results).allSatisfy(r -> assertThat(r.passed()).as(r.detail()).isTrue());
                rounds.stop();

                // The visits are in the service's memory, counted by the client's Fetch-and-Adds alone.
                RdmaMemoryServer memory = service.getBean(RdmaMemoryServer.class);
                int done = rounds.results().size();
                assertThat(memory.region("counters").getLong(Layout.VISITS)).isEqualTo(done);
                String regions = HttpProbe.get(serviceHttp, "/regions");
                assertThat(regions).contains("\"counters\":{\"size\":4096", "\"prices\":{\"size\":65536",
                        "\"cache.products\":{", "\"visits\":" + done);
                // Products were loaded once each, whatever the rounds looked up twice: the rest came from the cache.
                ProductCatalog catalog = client.getBean(ProductCatalog.class);
                assertThat(catalog.loads()).isLessThanOrEqualTo(3 * done);

                int clientHttp = client.getEnvironment().getRequiredProperty("local.server.port", Integer.class);
                for (int port : new int[] {serviceHttp, clientHttp}) {
                    assertThat(HttpProbe.get(port, "/actuator/health")).startsWith("{")
                            .contains("\"status\":\"UP\"").contains("\"rdma\":{");
                }
                assertThat(HttpProbe.get(serviceHttp, "/actuator/health")).contains(
                        "\"memory\":{\"listening\":true,\"port\":" + serviceRdma + ",\"connections\":1}");
                String served = HttpProbe.get(serviceHttp, "/actuator/prometheus");
                assertThat(HttpProbe.sample(served, "rdma_connections{peer=\"none\",role=\"server\"}")).isEqualTo(1);
                assertThat(HttpProbe.sample(served, "rdma_reads_ird_reads{peer=\"none\",role=\"server\"}"))
                        .isPositive();
                String used = HttpProbe.get(clientHttp, "/actuator/prometheus");
                assertThat(HttpProbe.sample(used, "rdma_operation_seconds_count{operation=\"read\",outcome=\"success\","
                        + "peer=\"none\",role=\"client\"}")).isGreaterThanOrEqualTo(3);
                // The cache's meters: hits answered by RDMA Reads alone.
                assertThat(metric(used, "cache_rdma_gets_one_sided_total", "cache=\"products\""))
                        .isGreaterThanOrEqualTo(3);
                assertThat(metric(used, "cache_gets_total", "result=\"hit\"")).isGreaterThanOrEqualTo(3);
            } finally {
                Files.delete(clientYaml);
            }

            // Without the credential, the service's policy refuses, and the rounds say so.
            try (ConfigurableApplicationContext stranger = new SpringApplicationBuilder(RemoteMemoryApplication.class)
                    .profiles("client").run("--server.port=0", "--rdma.memory.client.servers=127.0.0.1:"
                            + service.getEnvironment().getRequiredProperty(RdmaMemoryServer.PORT_PROPERTY),
                            "--rdma.memory.client.credential=stranger", "--remote-memory.interval=100ms")) {
                StorefrontRounds rounds = stranger.getBean(StorefrontRounds.class);
                await().atMost(Duration.ofSeconds(60)).until(() -> !rounds.results().isEmpty());
                assertThat(rounds.results().get(0).passed()).isFalse();
                assertThat(rounds.results().get(0).detail()).contains("counters");
            }
        }
    }

    /** The sum of the series of {@code name} whose labels include {@code label}. */
    private static double metric(String prometheus, String name, String label) {
        return prometheus.lines().filter(l -> l.startsWith(name + "{") && l.contains(label))
                .mapToDouble(l -> Double.parseDouble(l.substring(l.lastIndexOf(' ') + 1))).sum();
    }
}
