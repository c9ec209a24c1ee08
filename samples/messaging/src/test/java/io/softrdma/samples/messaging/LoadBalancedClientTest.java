package io.softrdma.samples.messaging;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.micrometer.core.instrument.MeterRegistry;
import io.softrdma.spring.rsocket.DnsResolver;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.Test;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.support.GenericApplicationContext;

/**
 * The client as the Helm chart configures it ({@code messaging.client.load-balanced=true}, the host a headless
 * Service's name): it resolves the name with the starter's {@link DnsResolver} — here one that knows the name
 * {@code messaging-server}, as a cluster's DNS would, and answers 127.0.0.1 — connects to each address, and every
 * route works through the balanced requester; SoftRDMA's client meters are one series for the service.
 */
class LoadBalancedClientTest {
    private static final String SERVICE = "messaging-server";

    @Test
    void theClientBalancesAcrossTheAddressesOfAServiceName() throws Exception {
        Set<String> resolved = ConcurrentHashMap.newKeySet();
        DnsResolver cluster = name -> {
            resolved.add(name);
            if (!name.equals(SERVICE)) {
                throw new UnknownHostException(name + ": only " + SERVICE + " is known here");
            }
            return List.of(InetAddress.getByName("127.0.0.1"));
        };
        try (ConfigurableApplicationContext server = new SpringApplicationBuilder(MessagingApplication.class)
                .profiles("server").run("--server.port=0", "--rdma.rsocket.server.port=0",
                        "--rdma.rsocket.server.address=127.0.0.1")) {
            int port = server.getEnvironment().getRequiredProperty("local.rdma.rsocket.server.port", Integer.class);
            try (ConfigurableApplicationContext client = new SpringApplicationBuilder(MessagingApplication.class)
                    .profiles("client")
                    .initializers(c -> ((GenericApplicationContext) c).registerBean(DnsResolver.class, () -> cluster))
                    .run("--server.port=0", "--messaging.client.host=" + SERVICE,
                            "--messaging.client.port=" + port, "--messaging.client.load-balanced=true",
                            "--messaging.client.interval=200ms", "--messaging.client.consume-delay=1ms")) {
                MeterRegistry registry = client.getBean(MeterRegistry.class);
                await().atMost(Duration.ofSeconds(30)).until(() -> count(registry, "messaging.client.rounds",
                        "outcome", "passed") >= 2 && count(registry, "messaging.quotes.consumed", null, null) >= 100);
                assertThat(count(registry, "messaging.client.rounds", "outcome", "failed")).isZero();
                assertThat(resolved).containsExactly(SERVICE);
                // The service's connections are one series, tagged with its name rather than each pod's address.
                assertThat(registry.find("rdma.connections").tags("role", "client", "peer", SERVICE).gauge())
                        .as("rdma.connections{peer=%s}", SERVICE).isNotNull()
                        .satisfies(g -> assertThat(g.value()).isEqualTo(1));
                assertThat(server.getBean(MeterRegistry.class).get("messaging.quotes.emitted").counter().count())
                        .isGreaterThanOrEqualTo(100);
            }
        }
    }

    private static double count(MeterRegistry registry, String name, String tag, String value) {
        var search = registry.find(name);
        if (tag != null) {
            search = search.tag(tag, value);
        }
        return search.counters().stream().mapToDouble(c -> c.count()).sum();
    }
}
