package io.softrdma.samples.messaging;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.micrometer.core.instrument.MeterRegistry;
import io.rsocket.exceptions.ApplicationErrorException;
import io.softrdma.testing.HttpProbe;
import java.math.BigDecimal;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.messaging.rsocket.RSocketRequester;
import reactor.core.publisher.Flux;
import reactor.test.StepVerifier;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The sample end to end, both roles in one JVM on 127.0.0.1: the server application serving its
 * {@code @MessageMapping} controllers over RSocket on RDMA (started by {@code rdma.rsocket.server.port} alone), and
 * the client application whose {@link MessagingClient} consumes quotes slowly and runs rounds of the other routes.
 * Every route answers in JSON through the client's {@link RSocketRequester}; the slow consumer holds the fast
 * producer to its pace (the server's {@code messaging.quotes.emitted} never runs ahead of the client's
 * {@code messaging.quotes.consumed} by more than the request window); the {@code rdma} health indicator is UP with the
 * RSocket server; SoftRDMA's meters show the frames going by RDMA Sends.
 *
 * <p>The throttling test runs first: the route tests open quote streams of their own, which the server's emitted
 * count includes.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class MessagingEndToEndTest {
    private static final Duration TIMEOUT = Duration.ofSeconds(10);
    private static final JsonMapper JSON = JsonMapper.builder().build();
    private static final int WINDOW = 16;
    private static final int QUOTES = 400;
    /**
     * What the client holds between RSocket's requester and the count of consumed quotes: one quote in its
     * {@code Mono.delay}, one queued in {@code concatMap}.
     */
    private static final int IN_HAND = 2;

    private ConfigurableApplicationContext server;
    private ConfigurableApplicationContext client;
    private int serverHttp;
    private int rsocketPort;
    private int clientHttp;

    @BeforeAll
    void start() {
        server = new SpringApplicationBuilder(MessagingApplication.class).profiles("server").run("--server.port=0",
                "--rdma.rsocket.server.port=0", "--rdma.rsocket.server.address=127.0.0.1");
        rsocketPort = server.getEnvironment().getRequiredProperty("local.rdma.rsocket.server.port", Integer.class);
        serverHttp = server.getEnvironment().getRequiredProperty("local.server.port", Integer.class);
        client = new SpringApplicationBuilder(MessagingApplication.class).profiles("client").run("--server.port=0",
                "--messaging.client.host=127.0.0.1", "--messaging.client.port=" + rsocketPort,
                "--messaging.client.consume-delay=5ms", "--messaging.client.request-window=" + WINDOW,
                "--messaging.client.interval=200ms");
        clientHttp = client.getEnvironment().getRequiredProperty("local.server.port", Integer.class);
    }

    @AfterAll
    void stop() {
        if (client != null) {
            client.close();
        }
        if (server != null) {
            server.close();
        }
    }

    private RSocketRequester requester() {
        return client.getBean(RSocketRequester.class);
    }

    private double serverCount(String meter) {
        return server.getBean(MeterRegistry.class).get(meter).counter().count();
    }

    private double clientCount(String meter) {
        return client.getBean(MeterRegistry.class).get(meter).counter().count();
    }

    @Test
    @org.junit.jupiter.api.Order(1)
    void theSlowConsumerHoldsTheFastProducerToItsPace() {
        AtomicLong mostAhead = new AtomicLong(Long.MIN_VALUE);
        double emittedBefore = serverCount("messaging.quotes.emitted");
        double consumedBefore = clientCount("messaging.quotes.consumed");
        long start = System.nanoTime();
        // Each poll samples how far the producer is ahead: emitted is read first, so that a quote consumed between
        // the two reads cannot make the producer look further ahead than it was.
        await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(10)).until(() -> {
            double emitted = serverCount("messaging.quotes.emitted");
            double consumed = clientCount("messaging.quotes.consumed");
            mostAhead.accumulateAndGet((long) (emitted - consumed), Math::max);
            return consumed >= consumedBefore + QUOTES;
        });
        double seconds = (System.nanoTime() - start) / 1e9;
        double emitted = serverCount("messaging.quotes.emitted");
        double consumed = clientCount("messaging.quotes.consumed");
        assertThat(mostAhead.get()).as("quotes made ahead of the consumer (emitted %s, consumed %s)", emitted,
                consumed).isLessThanOrEqualTo(WINDOW + IN_HAND);
        // ... and not behind it: it made (nearly) as many as were consumed, window after window.
        assertThat(emitted - emittedBefore).as("quotes made while %d were consumed", QUOTES)
                .isGreaterThanOrEqualTo(QUOTES - WINDOW - IN_HAND);
        // 5 ms a quote, one after the other: 400 take 2 s (less the rest of one delay under way at the start).
        assertThat(seconds).as("seconds to consume %d quotes at 5 ms each", QUOTES).isGreaterThan(1.9);
        assertThat(client.getBean(MessagingClient.class).gaps()).as("a stream that started over").isZero();
    }

    @Test
    @org.junit.jupiter.api.Order(2)
    void requestResponseAnswersInJson() {
        StepVerifier.create(requester().route("orders.get").data(new OrderRequest("1002")).retrieveMono(Order.class))
                .expectNext(new Order("1002", "queue pair", 1, new BigDecimal("99.00"))).expectComplete()
                .verify(TIMEOUT);
        // The same route with the JSON written out: what goes on the wire is JSON, both ways.
        String json = requester().route("orders.get").data("{\"id\":\"1003\"}").retrieveMono(String.class)
                .block(TIMEOUT);
        assertThat(json).startsWith("{").contains("\"id\":\"1003\"", "\"product\":\"completion queue\"",
                "\"quantity\":4", "\"unitPrice\":7.25");
        StepVerifier.create(requester().route("orders.get").data(new OrderRequest("nope")).retrieveMono(Order.class))
                .expectErrorSatisfies(e -> assertThat(e).isInstanceOf(ApplicationErrorException.class)
                        .hasMessageContaining("no order nope"))
                .verify(TIMEOUT);
    }

    @Test
    @org.junit.jupiter.api.Order(3)
    void theChannelAnswersEachOrderAndStoresTheAcceptedOnes() {
        Flux<Order> orders = Flux.just(new Order("t-1", "memory window", 3, new BigDecimal("2.00")),
                new Order("t-2", "memory window", 0, new BigDecimal("2.00")),
                new Order("t-3", "send slot", 10, new BigDecimal("0.10")));
        StepVerifier.create(requester().route("orders.process").data(orders).retrieveFlux(OrderStatus.class))
                .expectNext(new OrderStatus("t-1", OrderStatus.State.ACCEPTED, new BigDecimal("6.00"), ""))
                .expectNext(new OrderStatus("t-2", OrderStatus.State.REJECTED, BigDecimal.ZERO,
                        "quantity must be at least 1, not 0"))
                .expectNext(new OrderStatus("t-3", OrderStatus.State.ACCEPTED, new BigDecimal("1.00"), ""))
                .expectComplete().verify(TIMEOUT);
        StepVerifier.create(requester().route("orders.get").data(new OrderRequest("t-3")).retrieveMono(Order.class)
                .map(Order::quantity)).expectNext(10).expectComplete().verify(TIMEOUT);
    }

    @Test
    @org.junit.jupiter.api.Order(4)
    void fireAndForgetArrives() {
        double before = events("order.read");
        requester().route("events.record").data(new Event("order.read", "1001", Instant.now())).send()
                .block(TIMEOUT);
        // Nothing comes back from fire-and-forget: the server's meter is how it shows.
        await().atMost(TIMEOUT).until(() -> events("order.read") == before + 1);
    }

    @Test
    @org.junit.jupiter.api.Order(5)
    void theStreamIsQuotesInJsonInSequence() {
        StepVerifier.create(requester().route("quotes.stream").data(new QuoteRequest("TEST")).retrieveFlux(Quote.class)
                .take(3).map(q -> q.symbol() + "#" + q.sequence()))
                .expectNext("TEST#0", "TEST#1", "TEST#2").expectComplete().verify(TIMEOUT);
        // take(1) asks for one (REQUEST_N 1): the stream has no end, and makes only what is asked for.
        String json = requester().route("quotes.stream").data(new QuoteRequest("JSON")).retrieveFlux(String.class)
                .take(1).blockLast(TIMEOUT);
        assertThat(json).startsWith("{").contains("\"symbol\":\"JSON\"", "\"sequence\":0", "\"price\":100");
    }

    @Test
    @org.junit.jupiter.api.Order(6)
    void theClientsRoundsPassAndTheirEventsArrive() {
        await().atMost(Duration.ofSeconds(30)).until(() -> clientRounds("passed") >= 3);
        assertThat(clientRounds("failed")).isZero();
        // Ten orders a round, one of them invalid: nine accepted and one rejected event each round.
        await().atMost(TIMEOUT).until(() -> events("order.rejected") >= 3 && events("order.accepted") >= 27);
    }

    @Test
    @org.junit.jupiter.api.Order(8)
    void eachEndObservesTheRequests() {
        requester().route("orders.get").data(new OrderRequest("1001")).retrieveMono(Order.class).block(TIMEOUT);
        // RSocket's observation proxies, which the starter puts on Boot's requesters and on the RDMA server: with
        // Micrometer's meter handler, each observation is a timer named for the interaction, tagged with the route.
        await().atMost(TIMEOUT).untilAsserted(() -> {
            assertThat(observed(client, "rsocket.request", "orders.get")).as("the requester's observations")
                    .isPositive();
            assertThat(observed(server, "rsocket.response", "orders.get")).as("the responder's observations")
                    .isPositive();
        });
        assertThat(observed(client, "rsocket.stream", "quotes.stream")).as("the slow consumer's stream")
                .isPositive();
        assertThat(observed(client, "rsocket.fnf", "events.record")).isPositive();
        assertThat(observed(client, "rsocket.channel", "orders.process")).isPositive();
    }

    /** Observations recorded as timers (finished) and long task timers (still going), of one route. */
    private static long observed(ConfigurableApplicationContext context, String name, String route) {
        MeterRegistry registry = context.getBean(MeterRegistry.class);
        return registry.find(name).tag("rsocket.route", route).timers().stream().mapToLong(t -> t.count()).sum()
                + registry.find(name + ".active").tag("rsocket.route", route).longTaskTimers().stream()
                        .mapToLong(t -> t.activeTasks()).sum();
    }

    private double events(String type) {
        return server.getBean(MeterRegistry.class).find("messaging.events.recorded").tag("type", type).counters()
                .stream().mapToDouble(c -> c.count()).sum();
    }

    /** RDMA Sends of one role and direction, summed over the other tags. */
    private static double rdmaMessages(ConfigurableApplicationContext context, String role, String direction) {
        return sendCounter(context, "rdma.messages", role, direction);
    }

    private static double rdmaBytes(ConfigurableApplicationContext context, String role, String direction) {
        return sendCounter(context, "rdma.bytes", role, direction);
    }

    private static double sendCounter(ConfigurableApplicationContext context, String name, String role,
            String direction) {
        return context.getBean(MeterRegistry.class).find(name)
                .tags("role", role, "direction", direction, "opcode", "send").functionCounters().stream()
                .mapToDouble(c -> c.count()).sum();
    }

    private double clientRounds(String outcome) {
        return client.getBean(MeterRegistry.class).get("messaging.client.rounds").tag("outcome", outcome).counter()
                .count();
    }

    @Test
    @org.junit.jupiter.api.Order(7)
    void healthIsUpWithTheRSocketServerAndSoftRdmaMetersShowTheFrames() throws Exception {
        JsonNode health = JSON.readTree(HttpProbe.get(serverHttp, "/actuator/health"));
        assertThat(health.path("status").asString()).isEqualTo("UP");
        JsonNode rdma = health.path("components").path("rdma");
        assertThat(rdma.path("status").asString()).as("rdma health: %s", rdma).isEqualTo("UP");
        assertThat(rdma.path("details").path("rsocket").path("listening").asBoolean()).as("rdma health: %s", rdma)
                .isTrue();
        assertThat(rdma.path("details").path("rsocket").path("port").asInt()).isEqualTo(rsocketPort);
        assertThat(rdma.path("details").path("rsocket").path("connections").asInt()).as("the client's").isEqualTo(1);
        assertThat(JSON.readTree(HttpProbe.get(clientHttp, "/actuator/health")).path("status").asString())
                .isEqualTo("UP");

        // Every quote is one RSocket frame, one SoftRDMA message; frames sent together share a Send (a BATCH), so
        // the Sends may be fewer than the quotes, but they carry every quote's octets: a 6-octet frame header and a
        // JSON quote of more than 34 octets each.
        double consumed = clientCount("messaging.quotes.consumed");
        assertThat(consumed).as("quotes consumed").isPositive();
        assertThat(rdmaMessages(server, "server", "sent")).as("Sends from the server").isPositive();
        assertThat(rdmaMessages(client, "client", "received")).as("Sends to the client").isPositive();
        assertThat(rdmaBytes(server, "server", "sent")).as("Send octets from the server")
                .isGreaterThanOrEqualTo(consumed * 40);
        assertThat(rdmaBytes(client, "client", "received")).as("Send octets to the client")
                .isGreaterThanOrEqualTo(consumed * 40);
        String served = HttpProbe.get(serverHttp, "/actuator/prometheus");
        assertThat(served).contains("rdma_credits_available_credits{", "rdma_credits_granted_credits{",
                "messaging_quotes_emitted_quotes_total ", "messaging_events_recorded_events_total{");
        String used = HttpProbe.get(clientHttp, "/actuator/prometheus");
        assertThat(used).contains("rdma_credits_available_credits{", "rdma_credits_granted_credits{",
                "messaging_quotes_consumed_quotes_total ", "messaging_client_rounds_total{");
    }
}
