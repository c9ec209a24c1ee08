package io.softrdma.spring.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.Unpooled;
import io.netty.handler.ssl.SslHandler;
import io.netty.handler.ssl.util.SelfSignedCertificate;
import io.softrdma.reactive.RdmaSession;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.ssl.SslAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import reactor.core.publisher.Mono;

/** {@code rdma.*.ssl}: MPA over TLS with key and trust material from Spring Boot SSL bundles. */
class RdmaTlsTests {

    @Test
    void serverAndClientTalkOverTlsFromSslBundles() throws Exception {
        SelfSignedCertificate cert = new SelfSignedCertificate("localhost");
        try {
            new ApplicationContextRunner()
                    .withConfiguration(AutoConfigurations.of(SslAutoConfiguration.class, RdmaAutoConfiguration.class))
                    .withBean(RdmaSessionHandler.class, () -> session -> {
                        session.respond(Mono::just, 4);
                        return session.onDispose();
                    })
                    .withPropertyValues(
                            "spring.ssl.bundle.pem.rdma-server.keystore.certificate=file:" + cert.certificate(),
                            "spring.ssl.bundle.pem.rdma-server.keystore.private-key=file:" + cert.privateKey(),
                            "spring.ssl.bundle.pem.rdma-client.truststore.certificate=file:" + cert.certificate(),
                            "rdma.server.port=0", "rdma.server.address=127.0.0.1",
                            "rdma.server.ssl.enabled=true", "rdma.server.ssl.bundle=rdma-server",
                            "rdma.client.ssl.enabled=true", "rdma.client.ssl.bundle=rdma-client")
                    .run(context -> {
                        // The certificate names localhost: TLS verifies the host name, so connect by it.
                        int port = context.getBean(RdmaServerLifecycle.class).port();
                        RdmaSession session = context.getBean(io.softrdma.reactive.RdmaClient.class).host("localhost")
                                .port(port).connect().block(RdmaAutoConfigurationTests.TIMEOUT);
                        assertThat(session.connection().channel().pipeline().get(SslHandler.class)).isNotNull();
                        assertThat(session.request(Unpooled.copiedBuffer("over tls", StandardCharsets.US_ASCII))
                                .map(RdmaAutoConfigurationTests::text).block(RdmaAutoConfigurationTests.TIMEOUT))
                                .isEqualTo("over tls");
                        RdmaAutoConfigurationTests.close(session);
                    });
        } finally {
            cert.delete();
        }
    }

    @Test
    void anUnknownBundleFailsTheStart() {
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(SslAutoConfiguration.class, RdmaAutoConfiguration.class))
                .withPropertyValues("rdma.client.ssl.enabled=true", "rdma.client.ssl.bundle=nope")
                .run(context -> {
                    assertThat(context).hasFailed();
                    assertThat(context.getStartupFailure()).rootCause().hasMessageContaining("nope");
                });
    }
}
