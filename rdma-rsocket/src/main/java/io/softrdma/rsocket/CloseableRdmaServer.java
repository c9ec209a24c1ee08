package io.softrdma.rsocket;

import io.rsocket.Closeable;
import io.softrdma.reactive.DisposableRdmaServer;
import java.net.InetSocketAddress;
import java.time.Duration;
import reactor.core.publisher.Mono;

/**
 * A started {@link RdmaServerTransport}: where it listens, and how to stop it — at once (RSocket's
 * {@link #dispose()}: stop listening, open connections go on until they end) or {@link #disposeGracefully draining}.
 *
 * <p>Thread safety: all methods may be called from any thread.
 */
public final class CloseableRdmaServer implements Closeable {
    private final DisposableRdmaServer server;

    CloseableRdmaServer(DisposableRdmaServer server) {
        this.server = server;
    }

    /** The address it listens on. */
    public InetSocketAddress address() {
        return server.address();
    }

    /** The RDMA server underneath: its sessions and MPA startups, for health and metrics. */
    public DisposableRdmaServer server() {
        return server;
    }

    /**
     * Stops listening, closes every connection gracefully (each sends what it has queued) and completes when all
     * have ended; after {@code timeout} the rest are closed at once and the Mono fails with a TimeoutException.
     */
    public Mono<Void> disposeGracefully(Duration timeout) {
        return server.disposeGracefully(timeout);
    }

    @Override
    public Mono<Void> onClose() {
        return server.onDispose();
    }

    @Override
    public void dispose() {
        server.dispose();
    }

    @Override
    public boolean isDisposed() {
        return server.isDisposed();
    }

    @Override
    public String toString() {
        return "CloseableRdmaServer{" + server.address() + "}";
    }
}
