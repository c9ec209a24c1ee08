package io.softrdma.reactive;

import java.net.InetSocketAddress;
import java.time.Duration;
import reactor.core.Disposable;
import reactor.core.publisher.Mono;
import reactor.netty.DisposableServer;

/**
 * A bound {@link RdmaServer}: where it listens, and how to stop it.
 *
 * <p>Thread safety: all methods may be called from any thread.
 */
public final class DisposableRdmaServer implements Disposable {
    private final DisposableServer server;
    private final java.util.Set<RdmaSession> sessions;
    private final io.softrdma.cm.StartupLimiter startups;

    DisposableRdmaServer(DisposableServer server, java.util.Set<RdmaSession> sessions,
            io.softrdma.cm.StartupLimiter startups) {
        this.server = server;
        this.sessions = sessions;
        this.startups = startups;
    }

    /** The MPA startups running now, the cap on them, and the connections refused for it. */
    public io.softrdma.cm.StartupLimiter startups() {
        return startups;
    }

    /** The sessions open now. */
    public int sessionCount() {
        return sessions.size();
    }

    public InetSocketAddress address() {
        return (InetSocketAddress) server.address();
    }

    public int port() {
        return server.port();
    }

    /** Stops listening; established sessions go on until they end. */
    @Override
    public void dispose() {
        server.dispose();
    }

    /** Stops listening and waits at most {@code timeout} for that; open sessions go on. */
    public void disposeNow(Duration timeout) {
        server.disposeNow(timeout);
    }

    /**
     * Stops listening, then closes every open session gracefully — each finishes the work already
     * posted (RFC 5040 §5.5) before its connection closes — and completes when all have ended. A
     * session that has not ended within {@code timeout} is closed at once, and the Mono fails with a
     * {@link java.util.concurrent.TimeoutException}.
     */
    public Mono<Void> disposeGracefully(Duration timeout) {
        return Mono.defer(() -> {
            server.dispose();
            java.util.List<RdmaSession> open = java.util.List.copyOf(sessions);
            open.forEach(RdmaSession::dispose);
            return reactor.core.publisher.Flux.fromIterable(open).flatMap(RdmaSession::onDispose).then()
                    .timeout(timeout).doOnError(java.util.concurrent.TimeoutException.class,
                            e -> open.forEach(s -> s.connection().channel().close()));
        }).then(server.onDispose());
    }

    @Override
    public boolean isDisposed() {
        return server.isDisposed();
    }

    /** Completes once the listening socket is closed. */
    public Mono<Void> onDispose() {
        return server.onDispose();
    }
}
