package io.softrdma.spring.memory;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.handler.ssl.util.SelfSignedCertificate;
import io.softrdma.memory.RegionAccess;
import io.softrdma.memory.RegionAccessDeniedException;
import io.softrdma.memory.RemoteMemory;
import io.softrdma.spring.autoconfigure.RdmaAutoConfiguration;
import io.softrdma.spring.autoconfigure.RdmaMemoryAutoConfiguration;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.ssl.SslAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.core.env.MapPropertySource;
import reactor.test.StepVerifier;

/**
 * Grants by TLS principal: the memory server takes {@code rdma.server.ssl.*}, the RemoteMemory bean
 * {@code rdma.client.ssl.*}, and a grant keyed by the client certificate's subject (or its common name) gives that
 * client, and no other, its rights.
 */
// SelfSignedCertificate is deprecated in Netty 4.2 in favour of netty-pkitesting, which this build does not have.
@SuppressWarnings("deprecation")
class RdmaMemoryTlsTests {
    static final Duration TIMEOUT = Duration.ofSeconds(10);
    private static SelfSignedCertificate server;
    private static SelfSignedCertificate orders;

    @BeforeAll
    static void certificates() throws Exception {
        server = new SelfSignedCertificate("localhost");
        orders = new SelfSignedCertificate("orders-client");
    }

    @AfterAll
    static void delete() {
        server.delete();
        orders.delete();
    }

    final ApplicationContextRunner runner = new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(
            SslAutoConfiguration.class, RdmaAutoConfiguration.class, RdmaMemoryAutoConfiguration.class));

    ApplicationContextRunner memoryServer(String clientAuth) {
        return runner.withPropertyValues(
                "spring.ssl.bundle.pem.rdma-server.keystore.certificate=file:" + server.certificate(),
                "spring.ssl.bundle.pem.rdma-server.keystore.private-key=file:" + server.privateKey(),
                "spring.ssl.bundle.pem.rdma-server.truststore.certificate=file:" + orders.certificate(),
                "rdma.server.ssl.enabled=true", "rdma.server.ssl.bundle=rdma-server",
                "rdma.server.ssl.client-auth=" + clientAuth,
                "rdma.memory.server.port=0", "rdma.memory.server.address=127.0.0.1",
                "rdma.memory.regions.orders.size=4KB", "rdma.memory.regions.orders.access=read,write",
                "rdma.memory.regions.audit.size=4KB",
                "rdma.memory.regions.audit.grants.orders-client=read")
                // A key with '=' in it: as a properties file or YAML gives it, not through withPropertyValues's k=v.
                .withInitializer(context -> context.getEnvironment().getPropertySources().addFirst(
                        new MapPropertySource("grants", Map.of("rdma.memory.regions.orders.grants.[CN=orders-client]",
                                "read,write"))));
    }

    String[] client(int port, boolean certificate) {
        // "localhost": the name the server's certificate is for (TLS checks it), on the loopback the server binds.
        List<String> p = new ArrayList<>(List.of("rdma.memory.client.servers=localhost:" + port,
                "spring.ssl.bundle.pem.rdma-client.truststore.certificate=file:" + server.certificate(),
                "rdma.client.ssl.enabled=true", "rdma.client.ssl.bundle=rdma-client"));
        if (certificate) {
            p.add("spring.ssl.bundle.pem.rdma-client.keystore.certificate=file:" + orders.certificate());
            p.add("spring.ssl.bundle.pem.rdma-client.keystore.private-key=file:" + orders.privateKey());
        }
        return p.toArray(String[]::new);
    }

    @Test
    void theCertificatesSubjectOrCommonNameGetsItsGrants() {
        memoryServer("need").run(serverContext -> {
            assertThat(serverContext).hasNotFailed();
            int port = serverContext.getBean(RdmaMemoryServer.class).port();
            runner.withPropertyValues(client(port, true)).run(client -> {
                RemoteMemory memory = client.getBean(RemoteMemory.class);
                assertThat(memory.region("orders").block(TIMEOUT).rights()).as("by the full subject")
                        .containsExactly(RegionAccess.READ, RegionAccess.WRITE);
                assertThat(memory.region("audit").block(TIMEOUT).rights()).as("by the common name")
                        .containsExactly(RegionAccess.READ);
            });
        });
    }

    @Test
    void aClientWithoutACertificateIsRefusedWithTheReason() {
        memoryServer("want").run(serverContext -> {
            int port = serverContext.getBean(RdmaMemoryServer.class).port();
            runner.withPropertyValues(client(port, false)).run(client ->
                    StepVerifier.create(client.getBean(RemoteMemory.class).region("orders"))
                            .expectErrorSatisfies(e -> assertThat(e).isInstanceOf(RegionAccessDeniedException.class)
                                    .hasMessageContaining("orders").hasMessageContaining("anonymous"))
                            .verify(TIMEOUT));
        });
    }
}
