package io.softrdma.spring.rsocket;

import io.rsocket.DuplexConnection;
import io.rsocket.loadbalance.LoadbalanceStrategy;
import io.rsocket.loadbalance.LoadbalanceTarget;
import io.rsocket.loadbalance.RoundRobinLoadbalanceStrategy;
import io.rsocket.transport.ClientTransport;
import io.softrdma.reactive.RdmaClient;
import io.softrdma.rsocket.RdmaClientTransport;
import io.softrdma.spring.autoconfigure.RdmaActivity;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.springframework.messaging.rsocket.RSocketConnectorConfigurer;
import org.springframework.messaging.rsocket.RSocketRequester;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;
import reactor.util.retry.Retry;

/**
 * RSocket client transports over SoftRDMA with the starter's client settings ({@code rdma.client.*}: MPA, queue
 * pair, messaging, TLS, and the {@code RdmaClientCustomizer} beans), for Spring's {@link RSocketRequester}:
 * <ul>
 *   <li>{@link #clientTransport(String, int)}: a transport to one server, its SoftRDMA meters tagged
 *       {@code peer=<host>};</li>
 *   <li>{@link #targets(String, int)}: RSocket {@link LoadbalanceTarget}s for the addresses of a name (a Kubernetes
 *       headless Service: one per ready pod), followed as pods come and go;</li>
 *   <li>{@link #connect} and {@link #loadBalanced}: requesters from Boot's {@code RSocketRequester.Builder} over
 *       those, which connect again with backoff ({@code rdma.rsocket.client.reconnect.*}).</li>
 * </ul>
 * The auto-configuration makes one bean of this type when rdma-rsocket and spring-messaging are on the class path.
 *
 * <p>Buffers: RSocket's frames are RSocket's to give and the transport's once given; nothing here asks the caller to
 * release anything. Thread safety: immutable and thread-safe; every method may be called from any thread.
 */
public class RdmaRSocketTransports {
    private static final Log log = LogFactory.getLog(RdmaRSocketTransports.class);

    private final RdmaClient client;
    private final RdmaActivity activity;
    private final DnsResolver resolver;
    private final Duration refreshInterval;
    private final Retry reconnect;

    /**
     * Transports made with {@code client}.
     *
     * @param client the client settings each connection is opened with (host and port are each target's)
     * @param activity where each peer's sessions report, for the {@code peer}-tagged meters and health
     * @param resolver resolves service names for {@link #targets}
     * @param refreshInterval how often {@link #targets} resolves again
     * @param reconnect the reconnection {@link #connect} and {@link #loadBalanced} apply, or null for none
     */
    public RdmaRSocketTransports(RdmaClient client, RdmaActivity activity, DnsResolver resolver,
            Duration refreshInterval, Retry reconnect) {
        this.client = Objects.requireNonNull(client, "client");
        this.activity = Objects.requireNonNull(activity, "activity");
        this.resolver = Objects.requireNonNull(resolver, "resolver");
        this.refreshInterval = Objects.requireNonNull(refreshInterval, "refreshInterval");
        if (refreshInterval.isZero() || refreshInterval.isNegative()) {
            throw new IllegalArgumentException("rdma.rsocket.client.refresh-interval must be positive, was "
                    + refreshInterval);
        }
        this.reconnect = reconnect;
    }

    /**
     * A transport to {@code host}:{@code port}, each connection one RDMA session with the starter's client settings.
     * Its sessions report to the client role of peer {@code host}: the SoftRDMA meters of the clients of two hosts
     * are two series (tag {@code peer}), and the {@code rdma} health lists it under {@code peers}.
     *
     * @param host the server's name or address; resolved at each connect
     * @param port its port, 1 to 65535
     * @return the transport, for {@code RSocketRequester.Builder.transport(...)} or {@code RSocketConnector}
     */
    public ClientTransport clientTransport(String host, int port) {
        checkHost(host, "host");
        checkPort(port);
        return RdmaClientTransport.create(client.host(host).port(port).metrics(activity.client(host)));
    }

    /**
     * The load-balance targets of {@code serviceName}: one per address of its DNS A/AAAA records (with
     * {@link DnsResolver}), keyed {@code ip:port} ({@code [ip]:port} for IPv6), resolved at subscription and every
     * {@code rdma.rsocket.client.refresh-interval} after. A new list is emitted when the set of addresses changes
     * (pods added or removed), and also when a target's connection was lost or failed since the last list, so
     * that RSocket's pool, which drops such a target, connects to it again. A failed resolution, or one with no
     * address, keeps the last list and is logged. The connections verify TLS certificates against
     * {@code serviceName}, and their meters are tagged {@code peer=<serviceName>}.
     *
     * @param serviceName a DNS name with one address per server, such as a headless Service's
     * @param port the servers' RSocket-over-RDMA port, 1 to 65535
     * @return a cold Flux; each subscription resolves on its own, until cancelled
     */
    public Flux<List<LoadbalanceTarget>> targets(String serviceName, int port) {
        checkHost(serviceName, "serviceName");
        checkPort(port);
        return Flux.defer(() -> {
            Targets targets = new Targets(serviceName, port);
            return Flux.interval(Duration.ZERO, refreshInterval)
                    .onBackpressureDrop()
                    .concatMap(tick -> resolve(serviceName), 1)
                    .handle((addresses, sink) -> {
                        List<LoadbalanceTarget> next = targets.update(addresses);
                        if (next != null) {
                            sink.next(next);
                        }
                    });
        });
    }

    /**
     * A requester to {@code host}:{@code port} over RDMA, from {@code builder} (take Boot's prototype
     * {@code RSocketRequester.Builder} bean, with its codecs), which connects again with backoff after a failure
     * when {@code rdma.rsocket.client.reconnect.enabled}. It connects at the first request.
     *
     * @param builder the builder; this call adds the reconnection to it and builds
     * @param host the server's name or address
     * @param port its port
     * @return the requester
     */
    public RSocketRequester connect(RSocketRequester.Builder builder, String host, int port) {
        Objects.requireNonNull(builder, "builder");
        ClientTransport transport = clientTransport(host, port);
        return withReconnect(builder).transport(transport);
    }

    /**
     * A requester that spreads its requests round-robin across the addresses of {@code serviceName}
     * ({@link #targets}).
     *
     * @param builder the builder; this call adds the reconnection to it and builds
     * @param serviceName a DNS name with one address per server, such as a headless Service's
     * @param port the servers' port
     * @return the requester
     */
    public RSocketRequester loadBalanced(RSocketRequester.Builder builder, String serviceName, int port) {
        return loadBalanced(builder, serviceName, port, new RoundRobinLoadbalanceStrategy());
    }

    /**
     * A requester that spreads its requests across the addresses of {@code serviceName} ({@link #targets}) with
     * {@code strategy} (such as RSocket's {@code WeightedLoadbalanceStrategy}).
     *
     * @param builder the builder; this call adds the reconnection to it and builds
     * @param serviceName a DNS name with one address per server, such as a headless Service's
     * @param port the servers' port
     * @param strategy how to choose a target per request
     * @return the requester
     */
    public RSocketRequester loadBalanced(RSocketRequester.Builder builder, String serviceName, int port,
            LoadbalanceStrategy strategy) {
        Objects.requireNonNull(builder, "builder");
        Objects.requireNonNull(strategy, "strategy");
        Flux<List<LoadbalanceTarget>> targets = targets(serviceName, port);
        return withReconnect(builder).transports(targets, strategy);
    }

    /**
     * The reconnection ({@code rdma.rsocket.client.reconnect.*}) as a configurer, for a builder made otherwise:
     * {@code builder.rsocketConnector(transports.reconnect())}. Does nothing when reconnection is disabled.
     *
     * @return the configurer
     */
    public RSocketConnectorConfigurer reconnect() {
        Retry retry = reconnect;
        return connector -> {
            if (retry != null) {
                connector.reconnect(retry);
            }
        };
    }

    private RSocketRequester.Builder withReconnect(RSocketRequester.Builder builder) {
        return reconnect == null ? builder : builder.rsocketConnector(reconnect());
    }

    private Mono<List<InetAddress>> resolve(String name) {
        return Mono.fromCallable(() -> {
            List<InetAddress> addresses = resolver.resolve(name);
            if (addresses == null || addresses.isEmpty()) {
                throw new UnknownHostException(name + " resolved to no address");
            }
            return addresses;
        }).subscribeOn(Schedulers.boundedElastic()).onErrorResume(e -> {
            log.warn("RSocket over RDMA: resolving " + name + " failed (" + e + "); keeping its last targets");
            return Mono.empty();
        });
    }

    private static void checkHost(String host, String what) {
        if (host == null || host.isBlank()) {
            throw new IllegalArgumentException(what + " must be a host or service name, was '" + host + "'");
        }
    }

    private static void checkPort(int port) {
        if (port < 1 || port > 65535) {
            throw new IllegalArgumentException("port must be from 1 to 65535, was " + port);
        }
    }

    /** The key of the target at {@code address}: ip:port, [ip]:port for IPv6. */
    static String key(InetAddress address, int port) {
        String ip = address.getHostAddress();
        return (address instanceof Inet6Address ? "[" + ip + "]" : ip) + ":" + port;
    }

    /** One subscription's targets: the current set, and whether a connection ended since it was emitted. */
    private final class Targets {
        private final String serviceName;
        private final int port;
        private final AtomicBoolean lost = new AtomicBoolean();
        /** Written by update, read by the connections' callbacks. */
        private volatile Map<String, LoadbalanceTarget> current = Map.of();

        Targets(String serviceName, int port) {
            this.serviceName = serviceName;
            this.port = port;
        }

        /** The list to emit for {@code addresses}, or null when nothing changed. Called serially. */
        List<LoadbalanceTarget> update(List<InetAddress> addresses) {
            Map<String, LoadbalanceTarget> next = new TreeMap<>();
            for (InetAddress address : addresses) {
                String key = key(address, port);
                LoadbalanceTarget known = current.get(key);
                next.put(key, known != null ? known : LoadbalanceTarget.from(key, transport(address, key)));
            }
            boolean revive = lost.getAndSet(false);
            if (next.keySet().equals(current.keySet()) && !revive) {
                return null;
            }
            if (!next.keySet().equals(current.keySet())) {
                log.info("RSocket over RDMA: " + serviceName + " targets " + next.keySet());
            }
            current = next;
            return List.copyOf(new ArrayList<>(next.values()));
        }

        /**
         * A transport to {@code address} that verifies TLS against the service name (the address carries it as its
         * host name, so nothing is resolved again), and notes when its connection fails or ends while it is still a
         * target (the pool closes those of removed targets).
         */
        private ClientTransport transport(InetAddress address, String key) {
            InetSocketAddress remote;
            try {
                remote = new InetSocketAddress(InetAddress.getByAddress(serviceName, address.getAddress()), port);
            } catch (UnknownHostException e) {
                throw new IllegalStateException("an address of " + serviceName + " has a bad length: " + address, e);
            }
            RdmaClientTransport transport = RdmaClientTransport.create(client.host(serviceName).port(port)
                    .tcpConfiguration(tcp -> tcp.remoteAddress(() -> remote))
                    .metrics(activity.client(serviceName)));
            return new ClientTransport() {
                @Override
                public Mono<DuplexConnection> connect() {
                    return transport.connect()
                            .doOnError(e -> noteLost())
                            .doOnNext(c -> c.onClose().subscribe(null, e -> noteLost(), this::noteLost));
                }

                private void noteLost() {
                    if (current.containsKey(key)) {
                        lost.set(true);
                    }
                }

                @Override
                public int maxFrameLength() {
                    return transport.maxFrameLength();
                }
            };
        }
    }
}
