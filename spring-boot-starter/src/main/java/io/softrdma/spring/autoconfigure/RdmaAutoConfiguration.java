package io.softrdma.spring.autoconfigure;

import io.netty.handler.ssl.ClientAuth;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.softrdma.mpa.MpaSettings;
import io.softrdma.mpa.PeerToPeerMode;
import io.softrdma.reactive.MessagingOptions;
import io.softrdma.reactive.RdmaClient;
import io.softrdma.reactive.RdmaServer;
import io.softrdma.reactive.RdmaSessionConfig;
import io.softrdma.rdmap.RdmapExtensions;
import io.softrdma.verbs.QueuePairConfig;
import java.time.Duration;
import java.util.function.UnaryOperator;
import javax.net.ssl.SSLException;
import java.util.Collection;
import java.util.List;
import org.springframework.beans.factory.NoUniqueBeanDefinitionException;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.ssl.SslBundle;
import org.springframework.boot.ssl.SslBundles;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.Environment;

/**
 * SoftRDMA's reactive client, always (it connects only when asked), and server, when {@code rdma.server.port} is
 * set, started and drained with the application. Both take the {@code rdma.*} properties ({@link RdmaProperties}),
 * then the customizer beans; both report to the {@link RdmaActivity} bean, which metrics and health read. Every
 * bean backs off when the application defines its own.
 */
@AutoConfiguration
@ConditionalOnClass(RdmaServer.class)
@EnableConfigurationProperties(RdmaProperties.class)
public final class RdmaAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean
    RdmaActivity rdmaActivity() {
        return new RdmaActivity();
    }

    @Bean
    @ConditionalOnMissingBean
    RdmaClient rdmaClient(RdmaProperties properties, RdmaActivity activity,
            ObjectProvider<RdmaClientCustomizer> customizers, ObjectProvider<SslBundles> sslBundles) {
        RdmaProperties.Client p = properties.getClient();
        RdmaClient client = RdmaClient.create().host(p.getHost()).port(p.getPort())
                .connectTimeout(p.getConnectTimeout()).busyPoll(p.getBusyPoll())
                .mpa(mpa(p.getMpa())).queuePair(queuePair(p.getQueuePair())).messaging(messaging(p.getMessaging()))
                .metrics(activity.client());
        if (p.getSsl().isEnabled()) {
            SslContext context = sslContext(p.getSsl(), sslBundles, false);
            client = client.tcpConfiguration(t -> t.secure(spec -> spec.sslContext(context)));
        }
        for (RdmaClientCustomizer c : customizers.orderedStream().toList()) {
            client = c.customize(client);
        }
        return client;
    }

    /** The server, when {@code rdma.server.port} is set. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnProperty(prefix = "rdma.server", name = "port")
    static class ServerConfiguration {

        @Bean
        @ConditionalOnMissingBean
        RdmaServer rdmaServer(RdmaProperties properties, RdmaActivity activity,
                ObjectProvider<RdmaServerCustomizer> customizers, ObjectProvider<RdmaSessionHandler> sessionHandlers,
                ObjectProvider<SslBundles> sslBundles) {
            RdmaProperties.Server p = properties.getServer();
            RdmaServer server = serverSettings(p, activity, sslBundles).port(p.getPort());
            if (p.getAddress() != null) {
                server = server.host(p.getAddress().getHostAddress());
            }
            RdmaSessionHandler h = sessionHandler(sessionHandlers);
            if (h != null) {
                server = server.handle(h::handle);
            }
            for (RdmaServerCustomizer c : customizers.orderedStream().toList()) {
                server = c.customize(server);
            }
            return server;
        }

        @Bean
        @ConditionalOnMissingBean
        RdmaServerLifecycle rdmaServerLifecycle(RdmaServer server, Environment environment) {
            Duration drain = Binder.get(environment).bind("spring.lifecycle.timeout-per-shutdown-phase", Duration.class)
                    .orElse(Duration.ofSeconds(30));
            return new RdmaServerLifecycle(server, drain,
                    environment instanceof ConfigurableEnvironment c ? c : null);
        }
    }

    /**
     * A server with the {@code rdma.server.*} settings but its port and address: MPA, queue pair, messaging, session
     * limits, TLS, and the server role's metrics. The RDMA server and the RSocket server over RDMA both start here.
     */
    static RdmaServer serverSettings(RdmaProperties.Server p, RdmaActivity activity,
            ObjectProvider<SslBundles> sslBundles) {
        RdmaServer server = RdmaServer.create().maxPendingStartups(p.getMaxPendingStartups())
                .maxSessions(p.getMaxSessions())
                .receivePool(receivePool(p.getReceivePoolSize())).busyPoll(p.getBusyPoll())
                .mpa(mpa(p.getMpa())).queuePair(queuePair(p.getQueuePair())).messaging(messaging(p.getMessaging()))
                .metrics(activity.server());
        if (p.getSsl().isEnabled()) {
            SslContext context = sslContext(p.getSsl(), sslBundles, true);
            server = server.tcpConfiguration(t -> t.secure(spec -> spec.sslContext(context)));
        }
        return server;
    }

    /** {@code rdma.server.receive-pool-size}: a pool of that many octets, or none for 0. */
    static io.softrdma.reactive.ReceivePool receivePool(org.springframework.util.unit.DataSize size) {
        long octets = size.toBytes();
        if (octets < 0) {
            throw new IllegalArgumentException("rdma.server.receive-pool-size " + size + " must be 0 (no pool) or"
                    + " at least 1KB");
        }
        return octets == 0 ? null : io.softrdma.reactive.ReceivePool.of(octets);
    }

    /**
     * The application's one {@link RdmaSessionHandler} (the {@code @Primary} one if there are several), or null.
     *
     * @throws IllegalStateException naming the beans, when there are several and none is primary
     */
    static RdmaSessionHandler sessionHandler(ObjectProvider<RdmaSessionHandler> handlers) {
        try {
            return handlers.getIfAvailable();
        } catch (NoUniqueBeanDefinitionException e) {
            Collection<String> names = e.getBeanNamesFound() == null ? List.of() : e.getBeanNamesFound();
            throw new IllegalStateException("The SoftRDMA server runs one RdmaSessionHandler per session, but "
                    + names.size() + " beans are RdmaSessionHandlers and none is @Primary: " + String.join(", ", names)
                    + ". Combine them into one handler bean (a session's receive() and respond() each take one"
                    + " subscriber), or mark the one to use @Primary.", e);
        }
    }

    /**
     * The MPA settings of one side: {@link RdmaSessionConfig#DEFAULT_MPA} with the properties set. Peer-to-peer
     * mode left unset is the default's with revision 2, and OFF with revision 1 (which has none).
     */
    static MpaSettings mpa(RdmaProperties.Mpa p) {
        PeerToPeerMode peerToPeer = p.getPeerToPeer() != null ? p.getPeerToPeer()
                : p.getRevision() == MpaSettings.REVISION_1 ? PeerToPeerMode.OFF
                : RdmaSessionConfig.DEFAULT_MPA.peerToPeer();
        return RdmaSessionConfig.DEFAULT_MPA.toBuilder().revision(p.getRevision()).crc(p.isCrc()).markers(p.isMarkers())
                .peerToPeer(peerToPeer).requestTimeout(p.getRequestTimeout()).replyTimeout(p.getReplyTimeout())
                .acceptTimeout(p.getAcceptTimeout()).build();
    }

    static UnaryOperator<QueuePairConfig> queuePair(RdmaProperties.QueuePair p) {
        return c -> c.withSendQueueDepth(p.getSendQueueDepth()).withReceiveQueueDepth(p.getReceiveQueueDepth())
                .withReadDepths(p.getOrd(), p.getIrd())
                .withExtensions(new RdmapExtensions(p.isAtomics(), p.isImmediateData()));
    }

    static MessagingOptions messaging(RdmaProperties.Messaging p) {
        long inline = p.getInlineSize().toBytes();
        if (inline > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("rdma.*.messaging.inline-size " + p.getInlineSize()
                    + " is above 256KB, the largest RFC 8797 can advertise");
        }
        return new MessagingOptions((int) inline, p.getMaxMessageSize().toBytes(), p.isRemoteInvalidation(),
                p.getSendWindow(), p.getSendWindowSize().toBytes(), p.getMaxQueuedOperations());
    }

    /**
     * A Netty TLS context from the Spring Boot SSL bundle {@code ssl.bundle}. Its key material is what this side
     * presents (a client's only when a server asks), its trust material what the peer's certificate is verified
     * against; a server's {@code client-auth} says whether clients are asked for one.
     */
    static SslContext sslContext(RdmaProperties.Ssl ssl, ObjectProvider<SslBundles> bundles, boolean server) {
        String side = server ? "rdma.server.ssl" : "rdma.client.ssl";
        if (ssl.getBundle() == null || ssl.getBundle().isBlank()) {
            throw new IllegalStateException(side + ".enabled is true, but " + side
                    + ".bundle names no SSL bundle: define one under spring.ssl.bundle.* and name it there");
        }
        SslBundles all = bundles.getIfAvailable();
        if (all == null) {
            throw new IllegalStateException(side + ".bundle is '" + ssl.getBundle()
                    + "', but the application has no SSL bundles (spring.ssl.bundle.*)");
        }
        SslBundle bundle = all.getBundle(ssl.getBundle());
        try {
            SslContextBuilder builder = server
                    ? SslContextBuilder.forServer(bundle.getManagers().getKeyManagerFactory())
                    : SslContextBuilder.forClient().keyManager(bundle.getManagers().getKeyManagerFactory());
            builder.trustManager(bundle.getManagers().getTrustManagerFactory());
            if (ssl instanceof RdmaProperties.ServerSsl serverSsl) {
                builder.clientAuth(clientAuth(serverSsl, bundle));
            }
            if (bundle.getOptions().getEnabledProtocols() != null) {
                builder.protocols(bundle.getOptions().getEnabledProtocols());
            }
            if (bundle.getOptions().getCiphers() != null) {
                builder.ciphers(java.util.List.of(bundle.getOptions().getCiphers()));
            }
            return builder.build();
        } catch (SSLException e) {
            throw new IllegalStateException("the SSL bundle '" + ssl.getBundle() + "' does not make a TLS context for "
                    + side + ": " + e.getMessage(), e);
        }
    }

    /**
     * Netty's name for {@code rdma.server.ssl.client-auth}. Asking for client certificates with no trust store in the
     * bundle would verify them against the JDK's public certificate authorities, which is not what anyone means: it
     * fails the start instead.
     */
    static ClientAuth clientAuth(RdmaProperties.ServerSsl ssl, SslBundle bundle) {
        RdmaProperties.ClientAuth clientAuth = ssl.getClientAuth() == null ? RdmaProperties.ClientAuth.NONE
                : ssl.getClientAuth();
        if (clientAuth != RdmaProperties.ClientAuth.NONE && bundle.getStores().getTrustStore() == null) {
            throw new IllegalStateException("rdma.server.ssl.client-auth is " + clientAuth.name().toLowerCase(
                    java.util.Locale.ROOT) + ", but the SSL bundle '" + ssl.getBundle() + "' has no trust store to"
                    + " verify client certificates against: give it one (spring.ssl.bundle.*." + ssl.getBundle()
                    + ".truststore.*) with the certificates, or their authority, of the clients to admit");
        }
        return switch (clientAuth) {
            case NONE -> ClientAuth.NONE;
            case WANT -> ClientAuth.OPTIONAL;
            case NEED -> ClientAuth.REQUIRE;
        };
    }
}
