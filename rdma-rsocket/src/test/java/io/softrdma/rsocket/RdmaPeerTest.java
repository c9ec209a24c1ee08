package io.softrdma.rsocket;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.handler.ssl.ClientAuth;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.util.SelfSignedCertificate;
import io.rsocket.Payload;
import io.rsocket.RSocket;
import io.rsocket.SocketAcceptor;
import io.rsocket.core.RSocketConnector;
import io.rsocket.core.RSocketServer;
import io.rsocket.exceptions.ApplicationErrorException;
import io.rsocket.util.DefaultPayload;
import io.softrdma.mpa.MpaStartupException;
import io.softrdma.reactive.RdmaClient;
import io.softrdma.reactive.RdmaServer;
import java.security.Principal;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLHandshakeException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.reactivestreams.Publisher;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.test.StepVerifier;

/**
 * {@link RdmaPeer}: RSocket's server side reads the client's certificate, proven by TLS below MPA, in every
 * interaction, over {@link RdmaServerTransport} and {@link RdmaClientTransport} with plain rsocket-java.
 */
// SelfSignedCertificate is deprecated in Netty 4.2 in favour of netty-pkitesting, which this build does not have.
@SuppressWarnings("deprecation")
class RdmaPeerTest {
    private static final Duration TIMEOUT = Duration.ofSeconds(20);
    private static SelfSignedCertificate serverCert;
    private static SelfSignedCertificate clientCert;

    @BeforeAll
    static void certificates() throws Exception {
        serverCert = new SelfSignedCertificate("localhost");
        clientCert = new SelfSignedCertificate("orders-client");
    }

    @AfterAll
    static void delete() {
        serverCert.delete();
        clientCert.delete();
    }

    /** Answers every interaction with the name of the client's principal, or "anonymous". */
    private static final class WhoAmI implements RSocket {
        final CompletableFuture<String> fireAndForget = new CompletableFuture<>();

        private static Mono<String> name() {
            return RdmaPeer.principal().map(Principal::getName).defaultIfEmpty("anonymous");
        }

        @Override
        public Mono<Void> fireAndForget(Payload payload) {
            payload.release();
            return name().doOnNext(fireAndForget::complete).then();
        }

        @Override
        public Mono<Payload> requestResponse(Payload payload) {
            payload.release();
            return name().map(DefaultPayload::create);
        }

        @Override
        public Flux<Payload> requestStream(Payload payload) {
            payload.release();
            return Flux.range(1, 3).concatMap(i -> name().map(n -> DefaultPayload.create(i + " " + n)));
        }

        @Override
        public Flux<Payload> requestChannel(Publisher<Payload> payloads) {
            return Flux.from(payloads).concatMap(p -> {
                String data = p.getDataUtf8();
                p.release();
                return name().map(n -> DefaultPayload.create(data + " " + n));
            });
        }
    }

    @Test
    void everyInteractionKnowsTheClientsCertificate() throws Exception {
        WhoAmI responder = new WhoAmI();
        CloseableRdmaServer server = RSocketServer.create(SocketAcceptor.with(responder))
                .interceptors(registry -> registry.forSocketAcceptor(RdmaPeer.interceptor()))
                .bindNow(RdmaServerTransport.create(tlsServer(ClientAuth.REQUIRE)));
        try {
            RSocket client = connect(server, withCertificate());
            StepVerifier.create(client.requestResponse(DefaultPayload.create("?")).map(RdmaPeerTest::text))
                    .expectNext("CN=orders-client").expectComplete().verify(TIMEOUT);
            StepVerifier.create(client.requestStream(DefaultPayload.create("?")).map(RdmaPeerTest::text))
                    .expectNext("1 CN=orders-client", "2 CN=orders-client", "3 CN=orders-client")
                    .expectComplete().verify(TIMEOUT);
            StepVerifier.create(client.requestChannel(Flux.just("a", "b").map(DefaultPayload::create))
                    .map(RdmaPeerTest::text))
                    .expectNext("a CN=orders-client", "b CN=orders-client").expectComplete().verify(TIMEOUT);
            StepVerifier.create(client.fireAndForget(DefaultPayload.create("?"))).expectComplete().verify(TIMEOUT);
            assertThat(responder.fireAndForget.get(20, TimeUnit.SECONDS)).isEqualTo("CN=orders-client");
            close(client);
        } finally {
            server.disposeGracefully(TIMEOUT).block(TIMEOUT);
        }
    }

    @Test
    void theChainTheClientPresentedIsThere() throws Exception {
        CloseableRdmaServer server = RSocketServer.create(SocketAcceptor.forRequestResponse(request -> {
                    request.release();
                    return RdmaPeer.certificates().map(List::size).map(n -> DefaultPayload.create("" + n));
                }))
                .interceptors(registry -> registry.forSocketAcceptor(RdmaPeer.interceptor()))
                .bindNow(RdmaServerTransport.create(tlsServer(ClientAuth.REQUIRE)));
        try {
            RSocket client = connect(server, withCertificate());
            StepVerifier.create(client.requestResponse(DefaultPayload.create("?")).map(RdmaPeerTest::text))
                    .expectNext("1").expectComplete().verify(TIMEOUT);
            close(client);
        } finally {
            server.disposeGracefully(TIMEOUT).block(TIMEOUT);
        }
    }

    @Test
    void aClientWithoutACertificateIsAnonymousWhereOneIsOnlyWanted() throws Exception {
        RdmaServer tlsServer = tlsServer(ClientAuth.OPTIONAL);
        // tag::rsocket-peer-principal[]
        CloseableRdmaServer server = RSocketServer.create(SocketAcceptor.forRequestResponse(request -> {
                    request.release();
                    return RdmaPeer.principal().map(Principal::getName).defaultIfEmpty("anonymous")
                            .map(DefaultPayload::create);
                }))
                .interceptors(registry -> registry.forSocketAcceptor(RdmaPeer.interceptor()))
                .bindNow(RdmaServerTransport.create(tlsServer));
        // end::rsocket-peer-principal[]
        try {
            RSocket anonymous = connect(server, withoutCertificate());
            StepVerifier.create(anonymous.requestResponse(DefaultPayload.create("?")).map(RdmaPeerTest::text))
                    .expectNext("anonymous").expectComplete().verify(TIMEOUT);
            RSocket known = connect(server, withCertificate());
            StepVerifier.create(known.requestResponse(DefaultPayload.create("?")).map(RdmaPeerTest::text))
                    .expectNext("CN=orders-client").expectComplete().verify(TIMEOUT);
            close(anonymous);
            close(known);
        } finally {
            server.disposeGracefully(TIMEOUT).block(TIMEOUT);
        }
    }

    @Test
    void withoutTheInterceptorARequestIsToldWhatToRegister() throws Exception {
        CloseableRdmaServer server = RSocketServer.create(SocketAcceptor.with(new WhoAmI()))
                .bindNow(RdmaServerTransport.create(tlsServer(ClientAuth.REQUIRE)));
        try {
            RSocket client = connect(server, withCertificate());
            StepVerifier.create(client.requestResponse(DefaultPayload.create("?")))
                    .expectErrorSatisfies(e -> assertThat(e).isInstanceOf(ApplicationErrorException.class)
                            .hasMessageContaining("register RdmaPeer.interceptor() with that server"))
                    .verify(TIMEOUT);
            close(client);
        } finally {
            server.disposeGracefully(TIMEOUT).block(TIMEOUT);
        }
    }

    @Test
    void aServerThatNeedsACertificateRefusesAClientWithoutOne() throws Exception {
        CloseableRdmaServer server = RSocketServer.create(SocketAcceptor.with(new WhoAmI()))
                .interceptors(registry -> registry.forSocketAcceptor(RdmaPeer.interceptor()))
                .bindNow(RdmaServerTransport.create(tlsServer(ClientAuth.REQUIRE)));
        try {
            StepVerifier.create(RSocketConnector.connectWith(RdmaClientTransport.create(withoutCertificate()
                    .port(server.address().getPort()))))
                    .expectErrorSatisfies(e -> assertThat(e).isInstanceOf(MpaStartupException.class)
                            .hasMessageContaining("Received fatal alert: bad_certificate")
                            .hasRootCauseInstanceOf(SSLHandshakeException.class))
                    .verify(TIMEOUT);
        } finally {
            server.disposeGracefully(TIMEOUT).block(TIMEOUT);
        }
    }

    private static RdmaServer tlsServer(ClientAuth clientAuth) throws Exception {
        SslContext context = SslContextBuilder.forServer(serverCert.key(), serverCert.cert())
                .trustManager(clientCert.cert()).clientAuth(clientAuth).build();
        return RdmaServer.create().host("127.0.0.1").port(0)
                .tcpConfiguration(t -> t.secure(spec -> spec.sslContext(context)));
    }

    /** The server's certificate names localhost, which TLS checks: connect by that name. */
    private static RdmaClient withCertificate() throws Exception {
        SslContext context = SslContextBuilder.forClient().trustManager(serverCert.cert())
                .keyManager(clientCert.key(), clientCert.cert()).build();
        return RdmaClient.create().host("localhost").tcpConfiguration(t -> t.secure(spec -> spec.sslContext(context)));
    }

    private static RdmaClient withoutCertificate() throws Exception {
        SslContext context = SslContextBuilder.forClient().trustManager(serverCert.cert()).build();
        return RdmaClient.create().host("localhost").tcpConfiguration(t -> t.secure(spec -> spec.sslContext(context)));
    }

    private static RSocket connect(CloseableRdmaServer server, RdmaClient client) {
        return RSocketConnector.connectWith(RdmaClientTransport.create(client.port(server.address().getPort())))
                .block(TIMEOUT);
    }

    private static void close(RSocket client) {
        client.dispose();
        client.onClose().onErrorResume(e -> Mono.empty()).block(TIMEOUT);
    }

    private static String text(Payload payload) {
        try {
            return payload.getDataUtf8();
        } finally {
            payload.release();
        }
    }
}
