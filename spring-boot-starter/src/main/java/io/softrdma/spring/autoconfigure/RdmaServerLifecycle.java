package io.softrdma.spring.autoconfigure;

import io.softrdma.reactive.DisposableRdmaServer;
import io.softrdma.reactive.RdmaServer;
import java.time.Duration;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.springframework.context.SmartLifecycle;
import io.softrdma.spring.internal.ServerLifecycles;
import org.springframework.core.env.ConfigurableEnvironment;

/**
 * Binds the {@link RdmaServer} when the application starts and drains it when the application stops: it stops
 * accepting, lets every session finish the work already posted (RFC 5040 §5.5) and close, and gives up — closing
 * what is left — after {@code spring.lifecycle.timeout-per-shutdown-phase}. It stops in the phase of web servers'
 * graceful shutdown, before the beans its sessions use. The bound port is published as
 * {@code local.rdma.server.port}.
 *
 * <p>Thread safety: start and stop are called by the application context, one at a time.
 */
public class RdmaServerLifecycle implements SmartLifecycle {
    /** Stops with web servers' graceful shutdown: {@code SmartLifecycle.DEFAULT_PHASE - 1024}. */
    public static final int PHASE = SmartLifecycle.DEFAULT_PHASE - 1024;

    /** The property that holds the bound port once started. */
    public static final String PORT_PROPERTY = "local.rdma.server.port";

    private static final Log log = LogFactory.getLog(RdmaServerLifecycle.class);

    private final RdmaServer server;
    private final Duration drainTimeout;
    private final ConfigurableEnvironment environment;
    private volatile DisposableRdmaServer bound;

    /**
     * A lifecycle for {@code server}.
     *
     * @param server the server to bind
     * @param drainTimeout how long sessions may take to finish when the application stops
     * @param environment where to publish the bound port; may be null
     */
    public RdmaServerLifecycle(RdmaServer server, Duration drainTimeout, ConfigurableEnvironment environment) {
        this.server = server;
        this.drainTimeout = drainTimeout;
        this.environment = environment;
    }

    @Override
    public void start() {
        DisposableRdmaServer b = server.bindNow();
        bound = b;
        log.info("SoftRDMA server listening on " + b.address());
        ServerLifecycles.publishPort(environment, "rdma.server", PORT_PROPERTY, b.port());
    }

    @Override
    public void stop() {
        DisposableRdmaServer b = bound;
        if (b != null) {
            drain(b);
        }
    }

    @Override
    public void stop(Runnable callback) {
        DisposableRdmaServer b = bound;
        if (b == null) {
            callback.run();
            return;
        }
        ServerLifecycles.drainOffThread(() -> drain(b), callback, "rdma-server-drain");
    }

    private void drain(DisposableRdmaServer b) {
        int sessions = b.sessionCount();
        try {
            b.disposeGracefully(drainTimeout).block(drainTimeout.plusSeconds(5));
            log.info("SoftRDMA server stopped; " + sessions + " session(s) drained");
        } catch (RuntimeException e) {
            log.warn("SoftRDMA server stopped; sessions still open after " + drainTimeout + " were closed: " + e);
        } finally {
            bound = null;
        }
    }

    @Override
    public boolean isRunning() {
        DisposableRdmaServer b = bound;
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
    public DisposableRdmaServer server() {
        return bound;
    }

    /**
     * The port listened on, or -1 when not running.
     *
     * @return the port
     */
    public int port() {
        DisposableRdmaServer b = bound;
        return b == null ? -1 : b.port();
    }
}
