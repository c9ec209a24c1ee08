package io.softrdma.spring.memory;

import io.softrdma.memory.DisposableMemoryServer;
import io.softrdma.memory.MemoryServer;
import io.softrdma.memory.ServerRegion;
import io.softrdma.memory.cache.CacheOwner;
import io.softrdma.spring.autoconfigure.RdmaServerStatus;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.springframework.context.SmartLifecycle;
import io.softrdma.spring.internal.ServerLifecycles;
import org.springframework.core.env.ConfigurableEnvironment;

/**
 * The application's memory server: binds the {@link MemoryServer} when the application starts, and drains it when
 * the application stops — it stops accepting, lets sessions finish within
 * {@code spring.lifecycle.timeout-per-shutdown-phase}, then ends them (their leases with them) and frees the regions'
 * memory. The bound port is published as {@value #PORT_PROPERTY}. It reports in the {@code rdma} health under
 * {@code memory} (listening, port, connections), the health being DOWN while it does not listen.
 *
 * <p>The owner reads and writes its regions through {@link #region(String)}:
 *
 * <pre>{@code
 * ServerRegion counters = memory.region("counters");   // memory: this bean
 * counters.putLong(0, 42);                             // what a client's getLong(0) reads, one-sided
 * }</pre>
 *
 * <p>Thread safety: start and stop are called by the application context, one at a time; the other methods from any
 * thread.
 */
public class RdmaMemoryServer implements SmartLifecycle, RdmaServerStatus {
    /** The property that holds the bound port once started. */
    public static final String PORT_PROPERTY = "local.rdma.memory.server.port";

    /** Stops with web servers' graceful shutdown, as the RDMA server does. */
    public static final int PHASE = SmartLifecycle.DEFAULT_PHASE - 1024;

    private static final Log log = LogFactory.getLog(RdmaMemoryServer.class);

    private final MemoryServer server;
    private final Map<String, CacheOwner> owners;
    private final Duration drainTimeout;
    private final ConfigurableEnvironment environment;
    private volatile DisposableMemoryServer bound;

    /**
     * A lifecycle for {@code server}.
     *
     * @param server the memory server to bind
     * @param drainTimeout how long sessions may take to finish when the application stops
     * @param environment where to publish the bound port; may be null
     */
    public RdmaMemoryServer(MemoryServer server, Duration drainTimeout, ConfigurableEnvironment environment) {
        this(server, List.of(), drainTimeout, environment);
    }

    /**
     * A lifecycle for {@code server} and the caches it owns.
     *
     * @param server the memory server to bind, on which each owner has declared its cache ({@link
     *     CacheOwner#declareOn})
     * @param owners the caches to start once the server is bound, and to stop with it
     * @param drainTimeout how long sessions may take to finish when the application stops
     * @param environment where to publish the bound port; may be null
     */
    public RdmaMemoryServer(MemoryServer server, List<CacheOwner> owners, Duration drainTimeout,
            ConfigurableEnvironment environment) {
        this.server = server;
        this.owners = new LinkedHashMap<>();
        for (CacheOwner owner : owners) {
            this.owners.put(owner.name(), owner);
        }
        this.drainTimeout = drainTimeout;
        this.environment = environment;
    }

    @Override
    public void start() {
        DisposableMemoryServer b = server.bindNow();
        try {
            // Clients that come before the tables are formatted are told the region holds no table yet.
            owners.values().forEach(owner -> owner.start(b));
        } catch (RuntimeException e) {
            b.disposeNow(Duration.ofSeconds(5));
            throw e;
        }
        bound = b;
        log.info("SoftRDMA memory server listening on " + b.address() + " with regions " + b.regionNames());
        ServerLifecycles.publishPort(environment, "rdma.memory.server", PORT_PROPERTY, b.port());
    }

    @Override
    public void stop() {
        DisposableMemoryServer b = bound;
        if (b != null) {
            drain(b);
        }
    }

    @Override
    public void stop(Runnable callback) {
        DisposableMemoryServer b = bound;
        if (b == null) {
            callback.run();
            return;
        }
        ServerLifecycles.drainOffThread(() -> drain(b), callback, "rdma-memory-server-drain");
    }

    private void drain(DisposableMemoryServer b) {
        int sessions = b.sessionCount();
        try {
            b.disposeGracefully(drainTimeout).block(drainTimeout.plusSeconds(5));
            log.info("SoftRDMA memory server stopped; " + sessions + " session(s) drained");
        } catch (RuntimeException e) {
            log.warn("SoftRDMA memory server stopped; sessions still open after " + drainTimeout + " were closed: "
                    + e);
        } finally {
            owners.values().forEach(CacheOwner::dispose);
            bound = null;
        }
    }

    @Override
    public boolean isRunning() {
        DisposableMemoryServer b = bound;
        return b != null && !b.isDisposed();
    }

    @Override
    public int getPhase() {
        return PHASE;
    }

    /**
     * The bound server, or null when not running.
     *
     * @return the server
     */
    public DisposableMemoryServer server() {
        return bound;
    }

    /**
     * The region {@code name}: the local memory the owner reads and writes, and revokes, resizes or drops.
     *
     * @param name a region's name
     * @return the region
     * @throws IllegalStateException if the server is not running (before the application has started, or after it
     *     has stopped)
     * @throws io.softrdma.memory.NoSuchRegionException if there is no region of that name
     */
    public ServerRegion region(String name) {
        DisposableMemoryServer b = bound;
        if (b == null) {
            throw new IllegalStateException("the memory server is not running: its regions exist from the"
                    + " application's start (SmartLifecycle phase " + PHASE + ") to its stop; use them from an"
                    + " ApplicationReadyEvent listener or later");
        }
        return b.region(name);
    }

    /**
     * The caches this server owns ({@code rdma.memory.cache.caches.*}), by name: their statistics, a sweep.
     *
     * @return the owners, in the order declared
     */
    public Map<String, CacheOwner> cacheOwners() {
        return java.util.Collections.unmodifiableMap(owners);
    }

    @Override
    public String name() {
        return "memory";
    }

    @Override
    public boolean isListening() {
        return isRunning();
    }

    @Override
    public int port() {
        DisposableMemoryServer b = bound;
        return b == null ? -1 : b.port();
    }

    @Override
    public int connections() {
        DisposableMemoryServer b = bound;
        return b == null ? 0 : b.sessionCount();
    }
}
