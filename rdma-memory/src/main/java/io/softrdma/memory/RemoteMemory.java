package io.softrdma.memory;

import io.netty.buffer.ByteBuf;
import io.softrdma.memory.internal.ClientSettings;
import io.softrdma.memory.internal.MemoryClient;
import io.softrdma.memory.internal.RegionClient;
import io.softrdma.reactive.RdmaClient;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;
import reactor.core.Disposable;
import reactor.core.publisher.Mono;

/**
 * The client of one or more {@link MemoryServer}s: resolves named regions into {@link RemoteRegion}s and calls the
 * servers' {@link MemoryService}s. Several servers (a Kubernetes headless Service's pods, say) share the work by
 * consistent hashing: a region name or shard key always goes to the same server while the set of servers stays the
 * same, and only the keys of a server that came or went move.
 *
 * <pre>{@code
 * RemoteMemory memory = RemoteMemory.builder()
 *         .servers(host + ":" + port)
 *         .credential("pricing-client")
 *         .build();
 * long price = memory.region("prices").flatMap(r -> r.getLong(64)).block();
 * }</pre>
 *
 * <p>Connections: one session per server, made on first use and made again, with backoff, after it ends. Regions:
 * resolved once per server and cached; a lease in use is renewed before it expires, and a region whose lease was
 * revoked (the operation failed with {@link RegionRevokedException}) is resolved again by its next operation.
 *
 * <p>Not the verbs record {@link io.softrdma.verbs.RemoteMemory} (one STag, offset and length): this is the
 * product-level client that obtains and keeps those for you.
 *
 * <p>Thread safety: all methods may be called from any thread.
 */
public final class RemoteMemory implements Disposable {
    private final MemoryClient client;

    private RemoteMemory(MemoryClient client) {
        this.client = client;
    }

    /** A builder with no servers yet: give them with {@code servers(...)} or {@code headlessService(...)}. */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * The region {@code name}, from the server its name hashes to.
     *
     * <p>Errors: {@link NoSuchRegionException}, {@link RegionAccessDeniedException} (with the server's reason), or a
     * {@link RemoteMemoryException} if no server could be reached.
     */
    public Mono<RemoteRegion> region(String name) {
        return region(name, name);
    }

    /** The region {@code name} on the server {@code shardKey} hashes to (see {@link #serverFor(Object)}). */
    public Mono<RemoteRegion> region(String name, Object shardKey) {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(shardKey, "shardKey");
        return client.region(name, shardKey).map(RemoteRegion::new);
    }

    /**
     * The region {@code name} on the server {@code shardKey} hashes to, if this client holds a lease on it that can
     * be used now; empty if {@link #region(String, Object)} would have to resolve it first. No I/O and no waiting: a
     * fast path for a caller that uses the same region again and again (RdmaCache's GET), falling back to {@code
     * region} when empty. The handle is the same kind {@code region} gives (its operations re-resolve as needed).
     */
    public Optional<RemoteRegion> leasedRegion(String name, Object shardKey) {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(shardKey, "shardKey");
        RegionClient region = client.leasedRegion(name, shardKey);
        return region == null ? Optional.empty() : Optional.of(new RemoteRegion(region));
    }

    /**
     * Calls the service {@code service} on the server {@code shardKey} hashes to with {@code payload}, which is the
     * library's from now on (released once sent). The response is the library's too: valid while {@code onNext}
     * runs, released when it returns (retain it to keep it).
     *
     * <p>Errors: {@link NoSuchRegionException} if the server has no such service, a {@link RemoteMemoryException}
     * with the handler's message if it failed.
     */
    public Mono<ByteBuf> request(String service, Object shardKey, ByteBuf payload) {
        Objects.requireNonNull(service, "service");
        Objects.requireNonNull(shardKey, "shardKey");
        Objects.requireNonNull(payload, "payload");
        return client.request(service, shardKey, payload);
    }

    /**
     * The server {@code shardKey} goes to now: a {@code byte[]} by its octets, anything else by its toString. With a
     * refreshing source this waits for its first answer if there is none yet, so call it off the event loops.
     */
    public InetSocketAddress serverFor(Object shardKey) {
        Objects.requireNonNull(shardKey, "shardKey");
        return client.serverFor(shardKey);
    }

    /** The servers now (a refreshing source's latest answer). */
    public List<InetSocketAddress> servers() {
        return client.servers();
    }

    /** Releases every lease it can and closes the connections. */
    @Override
    public void dispose() {
        client.dispose();
    }

    @Override
    public boolean isDisposed() {
        return client.isDisposed();
    }

    @Override
    public String toString() {
        return "RemoteMemory{servers=" + servers() + "}";
    }

    /**
     * How to reach the servers and what to present to them.
     *
     * <p>Thread safety: not thread-safe; build once.
     */
    public static final class Builder {
        private Supplier<List<InetSocketAddress>> servers;
        private Duration refresh = Duration.ZERO;
        private String credential;
        private UnaryOperator<RdmaClient> rdmaClient = UnaryOperator.identity();
        private Duration firstBackoff = Duration.ofMillis(100);
        private Duration maxBackoff = Duration.ofSeconds(10);
        private int connectAttempts = 5;
        private MemoryCodec codec = MemoryCodec.json();
        private int recordAttempts = 1000;
        private Clock clock = Clock.systemUTC();

        private Builder() {
        }

        /** A fixed list of servers. */
        public Builder servers(List<InetSocketAddress> addresses) {
            Objects.requireNonNull(addresses, "addresses");
            if (addresses.isEmpty()) {
                throw new IllegalArgumentException("give at least one server address");
            }
            List<InetSocketAddress> fixed = List.copyOf(addresses);
            this.servers = () -> fixed;
            this.refresh = Duration.ZERO;
            return this;
        }

        /** A fixed list of servers as {@code host:port} ({@code host} alone: port {@value MemoryServer#DEFAULT_PORT}). */
        public Builder servers(String... hostPorts) {
            List<InetSocketAddress> addresses = new ArrayList<>();
            for (String hostPort : Arrays.asList(hostPorts)) {
                addresses.add(parse(hostPort));
            }
            return servers(addresses);
        }

        /**
         * Servers that {@code source} names, asked again every {@code refresh} (on a thread that may block): a
         * service registry, or the starter's DNS resolver.
         */
        public Builder servers(Supplier<List<InetSocketAddress>> source, Duration refresh) {
            this.servers = Objects.requireNonNull(source, "source");
            Objects.requireNonNull(refresh, "refresh");
            if (refresh.isNegative() || refresh.isZero()) {
                throw new IllegalArgumentException("refresh " + refresh + " must be positive");
            }
            this.refresh = refresh;
            return this;
        }

        /**
         * The pods of a Kubernetes headless Service: every address {@code name} resolves to by DNS, on {@code port},
         * resolved again every {@code refresh} (the JVM caches answers for {@code networkaddress.cache.ttl}).
         */
        public Builder headlessService(String name, int port, Duration refresh) {
            Objects.requireNonNull(name, "name");
            checkPort(port);
            return servers(() -> {
                try {
                    return Arrays.stream(InetAddress.getAllByName(name)).map(a -> new InetSocketAddress(a, port))
                            .toList();
                } catch (UnknownHostException e) {
                    throw new IllegalStateException("cannot resolve the memory servers' name '" + name + "': "
                            + e.getMessage(), e);
                }
            }, refresh);
        }

        /**
         * What to present to the servers' {@link AccessPolicy}: sent in the connection's MPA private data
         * (RFC 5044 §7.1), in the clear unless TLS is configured (see {@link #rdmaClient}). At most 255 UTF-8 octets.
         */
        public Builder credential(String credential) {
            Objects.requireNonNull(credential, "credential");
            if (credential.isEmpty() || credential.getBytes(java.nio.charset.StandardCharsets.UTF_8).length > 255) {
                throw new IllegalArgumentException("a credential must be 1 to 255 UTF-8 octets");
            }
            this.credential = credential;
            return this;
        }

        /**
         * Changes the RDMA client of every connection: TLS ({@code c -> c.tcpConfiguration(t -> t.secure(spec))}),
         * MPA settings, queue pair, metrics. Host, port and private data are set per connection: do not set them.
         */
        public Builder rdmaClient(UnaryOperator<RdmaClient> configure) {
            this.rdmaClient = Objects.requireNonNull(configure, "configure");
            return this;
        }

        /**
         * How a lost connection is made again: up to {@code attempts} connects per operation, waiting from
         * {@code first} doubling to {@code max} between them (Reactor's {@code Retry.backoff}, with jitter).
         */
        public Builder reconnect(int attempts, Duration first, Duration max) {
            if (attempts < 0) {
                throw new IllegalArgumentException("attempts " + attempts + " must not be negative");
            }
            this.connectAttempts = attempts;
            this.firstBackoff = Objects.requireNonNull(first, "first");
            this.maxBackoff = Objects.requireNonNull(max, "max");
            return this;
        }

        /** The codec of {@link RemoteRegion#read(long, Class)} and {@link RemoteRegion#write(long, Object)}. */
        public Builder codec(MemoryCodec codec) {
            this.codec = Objects.requireNonNull(codec, "codec");
            return this;
        }

        /**
         * How many times a versioned-record read or write tries before failing with {@link TornRecordException}
         * (1000 unless set; the first few at once, then backing off up to a millisecond).
         */
        public Builder recordAttempts(int attempts) {
            if (attempts < 1) {
                throw new IllegalArgumentException("record attempts " + attempts + " must be at least 1");
            }
            this.recordAttempts = attempts;
            return this;
        }

        /** The clock leases are timed by (the system's); a fixed one in tests. */
        public Builder clock(Clock clock) {
            this.clock = Objects.requireNonNull(clock, "clock");
            return this;
        }

        /** The client; it connects on first use. */
        public RemoteMemory build() {
            if (servers == null) {
                throw new IllegalStateException("no memory servers: call servers(...) or headlessService(...)");
            }
            return new RemoteMemory(new MemoryClient(new ClientSettings(servers, refresh, credential, rdmaClient,
                    firstBackoff, maxBackoff, connectAttempts, codec, recordAttempts, clock)));
        }

        private static InetSocketAddress parse(String hostPort) {
            Objects.requireNonNull(hostPort, "hostPort");
            int colon = hostPort.lastIndexOf(':');
            if (colon < 0 || hostPort.endsWith("]")) {
                return InetSocketAddress.createUnresolved(hostPort, MemoryServer.DEFAULT_PORT);
            }
            String host = hostPort.substring(0, colon);
            if (host.startsWith("[") && host.endsWith("]")) {
                host = host.substring(1, host.length() - 1);
            }
            int port;
            try {
                port = Integer.parseInt(hostPort.substring(colon + 1));
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("'" + hostPort + "' is not host:port");
            }
            checkPort(port);
            return InetSocketAddress.createUnresolved(host, port);
        }

        private static void checkPort(int port) {
            if (port < 1 || port > 65535) {
                throw new IllegalArgumentException("port " + port + " must be from 1 to 65535");
            }
        }
    }
}
