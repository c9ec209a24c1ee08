package io.softrdma.rsocket;

import io.rsocket.Payload;
import io.rsocket.RSocket;
import io.rsocket.SocketAcceptor;
import io.rsocket.plugins.SocketAcceptorInterceptor;
import io.rsocket.util.RSocketProxy;
import io.softrdma.reactive.RdmaSession;
import java.security.Principal;
import java.security.cert.X509Certificate;
import java.util.List;
import java.util.Optional;
import org.reactivestreams.Publisher;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.util.context.Context;
import reactor.util.context.ContextView;

/**
 * Who is at the other end of an RSocket connection over SoftRDMA, as the TLS handshake below MPA proved it: the
 * subject and certificates of the client's certificate ({@link RdmaSession#peerPrincipal()}), read from the Reactor
 * Context of a server's responder — an {@code RSocket} handler, or a Spring {@code @MessageMapping} or
 * {@code @ConnectMapping} method that returns a {@code Mono} or {@code Flux}.
 *
 * <p>The server's {@link RdmaServerTransport} puts the connection's peer in the Context of RSocket's acceptor; the
 * {@link #interceptor()}, registered with the server, carries it on into every request the connection's responder
 * handles:
 *
 * <pre>{@code
 * CloseableRdmaServer server = RSocketServer.create(SocketAcceptor.forRequestResponse(request -> {
 *             request.release();
 *             return RdmaPeer.principal().map(Principal::getName).defaultIfEmpty("anonymous")
 *                     .map(DefaultPayload::create);
 *         }))
 *         .interceptors(registry -> registry.forSocketAcceptor(RdmaPeer.interceptor()))
 *         .bindNow(RdmaServerTransport.create(tlsServer));
 * }</pre>
 *
 * <p>Known from the connection's SETUP on, and fixed for its life; a connection resumed (RSocket RESUME) over a new
 * RDMA connection keeps the peer of the one that sent the SETUP, as it keeps the rest of its session.
 *
 * <p>Thread safety: stateless; what it reads is immutable, from any thread.
 */
public final class RdmaPeer {
    /** The Reactor Context key of the {@link Identity} of the connection a request came on. */
    private static final String KEY = RdmaPeer.class.getName();

    private RdmaPeer() {
    }

    /**
     * The subject of the certificate the client presented (an {@link javax.security.auth.x500.X500Principal}, such
     * as {@code CN=orders-client,O=Example}); empty when it presented none (no TLS, or TLS with client
     * authentication {@code none}, or {@code want} and the client had no certificate).
     *
     * @return a Mono that reads the Context it is subscribed in; it fails with an {@link IllegalStateException} that
     *         says what to do when that Context has no RSocket connection over SoftRDMA (a request that came over
     *         another transport, or a server without the {@link #interceptor()})
     */
    public static Mono<Principal> principal() {
        return identity().flatMap(i -> Mono.justOrEmpty(i.principal()));
    }

    /**
     * The X.509 chain the client presented, its own certificate first, as {@link #principal()} reads it; empty
     * when it presented none.
     *
     * @return a Mono of a non-empty immutable list, empty, or failing as {@link #principal()} does
     */
    public static Mono<List<X509Certificate>> certificates() {
        return identity().flatMap(i -> i.certificates().isEmpty() ? Mono.empty() : Mono.just(i.certificates()));
    }

    /**
     * The interceptor to register with the server ({@code RSocketServer.interceptors(registry ->
     * registry.forSocketAcceptor(RdmaPeer.interceptor()))}; in Spring Boot, from an {@code RSocketServerCustomizer}):
     * it makes the peer of each connection over SoftRDMA readable in every request that connection's responder
     * handles. Connections over other transports pass through unchanged.
     *
     * @return the interceptor, stateless, for any number of servers
     */
    public static SocketAcceptorInterceptor interceptor() {
        return RdmaPeer::intercept;
    }

    /** The Context entry {@link RdmaServerTransport} writes for the acceptor of a connection on {@code session}. */
    static Context context(RdmaSession session) {
        return Context.of(KEY, new Identity(session.peerCertificates(), session.peerPrincipal()));
    }

    private static Mono<Identity> identity() {
        return Mono.deferContextual(context -> context.<Identity>getOrEmpty(KEY).map(Mono::just).orElseGet(() ->
                Mono.error(new IllegalStateException("no RSocket connection over SoftRDMA in this Reactor Context:"
                        + " read RdmaPeer in a request a server over RdmaServerTransport handles, and register"
                        + " RdmaPeer.interceptor() with that server (RSocketServer.interceptors(r ->"
                        + " r.forSocketAcceptor(RdmaPeer.interceptor())), or an RSocketServerCustomizer in"
                        + " Spring Boot)"))));
    }

    /** The acceptor, then its responder wrapped so that each request sees the connection's identity. */
    private static SocketAcceptor intercept(SocketAcceptor acceptor) {
        return (setup, sendingSocket) -> Mono.deferContextual(context -> {
            Mono<RSocket> responder = acceptor.accept(setup, sendingSocket);
            Optional<Identity> identity = context.getOrEmpty(KEY);
            return identity.isPresent() ? responder.map(r -> new WithIdentity(r, identity.get())) : responder;
        });
    }

    /** What the TLS handshake of one connection proved; immutable. */
    private record Identity(List<X509Certificate> certificates, Optional<Principal> principal) {
    }

    /**
     * A connection's responder whose every request runs with the connection's {@link Identity} in its Context. The
     * write is outermost, so whatever the responder wraps (Spring Security's interceptors, Spring's message handler)
     * sees it.
     */
    private static final class WithIdentity extends RSocketProxy {
        private final Context identity;

        WithIdentity(RSocket source, Identity identity) {
            super(source);
            this.identity = Context.of(KEY, identity);
        }

        @Override
        public Mono<Void> fireAndForget(Payload payload) {
            return source.fireAndForget(payload).contextWrite(identity);
        }

        @Override
        public Mono<Payload> requestResponse(Payload payload) {
            return source.requestResponse(payload).contextWrite(identity);
        }

        @Override
        public Flux<Payload> requestStream(Payload payload) {
            return source.requestStream(payload).contextWrite(identity);
        }

        @Override
        public Flux<Payload> requestChannel(Publisher<Payload> payloads) {
            return source.requestChannel(payloads).contextWrite(identity);
        }

        @Override
        public Mono<Void> metadataPush(Payload payload) {
            return source.metadataPush(payload).contextWrite(identity);
        }
    }
}
