package io.softrdma.reactive;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.handler.ssl.ClientAuth;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.util.SelfSignedCertificate;
import io.softrdma.mpa.MpaStartupException;
import java.security.Principal;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLHandshakeException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Who is at the other end: {@link RdmaSession#peerCertificates()} and {@link RdmaSession#peerPrincipal()} from the TLS
 * handshake below MPA, with and without client certificates, and a server that requires one.
 */
// SelfSignedCertificate is deprecated in Netty 4.2 in favour of netty-pkitesting, which this build does not have.
@SuppressWarnings("deprecation")
class TlsClientAuthTest {
    private static final Duration TIMEOUT = Duration.ofSeconds(20);
    private static SelfSignedCertificate server;
    private static SelfSignedCertificate client;
    private static SelfSignedCertificate stranger;

    @BeforeAll
    static void certificates() throws Exception {
        server = new SelfSignedCertificate("localhost");
        client = new SelfSignedCertificate("orders-client");
        stranger = new SelfSignedCertificate("orders-client");
    }

    @AfterAll
    static void delete() {
        server.delete();
        client.delete();
        stranger.delete();
    }

    @Test
    void withAClientCertificateEachEndKnowsTheOther() throws Exception {
        SslContext clientContext = SslContextBuilder.forClient().trustManager(server.cert())
                .keyManager(client.key(), client.cert()).build();
        try (Pair pair = new Pair(serverContext(ClientAuth.REQUIRE), clientContext)) {
            assertThat(pair.serverSession.peerCertificates()).containsExactly(client.cert());
            assertThat(pair.serverSession.peerPrincipal()).map(Principal::getName).contains("CN=orders-client");
            assertThat(pair.client.peerCertificates()).containsExactly(server.cert());
            assertThat(pair.client.peerPrincipal()).map(Principal::getName).contains("CN=localhost");
        }
    }

    @Test
    void aServerThatWantsACertificateAcceptsAClientWithoutOne() throws Exception {
        SslContext clientContext = SslContextBuilder.forClient().trustManager(server.cert()).build();
        try (Pair pair = new Pair(serverContext(ClientAuth.OPTIONAL), clientContext)) {
            assertThat(pair.serverSession.peerCertificates()).isEmpty();
            assertThat(pair.serverSession.peerPrincipal()).isEmpty();
            assertThat(pair.client.peerPrincipal()).map(Principal::getName).contains("CN=localhost");
        }
    }

    @Test
    void withoutTlsNobodyIsKnown() throws Exception {
        try (SessionPair pair = new SessionPair(c -> c)) {
            assertThat(pair.client.peerCertificates()).isEmpty();
            assertThat(pair.client.peerPrincipal()).isEmpty();
            assertThat(pair.serverSession.peerPrincipal()).isEmpty();
        }
    }

    @Test
    void aServerThatNeedsACertificateRefusesAClientWithoutOne() throws Exception {
        SslContext clientContext = SslContextBuilder.forClient().trustManager(server.cert()).build();
        // The JDK's TLS 1.3 server answers an empty certificate chain with an alert: bad_certificate on Java 17,
        // certificate_required (RFC 8446 §4.4.2.4) on Java 25. The client, whose side of the handshake had ended,
        // reads it while it waits for the MPA Reply.
        assertRefused(clientContext, "bad_certificate", "certificate_required");
    }

    @Test
    void aServerThatNeedsACertificateRefusesOneItDoesNotTrust() throws Exception {
        SslContext clientContext = SslContextBuilder.forClient().trustManager(server.cert())
                .keyManager(stranger.key(), stranger.cert()).build();
        assertRefused(clientContext, "certificate_unknown");
    }

    /** Refused during MPA startup with one of {@code alerts}, as the JDK words it (Java 25 puts it in front too). */
    private static void assertRefused(SslContext clientContext, String... alerts) throws Exception {
        CompletableFuture<RdmaSession> accepted = new CompletableFuture<>();
        DisposableRdmaServer rdmaServer = bind(serverContext(ClientAuth.REQUIRE), accepted);
        try {
            Throwable refused = connect(rdmaServer, clientContext).handle((s, t) -> t).get(20, TimeUnit.SECONDS);
            assertThat(refused).isInstanceOf(MpaStartupException.class)
                    .hasMessageStartingWith("the connection failed during MPA startup: ")
                    .hasRootCauseInstanceOf(SSLHandshakeException.class);
            Throwable root = refused;
            while (root.getCause() != null) {
                root = root.getCause();
            }
            String rootMessage = root.getMessage();
            assertThat(alerts).as("the alert in %s", rootMessage).anySatisfy(alert -> {
                assertThat(refused.getMessage()).contains("Received fatal alert: " + alert);
                assertThat(rootMessage).isIn("Received fatal alert: " + alert,
                        "(" + alert + ") Received fatal alert: " + alert);
            });
            assertThat(accepted).as("no session on the server").isNotDone();
        } finally {
            rdmaServer.disposeNow(TIMEOUT);
        }
    }

    private static CompletableFuture<RdmaSession> connect(DisposableRdmaServer rdmaServer, SslContext clientContext) {
        return RdmaClient.create().host("localhost").port(rdmaServer.port())
                .tcpConfiguration(t -> t.secure(spec -> spec.sslContext(clientContext))).connect().toFuture();
    }

    private static SslContext serverContext(ClientAuth clientAuth) throws Exception {
        return SslContextBuilder.forServer(server.key(), server.cert()).trustManager(client.cert())
                .clientAuth(clientAuth).build();
    }

    private static DisposableRdmaServer bind(SslContext context, CompletableFuture<RdmaSession> accepted) {
        return RdmaServer.create().host("127.0.0.1").port(0)
                .tcpConfiguration(t -> t.secure(spec -> spec.sslContext(context)))
                .handle(session -> {
                    accepted.complete(session);
                    return session.onDispose();
                }).bindNow();
    }

    /** A TLS server and a client session connected to it over loopback; closing ends both. */
    private static final class Pair implements AutoCloseable {
        final DisposableRdmaServer server;
        final RdmaSession client;
        final RdmaSession serverSession;

        Pair(SslContext serverContext, SslContext clientContext) throws Exception {
            CompletableFuture<RdmaSession> accepted = new CompletableFuture<>();
            server = bind(serverContext, accepted);
            client = connect(server, clientContext).get(20, TimeUnit.SECONDS);
            serverSession = accepted.get(20, TimeUnit.SECONDS);
        }

        @Override
        public void close() {
            client.dispose();
            client.onDispose().block(TIMEOUT);
            serverSession.onDispose().block(TIMEOUT);
            server.disposeNow(TIMEOUT);
        }
    }
}
