package io.softrdma.memory;

import io.softrdma.memory.internal.Directory;
import io.softrdma.reactive.DisposableRdmaServer;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Set;
import reactor.core.Disposable;
import reactor.core.publisher.Mono;

/**
 * A bound {@link MemoryServer}: its regions, to read and write locally and to revoke, resize, drop or add, and
 * its lifecycle.
 *
 * <p>Thread safety: all methods may be called from any thread.
 */
public final class DisposableMemoryServer implements Disposable {
    private final DisposableRdmaServer server;
    private final Directory directory;

    DisposableMemoryServer(DisposableRdmaServer server, Directory directory) {
        this.server = server;
        this.directory = directory;
        server.onDispose().subscribe(null, e -> directory.close(), directory::close);
    }

    /**
     * The region of that name.
     *
     * @throws NoSuchRegionException naming the regions there are, if none has that name
     */
    public ServerRegion region(String name) {
        return new ServerRegion(directory.region(name));
    }

    /** The names of the regions now. */
    public Set<String> regionNames() {
        return directory.regionNames();
    }

    /**
     * Adds a region at runtime, zero-filled; clients may resolve it at once.
     *
     * @throws IllegalArgumentException if a region of that name exists
     */
    public ServerRegion addRegion(RegionSpec spec) {
        return new ServerRegion(directory.add(spec));
    }

    /** Leases live now, over all sessions and regions. */
    public int leaseCount() {
        return directory.leaseCount();
    }

    /** Leases lent, renewed and ended since the server started, and live now. */
    public LeaseStatistics leaseStatistics() {
        return directory.statistics();
    }

    /** Sessions open now. */
    public int sessionCount() {
        return server.sessionCount();
    }

    public InetSocketAddress address() {
        return server.address();
    }

    public int port() {
        return server.port();
    }

    /** The RDMA server underneath (its startups and sessions, for health and metrics). */
    public DisposableRdmaServer rdmaServer() {
        return server;
    }

    /**
     * Stops listening, closes every session (their leases end with them) and, once they have ended, frees the
     * regions' memory. Returns at once.
     */
    @Override
    public void dispose() {
        server.dispose();
        directory.endSessions().subscribe(null, e -> directory.close(), directory::close);
    }

    /** {@link #dispose()}, waiting at most {@code timeout} for the sessions to end (then frees the memory anyway). */
    public void disposeNow(Duration timeout) {
        server.disposeNow(timeout);
        try {
            directory.endSessions().timeout(timeout, Mono.empty()).block();
        } finally {
            directory.close();
        }
    }

    /**
     * Stops accepting, lets sessions finish the work they were given within {@code timeout}, then closes them and
     * frees the regions' memory.
     */
    public Mono<Void> disposeGracefully(Duration timeout) {
        return server.disposeGracefully(timeout).then(directory.endSessions()).doFinally(s -> directory.close());
    }

    @Override
    public boolean isDisposed() {
        return server.isDisposed();
    }

    /** Completes when the server has stopped. */
    public Mono<Void> onDispose() {
        return server.onDispose();
    }

    @Override
    public String toString() {
        return "DisposableMemoryServer{" + address() + ", regions=" + regionNames() + "}";
    }
}
