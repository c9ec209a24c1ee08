package io.softrdma.spring.autoconfigure;

import io.softrdma.reactive.RdmaClient;
import io.softrdma.rsocket.RSocketMessaging;
import io.softrdma.rsocket.RdmaClientTransport;
import io.softrdma.spring.rsocket.DnsResolver;
import io.softrdma.spring.rsocket.RdmaRSocketTransports;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.messaging.rsocket.RSocketRequester;
import reactor.util.retry.Retry;

/**
 * {@link RdmaRSocketTransports}, RSocket client transports and requesters over SoftRDMA with the {@code RdmaClient}
 * bean's settings, when rdma-rsocket and spring-messaging are on the class path; and the {@link DnsResolver} it
 * resolves service names with.
 */
@AutoConfiguration(after = RdmaAutoConfiguration.class)
@ConditionalOnClass({RdmaClientTransport.class, RSocketRequester.class})
@ConditionalOnBean({RdmaClient.class, RdmaActivity.class})
@EnableConfigurationProperties(RdmaRSocketProperties.class)
public final class RdmaRSocketClientAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean
    DnsResolver rdmaDnsResolver() {
        return DnsResolver.system();
    }

    @Bean
    @ConditionalOnMissingBean
    RdmaRSocketTransports rdmaRSocketTransports(RdmaClient client, RdmaActivity activity, DnsResolver resolver,
            RdmaRSocketProperties properties) {
        RdmaRSocketProperties.Client p = properties.getClient();
        // At least RSocket's sizes (8 KB Sends, so 4 KB payloads go inline), as the RSocket server over RDMA uses.
        RdmaClient sized = client.messaging(RSocketMessaging.of(client.configuration().session().messaging()));
        return new RdmaRSocketTransports(sized, activity, resolver, p.getRefreshInterval(),
                reconnect(p.getReconnect()));
    }

    /** Exponential backoff with jitter, as RSocket's examples do; null when disabled. */
    static Retry reconnect(RdmaRSocketProperties.Reconnect p) {
        if (!p.isEnabled()) {
            return null;
        }
        if (p.getMaxAttempts() < 1) {
            throw new IllegalArgumentException("rdma.rsocket.client.reconnect.max-attempts must be at least 1, was "
                    + p.getMaxAttempts() + " (set rdma.rsocket.client.reconnect.enabled=false for none)");
        }
        if (p.getMinBackoff().isNegative() || p.getMinBackoff().isZero()
                || p.getMaxBackoff().compareTo(p.getMinBackoff()) < 0) {
            throw new IllegalArgumentException("rdma.rsocket.client.reconnect needs 0 < min-backoff <= max-backoff,"
                    + " was min-backoff " + p.getMinBackoff() + " and max-backoff " + p.getMaxBackoff());
        }
        return Retry.backoff(p.getMaxAttempts(), p.getMinBackoff()).maxBackoff(p.getMaxBackoff());
    }
}
