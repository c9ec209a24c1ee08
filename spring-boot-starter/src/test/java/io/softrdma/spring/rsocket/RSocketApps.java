package io.softrdma.spring.rsocket;

import io.softrdma.spring.autoconfigure.RdmaAutoConfiguration;
import io.softrdma.spring.autoconfigure.RdmaHealthAutoConfiguration;
import io.softrdma.spring.autoconfigure.RdmaMetricsAutoConfiguration;
import io.softrdma.spring.autoconfigure.RdmaRSocketClientAutoConfiguration;
import io.softrdma.spring.autoconfigure.RdmaRSocketObservationAutoConfiguration;
import io.softrdma.spring.autoconfigure.RdmaRSocketServerAutoConfiguration;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration;
import org.springframework.boot.rsocket.autoconfigure.RSocketMessagingAutoConfiguration;
import org.springframework.boot.rsocket.autoconfigure.RSocketRequesterAutoConfiguration;
import org.springframework.boot.rsocket.autoconfigure.RSocketStrategiesAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContext;
import org.springframework.messaging.handler.annotation.MessageMapping;
import org.springframework.messaging.rsocket.RSocketRequester;
import org.springframework.stereotype.Controller;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;

/** What the RSocket tests share: the auto-configurations of an RSocket application, and its controller. */
final class RSocketApps {
    static final Duration TIMEOUT = Duration.ofSeconds(10);

    private RSocketApps() {
    }

    /** Boot's RSocket and Jackson auto-configuration, and the starter's, with no property set. */
    static ApplicationContextRunner runner() {
        return new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(JacksonAutoConfiguration.class,
                RSocketStrategiesAutoConfiguration.class, RSocketMessagingAutoConfiguration.class,
                RSocketRequesterAutoConfiguration.class, RdmaAutoConfiguration.class,
                RdmaRSocketServerAutoConfiguration.class, RdmaRSocketClientAutoConfiguration.class,
                RdmaRSocketObservationAutoConfiguration.class, RdmaHealthAutoConfiguration.class,
                RdmaMetricsAutoConfiguration.class, MetricsAutoConfiguration.class));
    }

    /** {@link #runner()} with the RSocket server over RDMA on loopback, any port, and the {@link Greetings}. */
    static ApplicationContextRunner serving() {
        return runner().withPropertyValues("rdma.rsocket.server.port=0", "rdma.rsocket.server.address=127.0.0.1")
                .withBean(Greetings.class);
    }

    /** A requester over RDMA to the context's RSocket server. */
    static RSocketRequester requester(ApplicationContext context) {
        return requester(context, context.getBean(RdmaRSocketServer.class).port());
    }

    static RSocketRequester requester(ApplicationContext context, int port) {
        return context.getBean(RdmaRSocketTransports.class)
                .connect(context.getBean(RSocketRequester.Builder.class), "127.0.0.1", port);
    }

    /** Disposes a requester and waits for its connections to close. */
    static void dispose(RSocketRequester requester) {
        requester.dispose();
        if (requester.rsocketClient() instanceof io.rsocket.loadbalance.LoadbalanceRSocketClient pool) {
            pool.onClose().onErrorComplete().block(TIMEOUT);
        } else {
            requester.rsocketClient().source().flatMap(r -> r.onClose()).onErrorComplete().block(TIMEOUT);
        }
    }

    /** A JSON payload. */
    record Greeting(String text) {
    }

    /** One of each interaction model. */
    @Controller
    static class Greetings {
        /** Who answers: tells two servers apart. */
        volatile String name = "server";
        final List<Greeting> notes = new CopyOnWriteArrayList<>();
        /** What the "slow" route waits for. */
        final Sinks.One<String> release = Sinks.one();
        final Sinks.Many<String> slowStarted = Sinks.many().replay().all();

        @MessageMapping("greet")
        Mono<Greeting> greet(Greeting greeting) {
            return Mono.just(new Greeting("hello " + greeting.text() + " from " + name));
        }

        @MessageMapping("count")
        Flux<Greeting> count(Greeting greeting) {
            return Flux.range(1, 100).map(i -> new Greeting(greeting.text() + " " + i));
        }

        @MessageMapping("note")
        Mono<Void> note(Greeting greeting) {
            notes.add(greeting);
            return Mono.empty();
        }

        @MessageMapping("shout")
        Flux<Greeting> shout(Flux<Greeting> greetings) {
            return greetings.map(g -> new Greeting(g.text().toUpperCase(java.util.Locale.ROOT)));
        }

        @MessageMapping("slow")
        Mono<String> slow() {
            return release.asMono().doOnSubscribe(s -> slowStarted.tryEmitNext("started"));
        }
    }
}
