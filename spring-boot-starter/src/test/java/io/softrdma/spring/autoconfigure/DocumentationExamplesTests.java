package io.softrdma.spring.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.Unpooled;
import io.softrdma.reactive.ConnectDecision;
import io.softrdma.reactive.RdmaClient;
import io.softrdma.reactive.RdmaSession;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.reactivestreams.Publisher;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/** docs/spring-boot.md's examples, word for word (regions {@code starter-*}), run in an application context. */
class DocumentationExamplesTests {
    private static final Duration TIMEOUT = Duration.ofSeconds(10);

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(RdmaAutoConfiguration.class))
            .withPropertyValues("rdma.server.port=0", "rdma.server.address=127.0.0.1");

    /** Who may connect: here, loopback peers. */
    interface PeerDirectory {
        Mono<Boolean> isAllowed(SocketAddress peer);
    }

    @Configuration(proxyBeanMethods = false)
    static class CustomizerAndHandler {
        @Bean
        PeerDirectory directory() {
            return peer -> Mono.just(peer instanceof InetSocketAddress a && a.getAddress().isLoopbackAddress());
        }

        // tag::starter-customizer-and-handler[]
        @Bean
        RdmaServerCustomizer onlyKnownPeers(PeerDirectory directory) {
            // The decision may take its time (within rdma.server.mpa.accept-timeout) and come from any thread.
            return server -> server.accept(request -> directory.isAllowed(request.remoteAddress())   // Mono<Boolean>
                    .map(ok -> ok ? ConnectDecision.accept()          // or accept(bytes): the MPA Reply's private data
                            : ConnectDecision.reject("not allowed"))); // the client's MpaRejectedException carries it
        }

        @Bean
        RdmaSessionHandler handler() {
            return session -> {
                session.respond(request -> Mono.just(request), 16);
                return session.receive().then();   // the library releases each message after onNext
            };
        }
        // end::starter-customizer-and-handler[]
    }

    /** Watches a session: here, notes that it came and waits for it to end. */
    static final class Auditor {
        final CompletableFuture<RdmaSession> watched = new CompletableFuture<>();

        Publisher<Void> watch(RdmaSession session) {
            watched.complete(session);
            return session.onDispose();
        }
    }

    /** Serves a session: echoes its requests and consumes its messages. */
    static final class Echo {
        Publisher<Void> serve(RdmaSession session) {
            session.respond(request -> Mono.just(request), 16);
            return session.receive().then();
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class CombinedHandler {
        @Bean
        Auditor auditor() {
            return new Auditor();
        }

        @Bean
        Echo echo() {
            return new Echo();
        }

        // tag::starter-combined-handler[]
        @Bean
        RdmaSessionHandler handler(Auditor auditor, Echo echo) {
            return session -> Mono.when(auditor.watch(session), echo.serve(session));  // one of them uses receive()
        }
        // end::starter-combined-handler[]
    }

    @Test
    void theCustomizerAdmitsLoopbackAndTheHandlerEchoes() {
        runner.withUserConfiguration(CustomizerAndHandler.class).run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(echo(context.getBean(RdmaClient.class), port(context))).isEqualTo("ping");
        });
    }

    @Test
    void theCombinedHandlerRunsBoth() {
        runner.withUserConfiguration(CombinedHandler.class).run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(echo(context.getBean(RdmaClient.class), port(context))).isEqualTo("ping");
            assertThat(context.getBean(Auditor.class).watched).isCompleted();
        });
    }

    private static int port(org.springframework.context.ApplicationContext context) {
        return Integer.parseInt(context.getEnvironment().getProperty("local.rdma.server.port"));
    }

    private static String echo(RdmaClient client, int port) {
        RdmaSession session = client.host("127.0.0.1").port(port).connect().block(TIMEOUT);
        try {
            session.send(Flux.range(0, 100).map(i -> Unpooled.buffer(8).writeLong(i))).block(TIMEOUT);
            return session.request(Unpooled.copiedBuffer("ping", StandardCharsets.US_ASCII))
                    .map(b -> b.toString(StandardCharsets.US_ASCII)).block(TIMEOUT);
        } finally {
            session.dispose();
            session.onDispose().block(TIMEOUT);
        }
    }
}
