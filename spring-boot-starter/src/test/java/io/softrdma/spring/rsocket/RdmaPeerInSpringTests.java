package io.softrdma.spring.rsocket;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.handler.ssl.util.SelfSignedCertificate;
import io.softrdma.rsocket.RdmaPeer;
import java.security.Principal;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.ssl.SslAutoConfiguration;
import org.springframework.boot.rsocket.server.RSocketServerCustomizer;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.messaging.handler.annotation.MessageMapping;
import org.springframework.messaging.rsocket.RSocketRequester;
import org.springframework.stereotype.Controller;
import reactor.core.publisher.Mono;

/**
 * The client's certificate in a {@code @MessageMapping} method: {@code rdma.server.ssl.client-auth} on the starter's
 * RSocket server over RDMA, {@link RdmaPeer#interceptor()} registered by an {@code RSocketServerCustomizer}, and
 * {@link RdmaPeer#principal()} read in the controller.
 */
// SelfSignedCertificate is deprecated in Netty 4.2 in favour of netty-pkitesting, which this build does not have.
@SuppressWarnings("deprecation")
class RdmaPeerInSpringTests {
    private static SelfSignedCertificate server;
    private static SelfSignedCertificate client;

    @BeforeAll
    static void certificates() throws Exception {
        server = new SelfSignedCertificate("localhost");
        client = new SelfSignedCertificate("orders-client");
    }

    @AfterAll
    static void delete() {
        server.delete();
        client.delete();
    }

    @Controller
    static class Identity {
        // tag::starter-client-certificates-message-mapping[]
        @MessageMapping("whoami")
        Mono<String> whoami() {
            return RdmaPeer.principal().map(Principal::getName).defaultIfEmpty("anonymous");
        }
        // end::starter-client-certificates-message-mapping[]
    }

    @Configuration(proxyBeanMethods = false)
    static class PeerInRequests {
        // tag::starter-client-certificates-rsocket[]
        @Bean
        RSocketServerCustomizer rdmaPeer() {
            // Every request of a connection over RDMA then carries its peer, for RdmaPeer.principal().
            return server -> server.interceptors(registry -> registry.forSocketAcceptor(RdmaPeer.interceptor()));
        }
        // end::starter-client-certificates-rsocket[]
    }

    private ApplicationContextRunner runner(String clientAuth, boolean clientCertificate) {
        List<String> properties = new ArrayList<>(List.of(
                "spring.ssl.bundle.pem.rdma-server.keystore.certificate=file:" + server.certificate(),
                "spring.ssl.bundle.pem.rdma-server.keystore.private-key=file:" + server.privateKey(),
                "spring.ssl.bundle.pem.rdma-server.truststore.certificate=file:" + client.certificate(),
                "spring.ssl.bundle.pem.rdma-client.truststore.certificate=file:" + server.certificate(),
                "rdma.server.ssl.enabled=true", "rdma.server.ssl.bundle=rdma-server",
                "rdma.server.ssl.client-auth=" + clientAuth,
                "rdma.client.ssl.enabled=true", "rdma.client.ssl.bundle=rdma-client"));
        if (clientCertificate) {
            properties.add("spring.ssl.bundle.pem.rdma-client.keystore.certificate=file:" + client.certificate());
            properties.add("spring.ssl.bundle.pem.rdma-client.keystore.private-key=file:" + client.privateKey());
        }
        return RSocketApps.serving().withConfiguration(AutoConfigurations.of(SslAutoConfiguration.class))
                .withUserConfiguration(PeerInRequests.class).withBean(Identity.class)
                .withPropertyValues(properties.toArray(String[]::new));
    }

    @Test
    void aMessageMappingKnowsTheClientsCertificate() {
        runner("need", true).run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(whoami(context)).isEqualTo("CN=orders-client");
        });
    }

    @Test
    void aClientWithoutACertificateIsAnonymousWhereOneIsOnlyWanted() {
        runner("want", false).run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(whoami(context)).isEqualTo("anonymous");
        });
    }

    @Test
    void withoutTheInterceptorTheRequestIsToldWhatToRegister() {
        RSocketApps.serving().withBean(Identity.class).run(context -> {
            assertThat(context).hasNotFailed();
            assertThatThrownBy(() -> whoami(context, "127.0.0.1"))
                    .isInstanceOf(io.rsocket.exceptions.ApplicationErrorException.class)
                    .hasMessageContaining("register RdmaPeer.interceptor() with that server");
        });
    }

    /** The server's certificate names localhost, which the client checks: connect by that name. */
    private static String whoami(ApplicationContext context) {
        return whoami(context, "localhost");
    }

    private static String whoami(ApplicationContext context, String host) {
        RSocketRequester requester = context.getBean(RdmaRSocketTransports.class).connect(
                context.getBean(RSocketRequester.Builder.class), host,
                context.getBean(RdmaRSocketServer.class).port());
        try {
            return requester.route("whoami").retrieveMono(String.class).block(RSocketApps.TIMEOUT);
        } finally {
            RSocketApps.dispose(requester);
        }
    }
}
