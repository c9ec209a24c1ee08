package io.softrdma.spring.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.softrdma.reactive.ConnectDecision;
import io.softrdma.reactive.RdmaClient;
import io.softrdma.reactive.RdmaServer;
import io.softrdma.reactive.RdmaSession;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.annotation.Order;
import reactor.core.publisher.Mono;

/** The conditions, properties, customizers, back-off and lifecycle of {@link RdmaAutoConfiguration}. */
class RdmaAutoConfigurationTests {
    static final Duration TIMEOUT = Duration.ofSeconds(10);

    final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(RdmaAutoConfiguration.class));

    /** A client session to the context's server (bound on loopback, any port). */
    static RdmaSession connect(org.springframework.context.ApplicationContext context) {
        int port = context.getBean(RdmaServerLifecycle.class).port();
        return context.getBean(RdmaClient.class).host("127.0.0.1").port(port).connect().block(TIMEOUT);
    }

    /** Waits for the server's side of a just-connected session (it is registered after the client's). */
    static void awaitServerSessions(org.springframework.context.ApplicationContext context, int n)
            throws InterruptedException {
        RdmaActivity.Role server = context.getBean(RdmaActivity.class).server();
        await().atMost(TIMEOUT).untilAsserted(() -> assertThat(server.openSessions()).hasSize(n));
    }

    static String text(ByteBuf b) {
        return b.toString(StandardCharsets.US_ASCII);
    }

    static void close(RdmaSession session) {
        session.dispose();
        session.onDispose().block(TIMEOUT);
    }

    @Test
    void withoutAServerPortThereIsAClientAndNoServer() {
        runner.run(context -> {
            assertThat(context).hasSingleBean(RdmaClient.class).hasSingleBean(RdmaActivity.class)
                    .hasSingleBean(RdmaProperties.class).doesNotHaveBean(RdmaServer.class)
                    .doesNotHaveBean(RdmaServerLifecycle.class);
        });
    }

    @Test
    void aServerPortStartsTheServerWithTheApplicationAndPublishesTheBoundPort() {
        runner.withPropertyValues("rdma.server.port=0", "rdma.server.address=127.0.0.1",
                "rdma.server.max-pending-startups=77").run(context -> {
            RdmaServerLifecycle lifecycle = context.getBean(RdmaServerLifecycle.class);
            assertThat(lifecycle.server().startups().maxPending()).isEqualTo(77);
            assertThat(lifecycle.isRunning()).isTrue();
            assertThat(lifecycle.port()).isPositive();
            assertThat(context.getEnvironment().getProperty(RdmaServerLifecycle.PORT_PROPERTY, Integer.class))
                    .isEqualTo(lifecycle.port());
            assertThat(lifecycle.server().address().getAddress().getHostAddress()).isEqualTo("127.0.0.1");
            RdmaSession session = connect(context);
            assertThat(context.getBean(RdmaActivity.class).client().openSessions()).containsExactly(session);
            close(session);
        });
    }

    @Test
    void propertiesReachTheNegotiation() {
        runner.withPropertyValues("rdma.server.port=0", "rdma.server.address=127.0.0.1",
                "rdma.server.mpa.crc=false", "rdma.client.mpa.crc=false",
                "rdma.server.queue-pair.ird=4", "rdma.server.queue-pair.ord=6",
                "rdma.client.queue-pair.ord=8", "rdma.client.queue-pair.ird=16",
                "rdma.server.messaging.inline-size=8KB", "rdma.client.messaging.inline-size=2KB",
                "rdma.client.messaging.remote-invalidation=false",
                "rdma.client.queue-pair.send-queue-depth=64", "rdma.client.queue-pair.receive-queue-depth=32")
                .run(context -> {
                    RdmaSession session = connect(context);
                    // RFC 6581 §5: the client's ORD is cut to the server's IRD.
                    assertThat(session.ord()).isEqualTo(4);
                    assertThat(session.connection().negotiation().revision()).isEqualTo(2);
                    assertThat(session.connection().negotiation().crc()).isFalse();
                    // RFC 8797 §4.2: the client sends at most its own 2 KB; the server sends at most 2 KB to it.
                    assertThat(session.rpcRdma().sendInlineThreshold()).isEqualTo(2048);
                    assertThat(session.rpcRdma().receiveInlineThreshold()).isEqualTo(2048);
                    assertThat(session.rpcRdma().remoteInvalidation()).isFalse();
                    assertThat(session.connection().queuePair().config().sendQueueDepth()).isEqualTo(64);
                    assertThat(session.connection().queuePair().config().receiveQueueDepth()).isEqualTo(32);
                    close(session);
                });
    }

    @Test
    void busyPollRunsEachSideOnPollingLoops() {
        runner.withPropertyValues("rdma.server.port=0", "rdma.server.address=127.0.0.1",
                "rdma.server.busy-poll=40us", "rdma.client.busy-poll=30us").run(context -> {
                    RdmaSession session = connect(context);
                    awaitServerSessions(context, 1);
                    RdmaSession served = context.getBean(RdmaActivity.class).server().openSessions().iterator().next();
                    assertThat(loopThread(session)).startsWith("softrdma-busy-poll-30us");
                    assertThat(loopThread(served)).startsWith("softrdma-busy-poll-40us");
                    close(session);
                });
        runner.withPropertyValues("rdma.server.port=0", "rdma.server.address=127.0.0.1").run(context -> {
            RdmaSession session = connect(context);
            assertThat(loopThread(session)).as("by default reactor-netty's loops").doesNotContain("busy-poll");
            close(session);
        });
    }

    /** The name of the thread of the event loop {@code session} runs on. */
    static String loopThread(RdmaSession session) throws Exception {
        return session.connection().channel().eventLoop().submit(() -> Thread.currentThread().getName())
                .get(TIMEOUT.toSeconds(), java.util.concurrent.TimeUnit.SECONDS);
    }

    @Test
    void mpaRevisionOneIsSpokenWhenConfigured() {
        runner.withPropertyValues("rdma.server.port=0", "rdma.server.address=127.0.0.1",
                "rdma.client.mpa.revision=1", "rdma.client.mpa.peer-to-peer=off").run(context -> {
                    RdmaSession session = connect(context);
                    assertThat(session.connection().negotiation().revision()).isEqualTo(1);
                    close(session);
                });
    }

    @Test
    void aSessionHandlerBeanServesEverySession() {
        runner.withPropertyValues("rdma.server.port=0", "rdma.server.address=127.0.0.1")
                .withUserConfiguration(EchoHandler.class).run(context -> {
                    RdmaSession session = connect(context);
                    assertThat(session.request(Unpooled.copiedBuffer("ping", StandardCharsets.US_ASCII))
                            .map(RdmaAutoConfigurationTests::text).block(TIMEOUT)).isEqualTo("ping");
                    close(session);
                });
    }

    @Configuration(proxyBeanMethods = false)
    static class EchoHandler {
        @Bean
        RdmaSessionHandler echo() {
            return session -> {
                session.respond(Mono::just, 4);
                return session.onDispose();
            };
        }
    }

    @Test
    void customizersRunInOrderAfterTheProperties() throws Exception {
        int port;
        try (java.net.ServerSocket free = new java.net.ServerSocket(0)) {
            port = free.getLocalPort();
        }
        runner.withPropertyValues("rdma.server.port=" + port, "rdma.server.address=127.0.0.1",
                "rdma.client.host=127.0.0.1", "rdma.client.port=1", "test.port=" + port)
                .withUserConfiguration(Customizers.class).run(context -> {
                    Customizers c = context.getBean(Customizers.class);
                    // The client customizer corrected the client's port; the second server customizer's accept
                    // decision replaced the first's.
                    RdmaSession session = context.getBean(RdmaClient.class).connect().block(TIMEOUT);
                    assertThat(c.accepted.get(5, TimeUnit.SECONDS)).isEqualTo("second");
                    close(session);
                });
    }

    @Configuration(proxyBeanMethods = false)
    static class Customizers {
        final CompletableFuture<String> accepted = new CompletableFuture<>();

        @Bean
        @Order(1)
        RdmaServerCustomizer first() {
            return server -> server.accept(request -> {
                accepted.complete("first");
                return Mono.just(ConnectDecision.accept());
            });
        }

        @Bean
        @Order(2)
        RdmaServerCustomizer second() {
            return server -> server.accept(request -> {
                accepted.complete("second");
                return Mono.just(ConnectDecision.accept());
            });
        }

        @Bean
        RdmaClientCustomizer toTheServer(org.springframework.core.env.Environment environment) {
            return client -> client.port(environment.getRequiredProperty("test.port", Integer.class));
        }
    }

    @Test
    void applicationBeansReplaceTheAutoConfiguredOnes() {
        runner.withPropertyValues("rdma.server.port=0").withUserConfiguration(OwnBeans.class).run(context -> {
            assertThat(context).hasSingleBean(RdmaServer.class).hasSingleBean(RdmaClient.class)
                    .hasSingleBean(RdmaActivity.class);
            assertThat(context.getBean(RdmaServer.class)).isSameAs(context.getBean(OwnBeans.class).server);
            assertThat(context.getBean(RdmaClient.class)).isSameAs(context.getBean(OwnBeans.class).client);
            assertThat(context.getBean(RdmaActivity.class)).isSameAs(context.getBean(OwnBeans.class).activity);
            // The lifecycle starts the application's server.
            assertThat(context.getBean(RdmaServerLifecycle.class).server().address().getAddress().getHostAddress())
                    .isEqualTo("127.0.0.1");
        });
    }

    @Configuration(proxyBeanMethods = false)
    static class OwnBeans {
        final RdmaServer server = RdmaServer.create().host("127.0.0.1").port(0);
        final RdmaClient client = RdmaClient.create();
        final RdmaActivity activity = new RdmaActivity();

        @Bean
        RdmaServer myServer() {
            return server;
        }

        @Bean
        RdmaClient myClient() {
            return client;
        }

        @Bean
        RdmaActivity myActivity() {
            return activity;
        }
    }

    @Test
    void stoppingTheApplicationDrainsTheServer() {
        CompletableFuture<RdmaSession> open = new CompletableFuture<>();
        runner.withPropertyValues("rdma.server.port=0", "rdma.server.address=127.0.0.1",
                "spring.lifecycle.timeout-per-shutdown-phase=5s").run(context -> {
                    open.complete(connect(context));
                    awaitServerSessions(context, 1);
                });
        // The context closed: the server stopped listening and closed its sessions gracefully.
        RdmaSession session = open.join();
        session.onDispose().block(TIMEOUT);
        assertThat(session.isDisposed()).isTrue();
    }

    @Test
    void aBadValueFailsTheStartWithTheRule() {
        runner.withPropertyValues("rdma.server.port=0", "rdma.server.queue-pair.send-queue-depth=3").run(context -> {
            assertThat(context).hasFailed();
            assertThat(context.getStartupFailure()).rootCause().hasMessageContaining("sendQueueDepth 4 or more, not 3");
        });
        runner.withPropertyValues("rdma.client.messaging.inline-size=1000B").run(context -> {
            assertThat(context).hasFailed();
            assertThat(context.getStartupFailure()).rootCause().hasMessageContaining("1000");
        });
    }

    @Test
    void tlsWithoutABundleFailsWithWhatToSet() {
        runner.withPropertyValues("rdma.server.port=0", "rdma.server.ssl.enabled=true").run(context -> {
            assertThat(context).hasFailed();
            assertThat(context.getStartupFailure()).rootCause()
                    .hasMessageContaining("rdma.server.ssl.bundle names no SSL bundle");
        });
    }
}
