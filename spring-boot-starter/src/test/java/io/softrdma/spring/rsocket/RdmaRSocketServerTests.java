package io.softrdma.spring.rsocket;

import static io.softrdma.spring.rsocket.RSocketApps.TIMEOUT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.rsocket.exceptions.RejectedException;
import io.rsocket.plugins.RSocketInterceptor;
import io.softrdma.reactive.ConnectDecision;
import io.softrdma.rsocket.RdmaServerTransport;
import io.softrdma.spring.autoconfigure.RdmaActivity;
import io.softrdma.spring.autoconfigure.RdmaAutoConfiguration;
import io.softrdma.spring.autoconfigure.RdmaRSocketClientAutoConfiguration;
import io.softrdma.spring.autoconfigure.RdmaRSocketObservationAutoConfiguration;
import io.softrdma.spring.autoconfigure.RdmaRSocketServerAutoConfiguration;
import io.softrdma.spring.autoconfigure.RdmaServerCustomizer;
import io.softrdma.spring.rsocket.RSocketApps.Greeting;
import io.softrdma.spring.rsocket.RSocketApps.Greetings;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.rsocket.autoconfigure.RSocketServerAutoConfiguration;
import org.springframework.boot.rsocket.context.RSocketPortInfoApplicationContextInitializer;
import org.springframework.boot.rsocket.context.RSocketServerBootstrap;
import org.springframework.boot.rsocket.server.RSocketServerCustomizer;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.messaging.rsocket.RSocketRequester;
import org.springframework.messaging.rsocket.annotation.support.RSocketMessageHandler;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.test.StepVerifier;

/**
 * The RSocket server over RDMA: it serves the application's {@code @MessageMapping} controllers through Boot's
 * {@link RSocketMessageHandler}, with Boot's codecs and customizers, starts and drains with the application, and
 * reports in the {@code rdma} health.
 */
class RdmaRSocketServerTests {

    @Test
    void everyInteractionModelIsServedOverRdmaWithJson() {
        RSocketApps.serving().run(context -> {
            assertThat(context).hasNotFailed().hasSingleBean(RdmaRSocketServer.class);
            RSocketRequester requester = RSocketApps.requester(context);
            try {
                // request-response, JSON both ways through Boot's RSocketStrategies
                assertThat(requester.route("greet").data(new Greeting("rdma")).retrieveMono(Greeting.class)
                        .block(TIMEOUT)).isEqualTo(new Greeting("hello rdma from server"));
                // request-stream
                StepVerifier.create(requester.route("count").data(new Greeting("n")).retrieveFlux(Greeting.class))
                        .expectNext(new Greeting("n 1"), new Greeting("n 2")).expectNextCount(97)
                        .expectNext(new Greeting("n 100")).expectComplete().verify(TIMEOUT);
                // fire-and-forget
                requester.route("note").data(new Greeting("noted")).send().block(TIMEOUT);
                Greetings greetings = context.getBean(Greetings.class);
                await().atMost(TIMEOUT).untilAsserted(() -> assertThat(greetings.notes)
                        .containsExactly(new Greeting("noted")));
                // channel
                StepVerifier.create(requester.route("shout")
                        .data(Flux.just(new Greeting("a"), new Greeting("b"), new Greeting("c")))
                        .retrieveFlux(Greeting.class))
                        .expectNext(new Greeting("A"), new Greeting("B"), new Greeting("C")).expectComplete()
                        .verify(TIMEOUT);
                // The connection is an RDMA session of the server role.
                RdmaRSocketServer server = context.getBean(RdmaRSocketServer.class);
                assertThat(server.connections()).isEqualTo(1);
                assertThat(context.getBean(RdmaActivity.class).server().openSessions()).hasSize(1);
                // With RSocket's sizes on both ends (rdma.*.messaging.inline-size is 4KB): RFC 8797 settled 16 KiB
                // Sends each way, so frames of 4 KiB payloads go inline.
                io.softrdma.cm.RpcRdmaParameters settled = context.getBean(RdmaActivity.class).server().openSessions()
                        .iterator().next().rpcRdma();
                assertThat(settled.sendInlineThreshold()).isEqualTo(16384);
                assertThat(settled.receiveInlineThreshold()).isEqualTo(16384);
            } finally {
                RSocketApps.dispose(requester);
            }
        });
    }

    @Test
    void theBoundPortIsPublished() {
        RSocketApps.serving().run(context -> {
            RdmaRSocketServer server = context.getBean(RdmaRSocketServer.class);
            assertThat(server.isRunning()).isTrue();
            assertThat(server.port()).isPositive();
            assertThat(server.address().getAddress().getHostAddress()).isEqualTo("127.0.0.1");
            assertThat(context.getEnvironment().getProperty(RdmaRSocketServer.PORT_PROPERTY, Integer.class))
                    .isEqualTo(server.port());
        });
    }

    @Test
    void withoutThePortThereIsNoServer() {
        RSocketApps.runner().withBean(Greetings.class).run(context -> assertThat(context).hasNotFailed()
                .doesNotHaveBean(RdmaRSocketServer.class).hasSingleBean(RdmaRSocketTransports.class));
    }

    @Test
    void withoutRdmaRSocketOnTheClassPathThereIsNoServerNorTransports() {
        RSocketApps.serving().withClassLoader(new FilteredClassLoader(RdmaServerTransport.class.getPackageName()))
                .run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(RdmaRSocketServer.class)
                        .doesNotHaveBean(RdmaRSocketTransports.class));
    }

    @Test
    void withoutSpringBootRSocketThereIsNoServerButThereAreTransports() {
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(RdmaAutoConfiguration.class,
                        RdmaRSocketServerAutoConfiguration.class, RdmaRSocketClientAutoConfiguration.class,
                        RdmaRSocketObservationAutoConfiguration.class))
                .withClassLoader(new FilteredClassLoader("org.springframework.boot.rsocket"))
                .withPropertyValues("rdma.rsocket.server.port=0")
                .run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(RdmaRSocketServer.class)
                        .hasSingleBean(RdmaRSocketTransports.class));
    }

    @Test
    void withoutBootsRSocketMessageHandlerThereIsNoServer() {
        RSocketApps.serving().withPropertyValues("spring.rsocket.server.port=")
                .withClassLoader(new FilteredClassLoader(io.rsocket.transport.netty.server.TcpServerTransport.class))
                .run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(RSocketMessageHandler.class)
                        .doesNotHaveBean(RdmaRSocketServer.class));
    }

    @Test
    void aBadPortFailsTheStartWithTheRule() {
        RSocketApps.serving().withPropertyValues("rdma.rsocket.server.port=70000").run(context ->
                assertThat(context).getFailure().rootCause().hasMessageContaining("rdma.rsocket.server.port must be"));
    }

    @Test
    void rsocketServerCustomizersAndRdmaServerCustomizersApply() {
        RSocketApps.serving().withUserConfiguration(Customizers.class).run(context -> {
            RSocketRequester requester = RSocketApps.requester(context);
            try {
                assertThat(requester.route("greet").data(new Greeting("x")).retrieveMono(Greeting.class)
                        .block(TIMEOUT)).isNotNull();
                Customizers c = context.getBean(Customizers.class);
                assertThat(c.intercepted).hasValue(1);
                assertThat(c.accepted).isCompletedWithValue("rdma customizer");
            } finally {
                RSocketApps.dispose(requester);
            }
        });
    }

    @Configuration(proxyBeanMethods = false)
    static class Customizers {
        final AtomicInteger intercepted = new AtomicInteger();
        final CompletableFuture<String> accepted = new CompletableFuture<>();

        @Bean
        RSocketServerCustomizer counting() {
            RSocketInterceptor count = responder -> new io.rsocket.util.RSocketProxy(responder) {
                @Override
                public Mono<io.rsocket.Payload> requestResponse(io.rsocket.Payload payload) {
                    intercepted.incrementAndGet();
                    return super.requestResponse(payload);
                }
            };
            return server -> server.interceptors(registry -> registry.forResponder(count));
        }

        @Bean
        RdmaServerCustomizer accepting() {
            // A port set here is not the RSocket server's: its own port wins.
            return server -> server.port(1).accept(request -> {
                accepted.complete("rdma customizer");
                return Mono.just(ConnectDecision.accept());
            });
        }
    }

    @Test
    void itRunsBesideBootsTcpServerWithTheSameControllers() {
        RSocketApps.serving()
                .withConfiguration(AutoConfigurations.of(RSocketServerAutoConfiguration.class))
                .withInitializer(new RSocketPortInfoApplicationContextInitializer())
                .withPropertyValues("spring.rsocket.server.port=0", "spring.rsocket.server.address=127.0.0.1")
                .run(context -> {
                    assertThat(context).hasSingleBean(RSocketServerBootstrap.class)
                            .hasSingleBean(RdmaRSocketServer.class);
                    int tcpPort = context.getEnvironment().getRequiredProperty("local.rsocket.server.port",
                            Integer.class);
                    RSocketRequester tcp = context.getBean(RSocketRequester.Builder.class).tcp("127.0.0.1", tcpPort);
                    RSocketRequester rdma = RSocketApps.requester(context);
                    try {
                        assertThat(tcp.route("greet").data(new Greeting("tcp")).retrieveMono(Greeting.class)
                                .block(TIMEOUT)).isEqualTo(new Greeting("hello tcp from server"));
                        assertThat(rdma.route("greet").data(new Greeting("rdma")).retrieveMono(Greeting.class)
                                .block(TIMEOUT)).isEqualTo(new Greeting("hello rdma from server"));
                    } finally {
                        RSocketApps.dispose(tcp);
                        RSocketApps.dispose(rdma);
                    }
                });
    }

    @Test
    void healthShowsTheRSocketServer() {
        RSocketApps.serving().run(context -> {
            RSocketRequester requester = RSocketApps.requester(context);
            try {
                requester.route("greet").data(new Greeting("x")).retrieveMono(Greeting.class).block(TIMEOUT);
                Health health = context.getBean("rdmaHealthIndicator", HealthIndicator.class).health(true);
                assertThat(health.getStatus()).isEqualTo(Status.UP);
                assertThat(health.getDetails()).containsEntry("rsocket", Map.of("listening", true,
                        "port", context.getBean(RdmaRSocketServer.class).port(), "connections", 1));
                assertThat(health.getDetails()).containsKey("peers");
            } finally {
                RSocketApps.dispose(requester);
            }
            context.getBean(RdmaRSocketServer.class).stop();
            Health stopped = context.getBean("rdmaHealthIndicator", HealthIndicator.class).health(true);
            assertThat(stopped.getStatus()).isEqualTo(Status.DOWN);
            assertThat(stopped.getDetails()).containsEntry("rsocket", Map.of("listening", false, "connections", 0));
        });
    }

    @Test
    void onCloseItStopsListeningRefusesNewRequestsAndLetsThoseInFlightFinish() throws Exception {
        // Below the context's own wait per phase (10s without Boot's lifecycle auto-configuration).
        RSocketApps.serving().withPropertyValues("rdma.rsocket.server.shutdown-timeout=8s").run(context -> {
            RdmaRSocketServer server = context.getBean(RdmaRSocketServer.class);
            Greetings greetings = context.getBean(Greetings.class);
            int port = server.port();
            RSocketRequester requester = RSocketApps.requester(context);
            try {
                CompletableFuture<String> slow = requester.route("slow").retrieveMono(String.class).toFuture();
                StepVerifier.create(greetings.slowStarted.asFlux().take(1)).expectNext("started").verifyComplete();
                assertThat(server.requestsInFlight()).isEqualTo(1);

                CompletableFuture<Void> closed = CompletableFuture.runAsync(context::close);
                await().atMost(TIMEOUT).until(() -> !server.isListening());
                // No new connection (this requester does not try again)...
                RSocketRequester another = context.getBean(RSocketRequester.Builder.class)
                        .transport(context.getBean(RdmaRSocketTransports.class).clientTransport("127.0.0.1", port));
                try {
                    assertThatThrownBy(() -> another.route("greet").data(new Greeting("late"))
                            .retrieveMono(Greeting.class).block(TIMEOUT)).hasMessageContaining("Connection refused");
                } finally {
                    another.dispose();
                }
                // ...no new request on the open one, while the one in flight is waited for.
                assertThatThrownBy(() -> requester.route("greet").data(new Greeting("late"))
                        .retrieveMono(Greeting.class).block(TIMEOUT)).isInstanceOf(RejectedException.class)
                        .hasMessageContaining("shutting down");
                assertThat(closed).isNotDone();
                assertThat(slow).isNotDone();

                greetings.release.tryEmitValue("finished");
                assertThat(slow.get(10, java.util.concurrent.TimeUnit.SECONDS)).isEqualTo("finished");
                closed.get(10, java.util.concurrent.TimeUnit.SECONDS);
                assertThat(server.connections()).isZero();
            } finally {
                requester.dispose();
            }
        });
    }

    @Test
    void aDrainGivesUpAfterTheShutdownTimeout() throws Exception {
        RSocketApps.serving().withPropertyValues("rdma.rsocket.server.shutdown-timeout=200ms").run(context -> {
            RdmaRSocketServer server = context.getBean(RdmaRSocketServer.class);
            RSocketRequester requester = RSocketApps.requester(context);
            try {
                Mono<String> slow = requester.route("slow").retrieveMono(String.class);
                CompletableFuture<String> pending = slow.toFuture();
                StepVerifier.create(context.getBean(Greetings.class).slowStarted.asFlux().take(1))
                        .expectNext("started").verifyComplete();
                context.close();
                assertThat(server.isRunning()).isFalse();
                assertThat(server.connections()).isZero();
                assertThatThrownBy(() -> pending.get(10, java.util.concurrent.TimeUnit.SECONDS)).isNotNull();
            } finally {
                requester.dispose();
            }
        });
    }
}
