package io.softrdma.spring.rsocket;

import static io.softrdma.spring.rsocket.RSocketApps.TIMEOUT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.rsocket.loadbalance.LoadbalanceTarget;
import io.softrdma.spring.autoconfigure.RdmaActivity;
import io.softrdma.spring.rsocket.RSocketApps.Greeting;
import io.softrdma.spring.rsocket.RSocketApps.Greetings;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.messaging.rsocket.RSocketRequester;
import reactor.test.StepVerifier;

/**
 * {@link RdmaRSocketTransports}: targets that follow a (fake) DNS, requests spread across two real servers,
 * reconnection after a server restarts, and meters per peer.
 */
class RdmaRSocketTransportsTests {

    /** A DNS whose answer the test sets: addresses, or a failure. */
    static final class FakeDns implements DnsResolver {
        volatile List<InetAddress> addresses = List.of();
        volatile boolean failing;
        final AtomicInteger lookups = new AtomicInteger();

        @Override
        public List<InetAddress> resolve(String name) throws UnknownHostException {
            lookups.incrementAndGet();
            if (failing) {
                throw new UnknownHostException(name + ": the fake DNS is failing");
            }
            return addresses;
        }

        void answer(String... ips) {
            List<InetAddress> list = new ArrayList<>();
            for (String ip : ips) {
                list.add(address(ip));
            }
            addresses = List.copyOf(list);
        }

        /** Waits until the DNS has been asked {@code n} more times: that many refreshes have happened. */
        void awaitLookups(int n) {
            int target = lookups.get() + n;
            await().atMost(TIMEOUT).until(() -> lookups.get() >= target);
        }
    }

    static InetAddress address(String ip) {
        try {
            return InetAddress.getByName(ip);
        } catch (UnknownHostException e) {
            throw new IllegalArgumentException(e);
        }
    }

    private static List<String> keys(List<LoadbalanceTarget> targets) {
        return targets.stream().map(LoadbalanceTarget::getKey).toList();
    }

    private static ApplicationContextRunner client(FakeDns dns) {
        return RSocketApps.runner().withBean(FakeDns.class, () -> dns)
                .withPropertyValues("rdma.rsocket.client.refresh-interval=50ms");
    }

    @Test
    void targetsFollowTheDnsAndKeepTheLastListWhenItFails() {
        FakeDns dns = new FakeDns();
        dns.answer("127.0.0.11", "127.0.0.12");
        client(dns).run(context -> {
            RdmaRSocketTransports transports = context.getBean(RdmaRSocketTransports.class);
            StepVerifier.create(transports.targets("orders.default.svc.cluster.local", 7471).map(
                    RdmaRSocketTransportsTests::keys))
                    .expectNext(List.of("127.0.0.11:7471", "127.0.0.12:7471"))
                    // A pod is added...
                    .then(() -> dns.answer("127.0.0.12", "127.0.0.11", "127.0.0.13"))
                    .expectNext(List.of("127.0.0.11:7471", "127.0.0.12:7471", "127.0.0.13:7471"))
                    // ...and one removed.
                    .then(() -> dns.answer("127.0.0.13", "127.0.0.12"))
                    .expectNext(List.of("127.0.0.12:7471", "127.0.0.13:7471"))
                    // The same set in another order, a failing DNS and an empty answer emit nothing: the next
                    // list is the one after them.
                    .then(() -> {
                        dns.answer("127.0.0.12", "127.0.0.13");
                        dns.awaitLookups(3);
                        dns.failing = true;
                        dns.awaitLookups(3);
                        dns.failing = false;
                        dns.answer();
                        dns.awaitLookups(3);
                        dns.answer("127.0.0.14");
                    })
                    .expectNext(List.of("127.0.0.14:7471"))
                    .thenCancel().verify(TIMEOUT);
        });
    }

    @Test
    void ipv6TargetsAreKeyedInBrackets() {
        FakeDns dns = new FakeDns();
        dns.answer("::1");
        client(dns).run(context -> StepVerifier.create(context.getBean(RdmaRSocketTransports.class)
                .targets("v6.example", 7471).map(RdmaRSocketTransportsTests::keys))
                .expectNext(List.of("[0:0:0:0:0:0:0:1]:7471")).thenCancel().verify(TIMEOUT));
    }

    @Test
    void badArgumentsFailWithTheRule() {
        RSocketApps.runner().run(context -> {
            RdmaRSocketTransports transports = context.getBean(RdmaRSocketTransports.class);
            assertThatThrownBy(() -> transports.clientTransport(" ", 7471))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("host must be");
            assertThatThrownBy(() -> transports.clientTransport("orders", 0))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("from 1 to 65535");
            assertThatThrownBy(() -> transports.targets("", 7471))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("serviceName must be");
        });
        RSocketApps.runner().withPropertyValues("rdma.rsocket.client.refresh-interval=0s").run(context ->
                assertThat(context).getFailure().rootCause().hasMessageContaining("refresh-interval must be positive"));
        RSocketApps.runner().withPropertyValues("rdma.rsocket.client.reconnect.max-attempts=0").run(context ->
                assertThat(context).getFailure().rootCause().hasMessageContaining("max-attempts must be at least 1"));
    }

    @Test
    void loadBalancedSpreadsRequestsAcrossTheServersAndFollowsTheDns() throws Exception {
        // Two servers on one port, on two loopback addresses: a headless Service's pods as DNS gives them.
        RSocketApps.runner().withBean(Greetings.class, () -> named("a"))
                .withPropertyValues("rdma.rsocket.server.port=0", "rdma.rsocket.server.address=127.0.0.1").run(a -> {
            int port = a.getBean(RdmaRSocketServer.class).port();
            RSocketApps.runner().withBean(Greetings.class, () -> named("b"))
                    .withPropertyValues("rdma.rsocket.server.port=" + port, "rdma.rsocket.server.address=127.0.0.2")
                    .run(b -> {
                        assertThat(b).hasNotFailed();
                        FakeDns dns = new FakeDns();
                        dns.answer("127.0.0.1", "127.0.0.2");
                        client(dns).withBean(SimpleMeterRegistry.class).run(client -> {
                            RdmaRSocketTransports transports = client.getBean(RdmaRSocketTransports.class);
                            RSocketRequester requester = transports.loadBalanced(
                                    client.getBean(RSocketRequester.Builder.class), "greetings.test", port);
                            try {
                                await().atMost(TIMEOUT).untilAsserted(() -> assertThat(answerers(requester, 10))
                                        .containsExactlyInAnyOrder("a", "b"));
                                // Both connections are the peer "greetings.test"'s, one meter series.
                                MeterRegistry registry = client.getBean(MeterRegistry.class);
                                assertThat(registry.get("rdma.connections").tags("role", "client", "peer",
                                        "greetings.test").gauge().value()).isEqualTo(2);
                                // A pod goes: every request goes to the other.
                                dns.answer("127.0.0.1");
                                await().atMost(TIMEOUT).untilAsserted(() -> assertThat(answerers(requester, 10))
                                        .containsExactly("a"));
                                // It comes back.
                                dns.answer("127.0.0.2", "127.0.0.1");
                                await().atMost(TIMEOUT).untilAsserted(() -> assertThat(answerers(requester, 10))
                                        .containsExactlyInAnyOrder("a", "b"));
                            } finally {
                                RSocketApps.dispose(requester);
                            }
                        });
                    });
        });
    }

    private static Greetings named(String name) {
        Greetings g = new Greetings();
        g.name = name;
        return g;
    }

    /** Who answered {@code n} requests. */
    private static Set<String> answerers(RSocketRequester requester, int n) {
        Set<String> names = new HashSet<>();
        for (int i = 0; i < n; i++) {
            String text = requester.route("greet").data(new Greeting("x")).retrieveMono(Greeting.class)
                    .block(TIMEOUT).text();
            names.add(text.substring(text.lastIndexOf(' ') + 1));
        }
        return names;
    }

    @Test
    void aRequesterConnectsAgainWhenTheServerIsBack() throws Exception {
        int port;
        try (ServerSocket free = new ServerSocket(0)) {
            port = free.getLocalPort();
        }
        ApplicationContextRunner serverRunner = RSocketApps.runner().withBean(Greetings.class)
                .withPropertyValues("rdma.rsocket.server.port=" + port, "rdma.rsocket.server.address=127.0.0.1");
        RSocketApps.runner().withPropertyValues("rdma.rsocket.client.reconnect.min-backoff=50ms",
                "rdma.rsocket.client.reconnect.max-backoff=200ms", "rdma.rsocket.client.reconnect.max-attempts=100")
                .run(client -> {
                    RSocketRequester requester = RSocketApps.requester(client, port);
                    try {
                        serverRunner.run(server -> assertThat(requester.route("greet").data(new Greeting("1"))
                                .retrieveMono(Greeting.class).block(TIMEOUT).text()).startsWith("hello 1"));
                        // The server is gone, and the client's connection with it...
                        RdmaActivity.Role peer = client.getBean(RdmaActivity.class).client("127.0.0.1");
                        await().atMost(TIMEOUT).until(() -> peer.openSessions().isEmpty());
                        // ...so a request now waits, connecting again with backoff...
                        CompletableFuture<Greeting> waiting = requester.route("greet").data(new Greeting("2"))
                                .retrieveMono(Greeting.class).toFuture();
                        assertThat(waiting).isNotDone();
                        // ...until the server is back on its port.
                        serverRunner.run(server -> assertThat(waiting.get(10, TimeUnit.SECONDS).text())
                                .startsWith("hello 2"));
                        assertThat(peer.opened()).isEqualTo(2);
                    } finally {
                        RSocketApps.dispose(requester);
                    }
                });
    }

    @Test
    void eachPeerIsItsOwnMeterSeries() {
        FakeDns dns = new FakeDns();
        dns.answer("127.0.0.1");
        RSocketApps.serving().withBean(FakeDns.class, () -> dns).withBean(SimpleMeterRegistry.class).run(context -> {
            int port = context.getBean(RdmaRSocketServer.class).port();
            RdmaRSocketTransports transports = context.getBean(RdmaRSocketTransports.class);
            RSocketRequester.Builder builder = context.getBean(RSocketRequester.Builder.class);
            RSocketRequester direct = transports.connect(builder, "127.0.0.1", port);
            RSocketRequester byName = transports.loadBalanced(context.getBean(RSocketRequester.Builder.class),
                    "orders.test", port);
            try {
                for (RSocketRequester r : List.of(direct, byName, byName)) {
                    r.route("greet").data(new Greeting("x")).retrieveMono(Greeting.class).block(TIMEOUT);
                }
                MeterRegistry registry = context.getBean(MeterRegistry.class);
                for (String peer : List.of("127.0.0.1", "orders.test")) {
                    assertThat(registry.get("rdma.connections").tags("role", "client", "peer", peer).gauge()
                            .value()).as(peer).isEqualTo(1);
                }
                double direct2 = sends(registry, "127.0.0.1");
                double byName2 = sends(registry, "orders.test");
                assertThat(byName2).as("two requests (and SETUP) against one").isGreaterThan(direct2);
                assertThat(direct2).isPositive();
                // The server and the plain client have no peer.
                assertThat(registry.get("rdma.connections").tags("role", "server", "peer", RdmaActivity.NO_PEER)
                        .gauge().value()).isEqualTo(2);
                assertThat(context.getBean(RdmaActivity.class).peers()).containsOnlyKeys("127.0.0.1", "orders.test");
            } finally {
                RSocketApps.dispose(direct);
                RSocketApps.dispose(byName);
            }
        });
    }

    private static double sends(MeterRegistry registry, String peer) {
        return registry.get("rdma.messages").tags("role", "client", "peer", peer, "opcode", "send", "direction",
                "sent").functionCounter().count();
    }
}
