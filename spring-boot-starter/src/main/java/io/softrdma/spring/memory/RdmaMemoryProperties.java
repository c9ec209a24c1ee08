package io.softrdma.spring.memory;

import io.softrdma.memory.AccessPolicy;
import io.softrdma.memory.RegionAccess;
import io.softrdma.memory.RegionSpec;
import java.net.InetAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.NestedConfigurationProperty;
import org.springframework.util.unit.DataSize;

/**
 * Configuration of SoftRDMA's remote memory ({@code rdma.memory.*}): the memory server and its named regions
 * ({@code rdma.memory.server.*}, {@code rdma.memory.regions.<name>.*}), the {@code RemoteMemory} client
 * ({@code rdma.memory.client.*}) and the RDMA cache ({@code rdma.memory.cache.*}). The server and the client take
 * their RDMA settings (MPA, queue pair, messaging, TLS) from {@code rdma.server.*} and {@code rdma.client.*}.
 *
 * <pre>
 * rdma.memory.server.port=7473
 * rdma.memory.regions.prices.size=1MB
 * rdma.memory.regions.prices.access=read,write
 * rdma.memory.regions.prices.grants.pricing-client=read
 * rdma.memory.regions.prices.grants.[CN=pricer,O=Example]=read,write
 * </pre>
 *
 * <p>Why this class is long: it is the whole {@code rdma.memory.*} tree Spring Boot binds (server, regions, client,
 * reconnect, cache) as nested classes with their defaults and Javadoc, which the configuration processor turns into
 * metadata, plus the checks that turn the regions and grants into the server's specs and policy with the property
 * to fix in every message; splitting it would scatter one tree.
 *
 * <p>Thread safety: bound once at startup by Spring Boot, read-only afterwards.
 */
@ConfigurationProperties("rdma.memory")
public class RdmaMemoryProperties {
    @NestedConfigurationProperty
    private final Server server = new Server();

    /**
     * Named regions the memory server serves, by name (1 to 128 letters, digits, '.', '_', '-'): each with size (a
     * multiple of 8 octets, e.g. 64KB), access (the most a peer may do: read, write, atomic; read by default) and
     * grants.PEER (that PEER's rights: read, write, atomic; the peer is a client's credential or a TLS
     * principal). Nothing is granted to a peer no grant names.
     */
    private final Map<String, Region> regions = new LinkedHashMap<>();

    @NestedConfigurationProperty
    private final Client client = new Client();

    @NestedConfigurationProperty
    private final Cache cache = new Cache();

    public Server getServer() {
        return server;
    }

    public Map<String, Region> getRegions() {
        return regions;
    }

    public Client getClient() {
        return client;
    }

    public Cache getCache() {
        return cache;
    }

    /**
     * The regions these properties declare, in the order given.
     *
     * @throws IllegalStateException naming the property, for a region without a size or with a size or name the
     *     server refuses
     */
    public List<RegionSpec> regionSpecs() {
        List<RegionSpec> specs = new ArrayList<>();
        for (Map.Entry<String, RdmaMemoryProperties.Region> e : regions.entrySet()) {
            String prefix = "rdma.memory.regions." + e.getKey();
            RdmaMemoryProperties.Region r = e.getValue();
            if (r.getSize() == null) {
                throw new IllegalStateException(prefix + ".size is not set: give the region's size, e.g. 64KB");
            }
            if (r.getAccess() == null || r.getAccess().isEmpty()) {
                throw new IllegalStateException(prefix + ".access is empty: give read, write and/or atomic");
            }
            try {
                specs.add(new RegionSpec(e.getKey(), r.getSize().toBytes(), r.getAccess()));
            } catch (IllegalArgumentException ex) {
                throw new IllegalStateException(prefix + ": " + ex.getMessage(), ex);
            }
        }
        return specs;
    }

    /**
     * What {@code rdma.memory.regions.<name>.grants} grant: each peer listed its rights on that region, everyone else
     * nothing.
     *
     * @return null when no region grants anything
     * @throws IllegalStateException naming the property, when a grant gives a right its region's access does not
     *     allow (the server would never lend it: a mistake, not a policy)
     */
    public AccessPolicy grantsPolicy() {
        AccessPolicy policy = null;
        for (Map.Entry<String, RdmaMemoryProperties.Region> e : regions.entrySet()) {
            String region = e.getKey();
            Set<RegionAccess> access = e.getValue().getAccess();
            for (Map.Entry<String, Set<RegionAccess>> g : e.getValue().getGrants().entrySet()) {
                String property = "rdma.memory.regions." + region + ".grants." + g.getKey();
                Set<RegionAccess> rights = g.getValue();
                if (rights == null || rights.isEmpty()) {
                    throw new IllegalStateException(property + " grants nothing: give read, write and/or atomic, or"
                            + " remove it");
                }
                EnumSet<RegionAccess> beyond = EnumSet.copyOf(rights);
                beyond.removeAll(access);
                if (!beyond.isEmpty()) {
                    throw new IllegalStateException(property + " grants " + words(beyond) + ", which region '"
                            + region + "' does not allow (its access is " + words(access) + "): add it to"
                            + " rdma.memory.regions." + region + ".access, or remove it from the grant");
                }
                RegionAccess[] all = rights.toArray(RegionAccess[]::new);
                AccessPolicy grant = AccessPolicy.grant(g.getKey(), region, all[0],
                        Arrays.copyOfRange(all, 1, all.length));
                policy = policy == null ? grant : policy.or(grant);
            }
        }
        return policy;
    }

    /**
     * What {@code rdma.memory.cache.caches.<name>.grants} grant on each cache's region {@code cache.<name>}: read
     * (GET, one-sided or from the owner) and write (PUT, DELETE, clear).
     *
     * @return null when no cache grants anything
     * @throws IllegalStateException naming the property, for a grant of nothing or of atomic (a cache has no use for
     *     it)
     */
    public AccessPolicy cacheGrantsPolicy() {
        AccessPolicy policy = null;
        for (Map.Entry<String, OwnedCache> e : cache.getCaches().entrySet()) {
            for (Map.Entry<String, Set<RegionAccess>> g : e.getValue().getGrants().entrySet()) {
                String property = "rdma.memory.cache.caches." + e.getKey() + ".grants." + g.getKey();
                Set<RegionAccess> rights = g.getValue();
                if (rights == null || rights.isEmpty() || rights.contains(RegionAccess.ATOMIC)) {
                    throw new IllegalStateException(property + " must be read (GET) and/or write (PUT, DELETE),"
                            + " was " + (rights == null || rights.isEmpty() ? "nothing" : words(rights)));
                }
                RegionAccess[] all = rights.toArray(RegionAccess[]::new);
                AccessPolicy grant = AccessPolicy.grant(g.getKey(), "cache." + e.getKey(), all[0],
                        Arrays.copyOfRange(all, 1, all.length));
                policy = policy == null ? grant : policy.or(grant);
            }
        }
        return policy;
    }

    private static String words(Set<RegionAccess> rights) {
        return String.join(",", EnumSet.copyOf(rights).stream()
                .map(r -> r.name().toLowerCase(Locale.ROOT)).toList());
    }

    /** The memory server: started with the application when {@code rdma.memory.server.port} is set. */
    public static class Server {
        /** Whether to start the memory server when its port is set. */
        private boolean enabled = true;

        /** Port of the memory server (0 for any free one); the server starts only when this is set. */
        private Integer port;

        /** Address to bind; every interface when unset. */
        private InetAddress address;

        /** How long a lease on a region lasts unless the client renews it (clients renew leases in use). */
        private Duration leaseDuration = Duration.ofSeconds(30);

        public boolean isEnabled() {
            return enabled;
        }

        public void setEnabled(boolean enabled) {
            this.enabled = enabled;
        }

        public Integer getPort() {
            return port;
        }

        public void setPort(Integer port) {
            this.port = port;
        }

        public InetAddress getAddress() {
            return address;
        }

        public void setAddress(InetAddress address) {
            this.address = address;
        }

        public Duration getLeaseDuration() {
            return leaseDuration;
        }

        public void setLeaseDuration(Duration leaseDuration) {
            this.leaseDuration = leaseDuration;
        }
    }

    /** One named region ({@code rdma.memory.regions.<name>.*}). */
    public static class Region {
        /** Octets of the region, a multiple of 8 (64-bit words and records stay aligned). */
        private DataSize size;

        /**
         * The most any peer may do to the region: read (RDMA Read), write (RDMA Write), atomic (RFC 7306
         * Fetch-and-Add and Compare-and-Swap), comma separated.
         */
        private Set<RegionAccess> access = EnumSet.of(RegionAccess.READ);

        /**
         * Rights granted per peer: the key names the peer (a credential its client presents, a TLS certificate's
         * principal, or that principal's common name; in brackets when it has dots or commas), the value the rights
         * (read, write, atomic). A peer gets what this grants intersected with access; nothing when not listed.
         */
        private Map<String, Set<RegionAccess>> grants = new LinkedHashMap<>();

        public DataSize getSize() {
            return size;
        }

        public void setSize(DataSize size) {
            this.size = size;
        }

        public Set<RegionAccess> getAccess() {
            return access;
        }

        public void setAccess(Set<RegionAccess> access) {
            this.access = access;
        }

        public Map<String, Set<RegionAccess>> getGrants() {
            return grants;
        }

        public void setGrants(Map<String, Set<RegionAccess>> grants) {
            this.grants = grants;
        }
    }

    /**
     * The {@code RemoteMemory} client: a bean when {@code rdma.memory.client.servers} or
     * {@code rdma.memory.client.service} is set.
     */
    public static class Client {
        /** Whether to make the RemoteMemory bean when servers or a service are given. */
        private boolean enabled = true;

        /** Memory servers as host:port (port 7473 when left out); keys are spread over them by consistent hashing. */
        private List<String> servers = new ArrayList<>();

        /**
         * A DNS name whose addresses are the memory servers (a Kubernetes headless Service), resolved again every
         * refresh-interval; instead of servers.
         */
        private String service;

        /** Port of the memory servers found through service. */
        private int port = 7473;

        /** How often the service name is resolved again, to follow servers that come and go. */
        private Duration refreshInterval = Duration.ofSeconds(10);

        /**
         * What the client presents to the servers' access policy, in each connection's MPA private data (RFC 5044
         * section 7.1): in the clear unless rdma.client.ssl is enabled. 1 to 255 UTF-8 octets.
         */
        private String credential;

        @NestedConfigurationProperty
        private final Reconnect reconnect = new Reconnect();

        public boolean isEnabled() {
            return enabled;
        }

        public void setEnabled(boolean enabled) {
            this.enabled = enabled;
        }

        public List<String> getServers() {
            return servers;
        }

        public void setServers(List<String> servers) {
            this.servers = servers;
        }

        public String getService() {
            return service;
        }

        public void setService(String service) {
            this.service = service;
        }

        public int getPort() {
            return port;
        }

        public void setPort(int port) {
            this.port = port;
        }

        public Duration getRefreshInterval() {
            return refreshInterval;
        }

        public void setRefreshInterval(Duration refreshInterval) {
            this.refreshInterval = refreshInterval;
        }

        public String getCredential() {
            return credential;
        }

        public void setCredential(String credential) {
            this.credential = credential;
        }

        public Reconnect getReconnect() {
            return reconnect;
        }
    }

    /** How a lost connection to a memory server is made again (Reactor's backoff, with jitter). */
    public static class Reconnect {
        /** Connection attempts per operation before it fails. */
        private int maxAttempts = 5;

        /** Wait before the first new attempt; doubled after each. */
        private Duration minBackoff = Duration.ofMillis(100);

        /** The longest wait between attempts. */
        private Duration maxBackoff = Duration.ofSeconds(10);

        public int getMaxAttempts() {
            return maxAttempts;
        }

        public void setMaxAttempts(int maxAttempts) {
            this.maxAttempts = maxAttempts;
        }

        public Duration getMinBackoff() {
            return minBackoff;
        }

        public void setMinBackoff(Duration minBackoff) {
            this.minBackoff = minBackoff;
        }

        public Duration getMaxBackoff() {
            return maxBackoff;
        }

        public void setMaxBackoff(Duration maxBackoff) {
            this.maxBackoff = maxBackoff;
        }
    }

    /**
     * The RDMA cache: the caches the memory server owns ({@code caches.<name>.*}), and the Spring CacheManager over
     * RemoteMemory on the client.
     */
    public static class Cache {
        /** Whether to make the RdmaCacheManager bean when there is a RemoteMemory bean. */
        private boolean enabled = true;

        /**
         * The caches this application's memory server owns, by name (the name @Cacheable gives): each in a region
         * cache.NAME of size octets (8MB by default), entries living default-ttl unless put with another (none: until
         * evicted); grants.PEER gives a peer read (GET) and/or write (PUT, DELETE) on it, as for regions.
         */
        private final Map<String, OwnedCache> caches = new LinkedHashMap<>();

        /** The caches the client's manager serves, made at startup; empty: any name @Cacheable gives, on first use. */
        private List<String> cacheNames = new ArrayList<>();

        /**
         * How long the client's entries live, per cache name (zero: until evicted); a cache not listed takes its
         * owner's default-ttl.
         */
        private Map<String, Duration> timeToLive = new LinkedHashMap<>();

        /** How long a @Cacheable call may wait for the cache before it fails. */
        private Duration timeout = Duration.ofSeconds(5);

        /** Whether a method's null result is cached (as Spring's NullValue). */
        private boolean cacheNullValues = true;

        public boolean isEnabled() {
            return enabled;
        }

        public void setEnabled(boolean enabled) {
            this.enabled = enabled;
        }

        public List<String> getCacheNames() {
            return cacheNames;
        }

        public void setCacheNames(List<String> cacheNames) {
            this.cacheNames = cacheNames;
        }

        public Map<String, Duration> getTimeToLive() {
            return timeToLive;
        }

        public void setTimeToLive(Map<String, Duration> timeToLive) {
            this.timeToLive = timeToLive;
        }

        public Duration getTimeout() {
            return timeout;
        }

        public void setTimeout(Duration timeout) {
            this.timeout = timeout;
        }

        public boolean isCacheNullValues() {
            return cacheNullValues;
        }

        public void setCacheNullValues(boolean cacheNullValues) {
            this.cacheNullValues = cacheNullValues;
        }

        public Map<String, OwnedCache> getCaches() {
            return caches;
        }
    }

    /** A cache the memory server owns ({@code rdma.memory.cache.caches.<name>.*}). */
    public static class OwnedCache {
        /** Octets of the cache's table: buckets, entries and values. */
        private DataSize size = DataSize.ofMegabytes(8);

        /** How long an entry lives unless put with its own; none: until evicted. */
        private Duration defaultTtl;

        /** Rights granted per peer on the cache: read (GET) and/or write (PUT, DELETE, clear). */
        private Map<String, Set<RegionAccess>> grants = new LinkedHashMap<>();

        public DataSize getSize() {
            return size;
        }

        public void setSize(DataSize size) {
            this.size = size;
        }

        public Duration getDefaultTtl() {
            return defaultTtl;
        }

        public void setDefaultTtl(Duration defaultTtl) {
            this.defaultTtl = defaultTtl;
        }

        public Map<String, Set<RegionAccess>> getGrants() {
            return grants;
        }

        public void setGrants(Map<String, Set<RegionAccess>> grants) {
            this.grants = grants;
        }
    }
}
