package io.softrdma.rsocket;

import io.rsocket.DuplexConnection;
import io.rsocket.transport.ClientTransport;
import io.softrdma.reactive.RdmaClient;
import io.softrdma.reactive.RdmaSession;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicReference;
import reactor.core.Disposable;
import reactor.core.publisher.Mono;

/**
 * RSocket's client transport over SoftRDMA: each {@link #connect()} opens one RDMA session with the
 * {@link RdmaClient} given (its MPA settings, TLS, messaging sizes, metrics) and carries RSocket's frames on it,
 * one credit-controlled message each (docs/rsocket.md).
 *
 * <pre>{@code
 * RSocket rsocket = RSocketConnector.connectWith(RdmaClientTransport.create(host, port)).block();
 * }</pre>
 *
 * <p>Spring's {@code RSocketRequester.Builder.transport(ClientTransport)} takes it the same way.
 *
 * <p>Buffers: frames are RSocket's to give and the library's once given, as on every RSocket transport; nothing
 * here asks a caller to release anything. Thread safety: immutable; {@link #connect()} may be called from any
 * thread, any number of times (RSocket's reconnect and resume call it again for each new connection).
 */
public final class RdmaClientTransport implements ClientTransport {
    /** The state of a {@link #connect()} cancelled before its session was handed over. */
    private static final Object CANCELLED = new Object();
    private final RdmaClient client;

    private RdmaClientTransport(RdmaClient client) {
        this.client = client;
    }

    /**
     * A transport to {@code host}:{@code port} with SoftRDMA's defaults (MPA revision 2 with CRC, RFC 6581
     * peer-to-peer, frames up to 16 MiB) and {@link RSocketMessaging#DEFAULTS}' messaging sizes (16 KiB Sends).
     *
     * @param host the server's name or address; resolved at each connect
     * @param port its port, 1 to 65535
     * @return the transport
     */
    public static RdmaClientTransport create(String host, int port) {
        Objects.requireNonNull(host, "host");
        if (port < 1 || port > 65535) {
            throw new IllegalArgumentException("port must be from 1 to 65535, was " + port);
        }
        return new RdmaClientTransport(RdmaClient.create().host(host).port(port)
                .messaging(RSocketMessaging.DEFAULTS));
    }

    /**
     * A transport that connects with {@code client} as configured.
     *
     * @param client an {@link RdmaClient} that runs SoftRDMA messaging (no other session protocol)
     * @return the transport
     * @throws IllegalArgumentException if {@code client} runs another session protocol
     */
    public static RdmaClientTransport create(RdmaClient client) {
        Objects.requireNonNull(client, "client");
        if (!client.configuration().session().runsMessaging()) {
            throw new IllegalArgumentException("RSocket runs on SoftRDMA messaging, but this client runs "
                    + client.configuration().session().protocol().name() + ": drop its protocol(...)");
        }
        return new RdmaClientTransport(client);
    }

    /** The {@link RdmaClient} each connection is opened with. */
    public RdmaClient client() {
        return client;
    }

    /**
     * Opens one RDMA session and hands it over as a connection. A cancel before the connection is handed over stops
     * the connect and releases what it made; once handed over, the connection is RSocket's and only its
     * {@code dispose()} ends it. RSocket cancels late: resumption cancels its reconnect chain from inside the
     * RESUME_OK frame's delivery, after this Mono's value went out, and Reactor passes that cancel up to a source that
     * has already emitted. {@code RdmaClient.connect()} closes the TCP connection on any cancel it sees, so that cancel
     * must not reach it.
     */
    @Override
    public Mono<DuplexConnection> connect() {
        return Mono.create(sink -> {
            AtomicReference<Object> state = new AtomicReference<>();
            Disposable connecting = client.connect().subscribe(session -> {
                if (!state.compareAndSet(null, session)) {
                    session.dispose(); // cancelled meanwhile: nobody will own it
                    return;
                }
                sink.success(new RdmaDuplexConnection("client", session));
            }, sink::error);
            // Runs only for a cancel before success (Mono.create ignores one after): a session made but not yet
            // handed over is closed here, one being made is stopped by the cancel of its connect.
            sink.onCancel(() -> {
                Object made = state.getAndSet(CANCELLED);
                if (made instanceof RdmaSession session) {
                    session.dispose();
                }
                connecting.dispose();
            });
        });
    }

    /** The largest frame: RSocket's own limit (16 MiB less one octet) or the largest message, if smaller. */
    @Override
    public int maxFrameLength() {
        return Frames.maxFrameLength(client.configuration().session().messaging().maxMessageSize());
    }
}
