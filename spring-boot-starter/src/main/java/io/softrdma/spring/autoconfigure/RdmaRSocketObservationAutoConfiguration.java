package io.softrdma.spring.autoconfigure;

import io.micrometer.observation.ObservationRegistry;
import io.rsocket.micrometer.observation.ObservationRequesterRSocketProxy;
import io.rsocket.micrometer.observation.ObservationResponderRSocketProxy;
import io.rsocket.plugins.RSocketInterceptor;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.rsocket.server.RSocketServerCustomizer;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.messaging.rsocket.RSocketConnectorConfigurer;

/**
 * Micrometer Observation of RSocket, when the application has an {@link ObservationRegistry} bean and
 * rsocket-micrometer is on the class path: RSocket's {@link ObservationRequesterRSocketProxy} on every requester
 * built from Boot's {@code RSocketRequester.Builder} (an {@link RSocketConnectorConfigurer} bean, which Boot's builder
 * applies), and {@link ObservationResponderRSocketProxy} on every RSocket server (an {@link RSocketServerCustomizer}
 * bean, which the RSocket server over RDMA and Boot's TCP server apply). With a tracer, the trace context travels in
 * the requests' metadata. Off with {@code rdma.rsocket.observation.enabled=false}.
 */
@AutoConfiguration(after = RdmaAutoConfiguration.class,
        afterName = "org.springframework.boot.micrometer.observation.autoconfigure.ObservationAutoConfiguration")
@ConditionalOnClass({ObservationRegistry.class, ObservationRequesterRSocketProxy.class})
@ConditionalOnBean(ObservationRegistry.class)
@ConditionalOnProperty(prefix = "rdma.rsocket.observation", name = "enabled", matchIfMissing = true)
@EnableConfigurationProperties(RdmaRSocketProperties.class)
public final class RdmaRSocketObservationAutoConfiguration {

    /** The responders of every RSocket server. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(RSocketServerCustomizer.class)
    static class Server {
        @Bean
        @ConditionalOnMissingBean(name = "rdmaRSocketServerObservation")
        RSocketServerCustomizer rdmaRSocketServerObservation(ObservationRegistry registry) {
            RSocketInterceptor observe = responder -> new ObservationResponderRSocketProxy(responder, registry);
            return server -> server.interceptors(interceptors -> interceptors.forResponder(observe));
        }
    }

    /** The requesters built from Boot's {@code RSocketRequester.Builder}. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(RSocketConnectorConfigurer.class)
    static class Requester {
        @Bean
        @ConditionalOnMissingBean(name = "rdmaRSocketRequesterObservation")
        RSocketConnectorConfigurer rdmaRSocketRequesterObservation(ObservationRegistry registry) {
            RSocketInterceptor observe = requester -> new ObservationRequesterRSocketProxy(requester, registry);
            return connector -> connector.interceptors(interceptors -> interceptors.forRequester(observe));
        }
    }
}
