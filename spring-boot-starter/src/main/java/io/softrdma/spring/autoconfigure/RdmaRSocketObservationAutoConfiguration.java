package io.softrdma.spring.autoconfigure;

import io.micrometer.observation.ObservationRegistry;
import io.micrometer.tracing.Tracer;
import io.micrometer.tracing.propagation.Propagator;
import io.rsocket.micrometer.observation.ByteBufGetter;
import io.rsocket.micrometer.observation.ByteBufSetter;
import io.rsocket.micrometer.observation.ObservationRequesterRSocketProxy;
import io.rsocket.micrometer.observation.ObservationResponderRSocketProxy;
import io.rsocket.micrometer.observation.RSocketRequesterTracingObservationHandler;
import io.rsocket.micrometer.observation.RSocketResponderTracingObservationHandler;
import io.rsocket.plugins.RSocketInterceptor;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.micrometer.observation.autoconfigure.ObservationAutoConfiguration;
import org.springframework.boot.rsocket.server.RSocketServerCustomizer;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import org.springframework.messaging.rsocket.RSocketConnectorConfigurer;

/**
 * Micrometer Observation of RSocket, when the application has an {@link ObservationRegistry} bean configured by
 * Boot (spring-boot-micrometer-observation) and rsocket-micrometer is on the class path:
 * <ul>
 *   <li>RSocket's {@link ObservationRequesterRSocketProxy} on every requester built from Boot's
 *       {@code RSocketRequester.Builder} (an {@link RSocketConnectorConfigurer} bean, which Boot's builder
 *       applies);</li>
 *   <li>{@link ObservationResponderRSocketProxy} on every RSocket server (an {@link RSocketServerCustomizer} bean,
 *       which the RSocket server over RDMA and Boot's TCP server apply);</li>
 *   <li>RSocket's tracing observation handlers, which Boot adds to the registry: with a micrometer-tracing
 *       {@link Tracer} and {@link Propagator}, they put the trace context in each request's metadata and continue it
 *       on the responder; without, they run with no-op ones, since rsocket-micrometer 1.1.5's responder proxy
 *       hands the responder the payload its handler rebuilt (null without one).</li>
 * </ul>
 * Off with {@code rdma.rsocket.observation.enabled=false}. The handlers are ordered first, so that with Boot's
 * tracing they, not the generic tracing handler, take RSocket's observations; do not register them yourself.
 */
@AutoConfiguration(after = {RdmaAutoConfiguration.class, ObservationAutoConfiguration.class})
@ConditionalOnClass({ObservationRegistry.class, ObservationRequesterRSocketProxy.class, Tracer.class,
    ObservationAutoConfiguration.class})
@ConditionalOnBean(ObservationRegistry.class)
@ConditionalOnProperty(prefix = "rdma.rsocket.observation", name = "enabled", matchIfMissing = true)
@EnableConfigurationProperties(RdmaRSocketProperties.class)
public final class RdmaRSocketObservationAutoConfiguration {

    /** Before Boot's tracing handlers (its default one is at {@code LOWEST_PRECEDENCE - 1000}). */
    static final int HANDLER_ORDER = Ordered.HIGHEST_PRECEDENCE + 1000;

    @Bean
    @Order(HANDLER_ORDER)
    @ConditionalOnMissingBean
    RSocketRequesterTracingObservationHandler rdmaRSocketRequesterTracingHandler(ObjectProvider<Tracer> tracer,
            ObjectProvider<Propagator> propagator) {
        return new RSocketRequesterTracingObservationHandler(tracer.getIfUnique(() -> Tracer.NOOP),
                propagator.getIfUnique(() -> Propagator.NOOP), new ByteBufSetter(), false);
    }

    @Bean
    @Order(HANDLER_ORDER)
    @ConditionalOnMissingBean
    RSocketResponderTracingObservationHandler rdmaRSocketResponderTracingHandler(ObjectProvider<Tracer> tracer,
            ObjectProvider<Propagator> propagator) {
        return new RSocketResponderTracingObservationHandler(tracer.getIfUnique(() -> Tracer.NOOP),
                propagator.getIfUnique(() -> Propagator.NOOP), new ByteBufGetter(), false);
    }

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
