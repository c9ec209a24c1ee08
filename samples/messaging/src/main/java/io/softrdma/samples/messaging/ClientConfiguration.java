package io.softrdma.samples.messaging;

import io.micrometer.core.instrument.MeterRegistry;
import io.softrdma.spring.rsocket.RdmaRSocketTransports;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Profile;
import org.springframework.messaging.rsocket.RSocketRequester;
import org.springframework.util.MimeTypeUtils;

/**
 * The client role: an {@link RSocketRequester} over RDMA, built from Boot's {@link RSocketRequester.Builder} (its
 * codecs: Jackson for JSON) with the starter's {@link RdmaRSocketTransports}, and the {@link MessagingClient} that
 * uses it.
 *
 * <p>Thread safety: configuration, read once by the application context; the requester it makes is thread-safe.
 */
@Configuration(proxyBeanMethods = false)
@Profile("client")
public class ClientConfiguration {

    /**
     * The requester: to one server, or balanced across every address of a headless Service's name. It connects on
     * first use, and again after a loss.
     */
    @Bean(destroyMethod = "dispose")
    RSocketRequester requester(RSocketRequester.Builder builder, RdmaRSocketTransports rdma,
            MessagingProperties properties) {
        MessagingProperties.Client client = properties.client();
        builder.dataMimeType(MimeTypeUtils.APPLICATION_JSON);
        if (client.loadBalanced()) {
            return rdma.loadBalanced(builder, client.host(), client.port());
        }
        return builder.transport(rdma.clientTransport(client.host(), client.port()));
    }

    @Bean(destroyMethod = "close")
    MessagingClient messagingClient(RSocketRequester requester, MessagingProperties properties,
            MeterRegistry registry) {
        return new MessagingClient(requester, properties.client(), registry);
    }
}
