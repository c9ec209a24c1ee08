package io.softrdma.spring.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.softrdma.reactive.LocalRegion;
import io.softrdma.reactive.RdmaClient;
import io.softrdma.reactive.RdmaSession;
import io.softrdma.verbs.Access;
import io.softrdma.verbs.RemoteMemory;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import reactor.core.publisher.Mono;

/** The meters of {@link RdmaMeterBinder} and the {@link RdmaHealthIndicator}, each with its conditions. */
class RdmaMetricsAndHealthTests {
    static final Duration TIMEOUT = Duration.ofSeconds(10);

    final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(RdmaAutoConfiguration.class, RdmaMetricsAutoConfiguration.class,
                    RdmaHealthAutoConfiguration.class, MetricsAutoConfiguration.class))
            .withBean(SimpleMeterRegistry.class)
            .withPropertyValues("rdma.server.port=0", "rdma.server.address=127.0.0.1");

    @Configuration(proxyBeanMethods = false)
    static class Serving {
        final CompletableFuture<RdmaSession> accepted = new CompletableFuture<>();

        @Bean
        RdmaSessionHandler handler() {
            return session -> {
                accepted.complete(session);
                session.respond(Mono::just, 4);
                return session.onDispose();
            };
        }
    }

    private static double value(MeterRegistry registry, String name, String... tags) {
        var search = registry.find(name).tags(tags);
        if (search.functionCounter() != null) {
            return search.functionCounter().count();
        }
        if (search.gauge() != null) {
            return search.gauge().value();
        }
        if (search.counter() != null) {
            return search.counter().count();
        }
        throw new AssertionError("no meter " + name + " " + String.join(",", tags) + " in "
                + registry.getMeters().stream().map(m -> m.getId().toString()).toList());
    }

    @Test
    void everyMeterCountsWhatTheSessionsDo() {
        runner.withUserConfiguration(Serving.class).run(context -> {
            MeterRegistry registry = context.getBean(MeterRegistry.class);
            RdmaSession client = RdmaAutoConfigurationTests.connect(context);
            RdmaSession server = context.getBean(Serving.class).accepted.get(5, TimeUnit.SECONDS);
            LocalRegion region = server.allocate(4096, Access.LOCAL_WRITE, Access.REMOTE_WRITE, Access.REMOTE_READ);
            RemoteMemory remote = region.remote();
            client.write(remote, Unpooled.directBuffer(1000).writeZero(1000)).block(TIMEOUT);
            client.read(remote.slice(0, 3000)).block(TIMEOUT);
            client.request(Unpooled.copiedBuffer("ping", StandardCharsets.US_ASCII))
                    .block(TIMEOUT);

            // Meters hold their objects weakly: nothing of theirs may be collectable (a lambda would be).
            System.gc();
            assertThat(value(registry, "rdma.connections", "role", "server")).isEqualTo(1);
            assertThat(value(registry, "rdma.connections", "role", "client")).isEqualTo(1);
            assertThat(value(registry, "rdma.bytes", "role", "client", "opcode", "write", "direction", "sent"))
                    .isEqualTo(1000);
            assertThat(value(registry, "rdma.bytes", "role", "server", "opcode", "write", "direction", "received"))
                    .isEqualTo(1000);
            assertThat(value(registry, "rdma.messages", "role", "server", "opcode", "read.request",
                    "direction", "received")).isEqualTo(1);
            assertThat(value(registry, "rdma.bytes", "role", "server", "opcode", "read.response", "direction", "sent"))
                    .isEqualTo(3000);
            assertThat(registry.find("rdma.bytes").meter().getId().getBaseUnit()).isEqualTo("bytes");
            assertThat(registry.get("rdma.operation").tags("role", "client", "operation", "write", "outcome", "success")
                    .timer().count()).isEqualTo(1);
            assertThat(registry.get("rdma.operation").tags("role", "client", "operation", "read", "outcome", "success")
                    .timer().count()).isEqualTo(1);
            assertThat(registry.get("rdma.operation").tags("role", "client", "operation", "request", "outcome",
                    "success").timer().count()).isEqualTo(1);
            assertThat(value(registry, "rdma.credits.granted", "role", "server")).isPositive();
            assertThat(value(registry, "rdma.credits.available", "role", "client")).isPositive();
            assertThat(value(registry, "rdma.reads.ord", "role", "client")).isEqualTo(client.ord());
            assertThat(value(registry, "rdma.reads.outstanding", "role", "client")).isZero();
            assertThat(value(registry, "rdma.reads.ird", "role", "server")).isEqualTo(server.ird());
            assertThat(value(registry, "rdma.reads.inbound.queued", "role", "server")).isZero();
            assertThat(value(registry, "rdma.messages.buffered", "role", "server")).isZero();

            // RFC 5040 §7: a Read of an invalidated region: the server sends RDMAP/1/0, the client receives it.
            region.dispose();
            Mono<ByteBuf> bad = client.read(remote.slice(0, 8));
            assertThat(org.assertj.core.api.Assertions.catchThrowable(() -> bad.block(TIMEOUT))).isNotNull();
            client.onDispose().block(TIMEOUT);
            server.onDispose().block(TIMEOUT);
            assertThat(value(registry, "rdma.terminates", "role", "server", "layer", "rdmap", "etype", "1", "code", "0",
                    "direction", "sent")).isEqualTo(1);
            assertThat(value(registry, "rdma.terminates", "role", "client", "layer", "rdmap", "etype", "1", "code", "0",
                    "direction", "received")).isEqualTo(1);
            assertThat(value(registry, "rdma.connections.closed", "role", "client", "outcome", "lost")).isEqualTo(1);
            assertThat(value(registry, "rdma.connections", "role", "client")).isZero();
            // Counts outlive their sessions.
            assertThat(value(registry, "rdma.bytes", "role", "client", "opcode", "write", "direction", "sent"))
                    .isEqualTo(1000);
            assertThat(registry.get("rdma.operation").tags("role", "client", "operation", "read", "outcome", "error")
                    .timer().count()).isEqualTo(1);
        });
    }

    @Test
    void refusedStartupsAreCounted() {
        runner.withBean(RdmaServerCustomizer.class, () -> server -> server.accept(request ->
                reactor.core.publisher.Mono.just(io.softrdma.reactive.ConnectDecision.reject("no")))).run(context -> {
            MeterRegistry registry = context.getBean(MeterRegistry.class);
            int port = context.getBean(RdmaServerLifecycle.class).port();
            assertThat(org.assertj.core.api.Assertions.catchThrowable(() -> context.getBean(RdmaClient.class)
                    .host("127.0.0.1").port(port).connect().block(TIMEOUT))).isNotNull();
            await().atMost(TIMEOUT).until(
                    () -> value(registry, "rdma.startup.failures", "role", "server", "reason", "rejected") >= 1);
            assertThat(value(registry, "rdma.startup.failures", "role", "server", "reason", "rejected")).isEqualTo(1);
            assertThat(value(registry, "rdma.startup.failures", "role", "client", "reason", "rejected")).isEqualTo(1);
            assertThat(value(registry, "rdma.startup.failures", "role", "server", "reason", "failed")).isZero();
        });
    }

    @Test
    void withoutAMeterRegistryOrMicrometerThereAreNoMeters() {
        new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(RdmaAutoConfiguration.class,
                RdmaMetricsAutoConfiguration.class)).run(context -> assertThat(context)
                        .doesNotHaveBean(RdmaMeterBinder.class));
        runner.withClassLoader(new FilteredClassLoader(MeterRegistry.class)).run(context -> assertThat(context)
                .doesNotHaveBean(RdmaMeterBinder.class).hasSingleBean(RdmaActivity.class));
    }

    @Test
    void healthIsUpWhileTheServerListensWithConnectionsAndErrorsAsDetails() {
        runner.run(context -> {
            HealthIndicator health = context.getBean("rdmaHealthIndicator", HealthIndicator.class);
            RdmaSession client = RdmaAutoConfigurationTests.connect(context);
            RdmaAutoConfigurationTests.awaitServerSessions(context, 1);
            Health h = health.health();
            assertThat(h.getStatus()).isEqualTo(Status.UP);
            assertThat(h.getDetails()).containsEntry("listening", true)
                    .containsEntry("port", context.getBean(RdmaServerLifecycle.class).port());
            assertThat(h.getDetails().get("client")).asString().contains("connections=1");
            assertThat(h.getDetails().get("server")).asString().contains("connections=1");
            RdmaAutoConfigurationTests.close(client);
            context.getBean(RdmaServerLifecycle.class).stop();
            assertThat(health.health().getStatus()).isEqualTo(Status.DOWN);
        });
    }

    @Test
    void healthWithoutAServerIsUpAndCanBeSwitchedOff() {
        new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(RdmaAutoConfiguration.class,
                RdmaHealthAutoConfiguration.class)).run(context -> {
                    assertThat(context).hasBean("rdmaHealthIndicator");
                    assertThat(context.getBean(RdmaHealthIndicator.class).health().getStatus()).isEqualTo(Status.UP);
                });
        runner.withPropertyValues("management.health.rdma.enabled=false").run(context -> assertThat(context)
                .doesNotHaveBean(RdmaHealthIndicator.class));
        runner.withPropertyValues("management.health.defaults.enabled=false").run(context -> assertThat(context)
                .doesNotHaveBean(RdmaHealthIndicator.class));
        runner.withClassLoader(new FilteredClassLoader(HealthIndicator.class)).run(context -> assertThat(context)
                .doesNotHaveBean(RdmaHealthIndicator.class));
    }
}
