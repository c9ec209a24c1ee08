package io.softrdma.spring.rsocket;

import static io.softrdma.spring.rsocket.RSocketApps.TIMEOUT;
import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetAddress;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.messaging.handler.annotation.MessageMapping;
import org.springframework.messaging.rsocket.RSocketRequester;
import org.springframework.stereotype.Controller;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.test.StepVerifier;

/** docs/spring-boot.md's RSocket examples, word for word (regions {@code starter-rsocket-*}), run over RDMA. */
class RSocketDocumentationExamplesTests {

    @Configuration(proxyBeanMethods = false)
    static class Clients {
        // tag::starter-rsocket-requester[]
        @Bean
        RSocketRequester orders(RdmaRSocketTransports rdma, RSocketRequester.Builder builder,
                @Value("${orders.host}") String host, @Value("${orders.port}") int port) {
            return rdma.connect(builder, host, port);   // over RDMA; connects again with backoff
        }
        // end::starter-rsocket-requester[]

        // tag::starter-rsocket-load-balanced[]
        @Bean
        RSocketRequester ordersCluster(RdmaRSocketTransports rdma, RSocketRequester.Builder builder,
                @Value("${orders.port}") int port) {
            // A headless Service's name: one A record per ready pod, resolved again every refresh-interval.
            return rdma.loadBalanced(builder, "orders.shop.svc.cluster.local", port);
        }
        // end::starter-rsocket-load-balanced[]

        /** The cluster's DNS, here: the one server on loopback. */
        @Bean
        DnsResolver dns() {
            return name -> List.of(InetAddress.getLoopbackAddress());
        }
    }

    @Test
    void theControllerAnswersTheRequestersOverRdma() {
        RSocketApps.runner().withBean(OrdersController.class)
                .withPropertyValues("rdma.rsocket.server.port=0", "rdma.rsocket.server.address=127.0.0.1")
                .run(server -> {
                    int port = server.getBean(RdmaRSocketServer.class).port();
                    RSocketApps.runner().withUserConfiguration(Clients.class)
                            .withPropertyValues("orders.host=127.0.0.1", "orders.port=" + port).run(client -> {
                                RSocketRequester orders = client.getBean("orders", RSocketRequester.class);
                                RSocketRequester cluster = client.getBean("ordersCluster", RSocketRequester.class);
                                try {
                                    // tag::starter-rsocket-request[]
                                    Mono<Order> order = orders.route("orders.get").data(new OrderQuery(42))
                                            .retrieveMono(Order.class);
                                    Flux<Order> steps = orders.route("orders.watch").data(new OrderQuery(42))
                                            .retrieveFlux(Order.class);
                                    // end::starter-rsocket-request[]
                                    assertThat(order.block(TIMEOUT)).isEqualTo(new Order(42, "shipped"));
                                    StepVerifier.create(steps).expectNext(new Order(42, "step 0"))
                                            .expectNextCount(2).verifyComplete();
                                    assertThat(cluster.route("orders.get").data(new OrderQuery(7))
                                            .retrieveMono(Order.class).block(TIMEOUT)).isEqualTo(
                                                    new Order(7, "shipped"));
                                } finally {
                                    RSocketApps.dispose(orders);
                                    RSocketApps.dispose(cluster);
                                }
                            });
                });
    }

    @Test
    void anExistingRequesterSwitchesToRdmaWithOneCall() {
        RSocketApps.runner().withBean(OrdersController.class)
                .withPropertyValues("rdma.rsocket.server.port=0", "rdma.rsocket.server.address=127.0.0.1")
                .run(context -> {
                    String host = "127.0.0.1";
                    int port = context.getBean(RdmaRSocketServer.class).port();
                    RSocketRequester.Builder builder = context.getBean(RSocketRequester.Builder.class);
                    RdmaRSocketTransports rdma = context.getBean(RdmaRSocketTransports.class);
                    // tag::starter-rsocket-transport[]
                    // Over TCP this was builder.tcp(host, port):
                    RSocketRequester requester = builder.transport(rdma.clientTransport(host, port));
                    // end::starter-rsocket-transport[]
                    try {
                        assertThat(requester.route("orders.get").data(new OrderQuery(1)).retrieveMono(Order.class)
                                .block(TIMEOUT)).isEqualTo(new Order(1, "shipped"));
                    } finally {
                        RSocketApps.dispose(requester);
                    }
                });
    }
}

/** What the examples' clients ask for. */
record OrderQuery(long id) {
}

/** What the examples' server answers. */
record Order(long id, String state) {
}

// tag::starter-rsocket-controller[]
@Controller
class OrdersController {
    @MessageMapping("orders.get")
    Mono<Order> get(OrderQuery query) {                  // JSON in and out, with Boot's RSocketStrategies
        return Mono.just(new Order(query.id(), "shipped"));
    }

    @MessageMapping("orders.watch")
    Flux<Order> watch(OrderQuery query) {
        return Flux.range(0, 3).map(i -> new Order(query.id(), "step " + i));
    }
}
// end::starter-rsocket-controller[]
