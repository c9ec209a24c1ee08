package io.softrdma.spring.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.Unpooled;
import io.netty.handler.ssl.util.SelfSignedCertificate;
import io.softrdma.mpa.MpaStartupException;
import io.softrdma.reactive.RdmaClient;
import io.softrdma.reactive.RdmaSession;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.security.Principal;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLHandshakeException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.ssl.SslAutoConfiguration;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import reactor.core.publisher.Mono;

/**
 * {@code rdma.server.ssl.client-auth}: a server that asks clients for certificates from its SSL bundle's trust
 * material, a client that presents its bundle's key material, and the principal each session then knows.
 */
// SelfSignedCertificate is deprecated in Netty 4.2 in favour of netty-pkitesting, which this build does not have.
@SuppressWarnings("deprecation")
class RdmaTlsClientAuthTests {
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

    @Test
    void needAdmitsAClientWithATrustedCertificateAndTellsWhoItIs() {
        run("need", true, (context, accepted) -> {
            RdmaSession session = connect(context);
            assertThat(echo(session)).isEqualTo("hello");
            RdmaSession serverSide = take(accepted);
            assertThat(serverSide.peerPrincipal()).map(Principal::getName).contains("CN=orders-client");
            assertThat(serverSide.peerCertificates()).containsExactly(client.cert());
            assertThat(session.peerPrincipal()).map(Principal::getName).contains("CN=localhost");
            RdmaAutoConfigurationTests.close(session);
        });
    }

    @Test
    void needRefusesAClientWithoutACertificateInTheHandshake() {
        run("need", false, (context, accepted) -> {
            Throwable refused = connectFailure(context);
            assertThat(refused).isInstanceOf(MpaStartupException.class)
                    .hasMessageContaining("Received fatal alert: bad_certificate")
                    .hasRootCauseInstanceOf(SSLHandshakeException.class);
            assertThat(accepted).as("sessions on the server").isEmpty();
            // The operator sees it as a failed startup (rdma.startup.failures{reason=failed}).
            RdmaActivity.Role server = context.getBean(RdmaActivity.class).server();
            org.awaitility.Awaitility.await().atMost(RdmaAutoConfigurationTests.TIMEOUT)
                    .until(server::startupsFailed, n -> n == 1);
        });
    }

    @Test
    void wantAdmitsAClientWithoutACertificate() {
        run("want", false, (context, accepted) -> {
            RdmaSession session = connect(context);
            assertThat(echo(session)).isEqualTo("hello");
            assertThat(take(accepted).peerPrincipal()).isEmpty();
            RdmaAutoConfigurationTests.close(session);
        });
    }

    @Test
    void wantAdmitsAClientWithACertificateAndTellsWhoItIs() {
        run("want", true, (context, accepted) -> {
            RdmaSession session = connect(context);
            assertThat(echo(session)).isEqualTo("hello");
            assertThat(take(accepted).peerPrincipal()).map(Principal::getName).contains("CN=orders-client");
            RdmaAutoConfigurationTests.close(session);
        });
    }

    @Test
    void noneDoesNotAskAClientThatHasACertificate() {
        run("none", true, (context, accepted) -> {
            RdmaSession session = connect(context);
            assertThat(echo(session)).isEqualTo("hello");
            assertThat(take(accepted).peerPrincipal()).isEmpty();
            RdmaAutoConfigurationTests.close(session);
        });
    }

    @Test
    void askingForClientCertificatesWithoutATrustStoreFailsTheStart() {
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(SslAutoConfiguration.class, RdmaAutoConfiguration.class))
                .withPropertyValues(
                        "spring.ssl.bundle.pem.rdma-server.keystore.certificate=file:" + server.certificate(),
                        "spring.ssl.bundle.pem.rdma-server.keystore.private-key=file:" + server.privateKey(),
                        "rdma.server.port=0", "rdma.server.address=127.0.0.1", "rdma.server.ssl.enabled=true",
                        "rdma.server.ssl.bundle=rdma-server", "rdma.server.ssl.client-auth=want")
                .run(context -> {
                    assertThat(context).hasFailed();
                    assertThat(context.getStartupFailure()).rootCause().hasMessage("rdma.server.ssl.client-auth is"
                            + " want, but the SSL bundle 'rdma-server' has no trust store to verify client"
                            + " certificates against: give it one (spring.ssl.bundle.*.rdma-server.truststore.*)"
                            + " with the certificates, or their authority, of the clients to admit");
                });
    }

    @Test
    void clientAuthIsAServerPropertyInTheMetadata() throws Exception {
        String json;
        try (InputStream in = getClass().getResourceAsStream("/META-INF/spring-configuration-metadata.json")) {
            json = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        int at = json.indexOf("\"name\": \"rdma.server.ssl.client-auth\"");
        assertThat(at).as("rdma.server.ssl.client-auth in the metadata").isPositive();
        String entry = json.substring(json.lastIndexOf('{', at), json.indexOf('}', at));
        assertThat(entry).contains("\"type\": \"io.softrdma.spring.autoconfigure.RdmaProperties$ClientAuth\"",
                "\"defaultValue\": \"none\"", "\"description\": \"Whether clients present certificates");
        assertThat(json).doesNotContain("rdma.client.ssl.client-auth");
    }

    /**
     * A context with the server on {@code client-auth} and a client whose bundle trusts the server and, if
     * {@code clientCertificate}, holds the client's key; the server's sessions go to the list given to the test.
     */
    private static void run(String clientAuth, boolean clientCertificate, ContextTest test) {
        List<RdmaSession> accepted = new java.util.concurrent.CopyOnWriteArrayList<>();
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(SslAutoConfiguration.class, RdmaAutoConfiguration.class))
                .withBean(RdmaSessionHandler.class, () -> session -> {
                    accepted.add(session);
                    session.respond(Mono::just, 4);
                    return session.onDispose();
                })
                .withPropertyValues(properties(clientAuth, clientCertificate))
                .run(context -> test.run(context, accepted));
    }

    private static String[] properties(String clientAuth, boolean clientCertificate) {
        List<String> properties = new ArrayList<>(List.of(
                "spring.ssl.bundle.pem.rdma-server.keystore.certificate=file:" + server.certificate(),
                "spring.ssl.bundle.pem.rdma-server.keystore.private-key=file:" + server.privateKey(),
                "spring.ssl.bundle.pem.rdma-server.truststore.certificate=file:" + client.certificate(),
                "spring.ssl.bundle.pem.rdma-client.truststore.certificate=file:" + server.certificate(),
                "rdma.server.port=0", "rdma.server.address=127.0.0.1",
                "rdma.server.ssl.enabled=true", "rdma.server.ssl.bundle=rdma-server",
                "rdma.server.ssl.client-auth=" + clientAuth,
                "rdma.client.ssl.enabled=true", "rdma.client.ssl.bundle=rdma-client"));
        if (clientCertificate) {
            properties.add("spring.ssl.bundle.pem.rdma-client.keystore.certificate=file:" + client.certificate());
            properties.add("spring.ssl.bundle.pem.rdma-client.keystore.private-key=file:" + client.privateKey());
        }
        return properties.toArray(String[]::new);
    }

    @Configuration(proxyBeanMethods = false)
    static class Greeter {
        // tag::starter-client-certificates-handler[]
        @Bean
        RdmaSessionHandler greeter() {
            return session -> {
                // Known once the session is, and fixed: the subject of the certificate the client presented.
                String who = session.peerPrincipal().map(Principal::getName).orElse("anonymous");
                session.respond(request -> Mono.just(Unpooled.copiedBuffer("hello " + who, StandardCharsets.UTF_8)),
                        16);
                return session.onDispose();
            };
        }
        // end::starter-client-certificates-handler[]
    }

    @Test
    void theDocumentedHandlerGreetsTheClientByItsCertificate() {
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(SslAutoConfiguration.class, RdmaAutoConfiguration.class))
                .withUserConfiguration(Greeter.class)
                .withPropertyValues(properties("need", true))
                .run(context -> {
                    RdmaSession session = connect(context);
                    assertThat(echo(session)).isEqualTo("hello CN=orders-client");
                    RdmaAutoConfigurationTests.close(session);
                });
    }

    /** The body of a test, given the running context and the server's sessions as they come. */
    private interface ContextTest {
        void run(AssertableApplicationContext context, List<RdmaSession> accepted) throws Exception;
    }

    /** The certificate names localhost: TLS verifies the host name, so connect by it. */
    private static RdmaSession connect(AssertableApplicationContext context) {
        return client(context).connect().block(RdmaAutoConfigurationTests.TIMEOUT);
    }

    private static Throwable connectFailure(AssertableApplicationContext context) throws Exception {
        return client(context).connect().toFuture().handle((s, t) -> t).get(20, TimeUnit.SECONDS);
    }

    private static RdmaClient client(AssertableApplicationContext context) {
        int port = context.getBean(RdmaServerLifecycle.class).port();
        return context.getBean(RdmaClient.class).host("localhost").port(port);
    }

    private static RdmaSession take(List<RdmaSession> accepted) {
        org.awaitility.Awaitility.await().atMost(RdmaAutoConfigurationTests.TIMEOUT)
                .until(() -> !accepted.isEmpty());
        return accepted.get(0);
    }

    private static String echo(RdmaSession session) {
        return session.request(Unpooled.copiedBuffer("hello", StandardCharsets.US_ASCII))
                .map(RdmaAutoConfigurationTests::text).block(RdmaAutoConfigurationTests.TIMEOUT);
    }
}
