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

    DisposableRdmaServer(DisposableServer server) {
        this.server = server;
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

    /** Stops listening and waits at most {@code timeout} for that. */
    public void disposeNow(Duration timeout) {
        server.disposeNow(timeout);
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
