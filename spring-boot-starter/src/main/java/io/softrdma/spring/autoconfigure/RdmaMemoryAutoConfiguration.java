package io.softrdma.spring.autoconfigure;

import io.softrdma.memory.AccessPolicy;
import io.softrdma.memory.MemoryServer;
import io.softrdma.memory.RegionSpec;
import io.softrdma.memory.RemoteMemory;
import io.softrdma.memory.cache.CacheOwner;
import io.softrdma.reactive.RdmaClient;
import io.softrdma.reactive.RdmaServer;
import io.softrdma.spring.memory.MemoryServerCustomizer;
import io.softrdma.spring.memory.OwnedCaches;
import io.softrdma.spring.memory.RdmaMemoryProperties;
import io.softrdma.spring.memory.RdmaMemoryServer;
import io.softrdma.spring.memory.RemoteMemoryCustomizer;
import io.softrdma.spring.rsocket.DnsResolver;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.List;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionOutcome;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.autoconfigure.condition.SpringBootCondition;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.ssl.SslBundles;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.Environment;
import org.springframework.core.type.AnnotatedTypeMetadata;

/**
 * SoftRDMA's remote memory (rdma-memory) in Spring Boot, from the {@code rdma.memory.*} properties
 * ({@link RdmaMemoryProperties}):
 *
 * <ul>
 *   <li>the memory server, when {@code rdma.memory.server.port} is set: the regions of
 *       {@code rdma.memory.regions.<name>.*}, the access policy of their {@code grants} or'd with the application's
 *       {@link AccessPolicy} beans (nothing is granted otherwise), the {@link MemoryServerCustomizer} beans, and the
 *       RDMA settings of {@code rdma.server.*} (MPA, queue pair, TLS, metrics) on its own port; bound and drained with
 *       the application by {@link RdmaMemoryServer}, which the {@code rdma} health reports as {@code memory};</li>
 *   <li>a {@link RemoteMemory} bean, when {@code rdma.memory.client.servers} or {@code rdma.memory.client.service}
 *       is set: connecting with the {@link RdmaClient} bean's settings ({@code rdma.client.*}), presenting
 *       {@code rdma.memory.client.credential}, finding the servers of a headless Service through the
 *       {@link DnsResolver} bean (the JVM's resolver unless the application has one);</li>
 *   <li>with it, {@link RdmaMemoryCacheAutoConfiguration}'s cache manager.</li>
 * </ul>
 *
 * Every bean backs off when the application defines its own.
 */
@AutoConfiguration(after = RdmaAutoConfiguration.class, before = RdmaHealthAutoConfiguration.class)
@ConditionalOnClass({MemoryServer.class, RdmaServer.class})
@ConditionalOnBean(RdmaActivity.class)
@EnableConfigurationProperties({RdmaProperties.class, RdmaMemoryProperties.class})
public final class RdmaMemoryAutoConfiguration {

    /** The memory server, when {@code rdma.memory.server.port} is set (and {@code enabled} is not false). */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnProperty(prefix = "rdma.memory.server", name = "port")
    @ConditionalOnBooleanProperty(name = "rdma.memory.server.enabled", matchIfMissing = true)
    static class ServerConfiguration {

        @Bean
        @ConditionalOnMissingBean
        MemoryServer rdmaMemoryServerDescription(RdmaMemoryProperties memory, RdmaProperties rdma,
                RdmaActivity activity, ObjectProvider<SslBundles> sslBundles,
                ObjectProvider<RdmaServerCustomizer> rdmaCustomizers, ObjectProvider<AccessPolicy> policies,
                ObjectProvider<MemoryServerCustomizer> customizers, OwnedCaches caches) {
            RdmaMemoryProperties.Server p = memory.getServer();
            int port = p.getPort();
            if (port < 0 || port > 65535) {
                throw new IllegalArgumentException("rdma.memory.server.port must be from 0 (any free port) to 65535,"
                        + " was " + port);
            }
            String host = p.getAddress() != null ? p.getAddress().getHostAddress() : "0.0.0.0";
            List<RdmaServerCustomizer> rdmaAll = rdmaCustomizers.orderedStream().toList();
            MemoryServer server = MemoryServer.create().leaseDuration(p.getLeaseDuration())
                    .rdmaServer(ignored -> {
                        RdmaServer s = RdmaAutoConfiguration.serverSettings(rdma.getServer(), activity, sslBundles);
                        for (RdmaServerCustomizer c : rdmaAll) {
                            s = c.customize(s);
                        }
                        // After the customizers: this server's own port and address, whatever they set.
                        return s.port(port).host(host);
                    });
            for (RegionSpec spec : memory.regionSpecs()) {
                server = server.region(spec);
            }
            AccessPolicy policy = policy(memory, policies);
            if (policy != null) {
                server = server.policy(policy);
            }
            for (CacheOwner owner : caches.owners()) {
                server = owner.declareOn(server);
            }
            for (MemoryServerCustomizer c : customizers.orderedStream().toList()) {
                server = c.customize(server);
            }
            return server;
        }

        @Bean
        @ConditionalOnMissingBean
        OwnedCaches rdmaOwnedCaches(RdmaMemoryProperties memory, ObjectProvider<AccessPolicy> policies) {
            return new OwnedCaches(cacheOwners(memory, policy(memory, policies)));
        }

        @Bean
        @ConditionalOnMissingBean
        RdmaMemoryServer rdmaMemoryServer(MemoryServer server, OwnedCaches caches, Environment environment) {
            Duration drain = Binder.get(environment).bind("spring.lifecycle.timeout-per-shutdown-phase", Duration.class)
                    .orElse(Duration.ofSeconds(30));
            // Only the owners whose region the server declares: an application's own MemoryServer bean may not.
            List<CacheOwner> owners = caches.owners().stream().filter(o -> server.regions().stream()
                    .anyMatch(r -> r.name().equals(CacheOwner.regionName(o.name())))).toList();
            return new RdmaMemoryServer(server, owners, drain,
                    environment instanceof ConfigurableEnvironment c ? c : null);
        }

        /** The grants of the properties (regions, then caches), or'd with the AccessPolicy beans; null if none. */
        private static AccessPolicy policy(RdmaMemoryProperties memory, ObjectProvider<AccessPolicy> beans) {
            AccessPolicy policy = memory.grantsPolicy();
            AccessPolicy caches = memory.cacheGrantsPolicy();
            if (caches != null) {
                policy = policy == null ? caches : policy.or(caches);
            }
            for (AccessPolicy bean : beans.orderedStream().toList()) {
                policy = policy == null ? bean : policy.or(bean);
            }
            return policy;
        }

        /**
         * The owners of {@code rdma.memory.cache.caches.*}, unless {@code rdma.memory.cache.enabled} is false; each
         * asks {@code policy} (nothing granted when null) who may change it.
         */
        private static List<CacheOwner> cacheOwners(RdmaMemoryProperties memory, AccessPolicy policy) {
            if (!memory.getCache().isEnabled()) {
                return List.of();
            }
            List<CacheOwner> owners = new java.util.ArrayList<>();
            for (var e : memory.getCache().getCaches().entrySet()) {
                String prefix = "rdma.memory.cache.caches." + e.getKey();
                RdmaMemoryProperties.OwnedCache c = e.getValue();
                try {
                    CacheOwner.Builder b = CacheOwner.builder(e.getKey()).size(c.getSize().toBytes())
                            .policy(policy == null ? AccessPolicy.denyAll() : policy);
                    if (c.getDefaultTtl() != null) {
                        b.defaultTtl(c.getDefaultTtl());
                    }
                    owners.add(b.build());
                } catch (IllegalArgumentException ex) {
                    throw new IllegalStateException(prefix + ": " + ex.getMessage(), ex);
                }
            }
            return owners;
        }
    }

    /** The {@link RemoteMemory} bean, when servers or a service name are given (and {@code enabled} is not false). */
    @Configuration(proxyBeanMethods = false)
    @Conditional(OnMemoryServersCondition.class)
    @ConditionalOnBooleanProperty(name = "rdma.memory.client.enabled", matchIfMissing = true)
    static class ClientConfiguration {

        @Bean(destroyMethod = "dispose")
        @ConditionalOnMissingBean
        RemoteMemory remoteMemory(RdmaMemoryProperties memory, RdmaClient rdmaClient,
                ObjectProvider<DnsResolver> resolvers, ObjectProvider<RemoteMemoryCustomizer> customizers) {
            RdmaMemoryProperties.Client p = memory.getClient();
            RemoteMemory.Builder builder = RemoteMemory.builder();
            boolean service = p.getService() != null && !p.getService().isBlank();
            if (service && !p.getServers().isEmpty()) {
                throw new IllegalStateException("rdma.memory.client.servers and rdma.memory.client.service are both"
                        + " set: give the servers' addresses, or the DNS name that lists them, not both");
            }
            if (service) {
                String name = p.getService();
                int port = p.getPort();
                DnsResolver resolver = resolvers.getIfAvailable(DnsResolver::system);
                builder.servers(() -> resolve(resolver, name, port), p.getRefreshInterval());
            } else {
                builder.servers(p.getServers().toArray(String[]::new));
            }
            if (p.getCredential() != null && !p.getCredential().isEmpty()) {
                builder.credential(p.getCredential());
            }
            RdmaMemoryProperties.Reconnect r = p.getReconnect();
            builder.reconnect(r.getMaxAttempts(), r.getMinBackoff(), r.getMaxBackoff());
            // The RdmaClient bean's settings (rdma.client.*, its customizers, TLS, metrics); the memory client sets
            // host, port and private data for each server it connects to.
            builder.rdmaClient(ignored -> rdmaClient);
            customizers.orderedStream().forEach(c -> c.customize(builder));
            return builder.build();
        }

        private static List<InetSocketAddress> resolve(DnsResolver resolver, String name, int port) {
            try {
                List<InetAddress> addresses = resolver.resolve(name);
                if (addresses.isEmpty()) {
                    throw new IllegalStateException("rdma.memory.client.service '" + name + "' resolves to no"
                            + " address: are the memory servers' pods ready?");
                }
                return addresses.stream().map(a -> new InetSocketAddress(a, port)).toList();
            } catch (UnknownHostException e) {
                throw new IllegalStateException("rdma.memory.client.service '" + name + "' does not resolve: "
                        + e.getMessage(), e);
            }
        }
    }

    /** Matches when {@code rdma.memory.client.servers} (a list, in any of Boot's forms) or {@code service} is set. */
    static final class OnMemoryServersCondition extends SpringBootCondition {
        @Override
        public ConditionOutcome getMatchOutcome(ConditionContext context, AnnotatedTypeMetadata metadata) {
            Binder binder = Binder.get(context.getEnvironment());
            boolean servers = binder.bind("rdma.memory.client.servers", Bindable.listOf(String.class))
                    .map(l -> !l.isEmpty()).orElse(false);
            String service = context.getEnvironment().getProperty("rdma.memory.client.service");
            if (servers) {
                return ConditionOutcome.match("rdma.memory.client.servers is set");
            }
            if (service != null && !service.isBlank()) {
                return ConditionOutcome.match("rdma.memory.client.service is set");
            }
            return ConditionOutcome.noMatch("neither rdma.memory.client.servers nor rdma.memory.client.service is"
                    + " set");
        }
    }
}
