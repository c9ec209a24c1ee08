package io.softrdma.spring.autoconfigure;

import io.rsocket.core.RSocketServer;
import io.rsocket.frame.decoder.PayloadDecoder;
import io.softrdma.reactive.RdmaServer;
import io.softrdma.rsocket.RSocketMessaging;
import io.softrdma.rsocket.RdmaServerTransport;
import io.softrdma.spring.rsocket.RdmaRSocketServer;
import java.time.Duration;
import java.util.List;
import java.util.function.Consumer;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.rsocket.server.RSocketServerCustomizer;
import org.springframework.boot.ssl.SslBundles;
import org.springframework.context.annotation.Bean;
import org.springframework.core.env.Environment;
import org.springframework.core.io.buffer.NettyDataBufferFactory;
import org.springframework.messaging.rsocket.annotation.support.RSocketMessageHandler;

/**
 * The RSocket server over SoftRDMA ({@link RdmaRSocketServer}) when {@code rdma.rsocket.server.port} is set and the
 * application has Boot's {@link RSocketMessageHandler} (spring-boot-rsocket): it serves the same
 * {@code @MessageMapping} controllers as Boot's TCP server, through the handler's {@code responder()}, with every
 * {@link RSocketServerCustomizer} bean applied, as Boot's own server factory does. Its RDMA settings are those of
 * {@code rdma.server.*} (and the {@link RdmaServerCustomizer} beans) on its own port and address. It runs beside
 * Boot's TCP server when {@code spring.rsocket.server.port} is set too.
 */
@AutoConfiguration(after = RdmaAutoConfiguration.class,
        afterName = "org.springframework.boot.rsocket.autoconfigure.RSocketMessagingAutoConfiguration")
@ConditionalOnClass({RdmaServerTransport.class, RSocketServer.class, RSocketMessageHandler.class,
    RSocketServerCustomizer.class})
@ConditionalOnProperty(prefix = "rdma.rsocket.server", name = "port")
@ConditionalOnBean({RSocketMessageHandler.class, RdmaActivity.class})
@EnableConfigurationProperties({RdmaProperties.class, RdmaRSocketProperties.class})
public final class RdmaRSocketServerAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean
    RdmaRSocketServer rdmaRSocketServer(RdmaRSocketProperties rsocket, RdmaProperties rdma, RdmaActivity activity,
            ObjectProvider<SslBundles> sslBundles, ObjectProvider<RdmaServerCustomizer> rdmaCustomizers,
            RSocketMessageHandler messageHandler, ObjectProvider<RSocketServerCustomizer> customizers,
            Environment environment) {
        RdmaRSocketProperties.Server p = rsocket.getServer();
        if (p.getPort() < 0 || p.getPort() > 65535) {
            throw new IllegalArgumentException("rdma.rsocket.server.port must be from 0 (any free port) to 65535, was "
                    + p.getPort());
        }
        RdmaServer server = RdmaAutoConfiguration.serverSettings(rdma.getServer(), activity, sslBundles);
        // At least RSocket's sizes (8 KB Sends, so 4 KB payloads go inline): a customizer may still set others.
        server = server.messaging(RSocketMessaging.of(server.configuration().session().messaging()));
        for (RdmaServerCustomizer c : rdmaCustomizers.orderedStream().toList()) {
            server = c.customize(server);
        }
        // After the customizers: this server's own port and address, whatever they set for the RDMA server.
        server = server.port(p.getPort()).host(p.getAddress() != null ? p.getAddress().getHostAddress() : "0.0.0.0");
        List<RSocketServerCustomizer> all = customizers.orderedStream().toList();
        Consumer<RSocketServer> configurer = rs -> {
            // As Boot's TCP server: with Netty buffers, payloads keep the frames' memory instead of a copy.
            if (messageHandler.getRSocketStrategies().dataBufferFactory() instanceof NettyDataBufferFactory) {
                rs.payloadDecoder(PayloadDecoder.ZERO_COPY);
            }
            all.forEach(c -> c.customize(rs));
        };
        return new RdmaRSocketServer(server, messageHandler.responder(), configurer, shutdownTimeout(p, environment));
    }

    private static Duration shutdownTimeout(RdmaRSocketProperties.Server p, Environment environment) {
        if (p.getShutdownTimeout() != null) {
            return p.getShutdownTimeout();
        }
        return Binder.get(environment).bind("spring.lifecycle.timeout-per-shutdown-phase", Duration.class)
                .orElse(Duration.ofSeconds(30));
    }
}
