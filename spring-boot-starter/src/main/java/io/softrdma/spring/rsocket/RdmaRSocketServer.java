package io.softrdma.spring.rsocket;

import io.rsocket.SocketAcceptor;
import io.rsocket.core.RSocketServer;
import io.rsocket.plugins.RSocketInterceptor;
import io.softrdma.reactive.RdmaServer;
import io.softrdma.rsocket.CloseableRdmaServer;
import io.softrdma.rsocket.RdmaServerTransport;
import io.softrdma.spring.autoconfigure.RdmaServerStatus;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.springframework.context.EnvironmentAware;
import org.springframework.context.SmartLifecycle;
import io.softrdma.spring.internal.ServerLifecycles;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.Environment;

/**
 * An RSocket server over SoftRDMA, started and drained with the application. The auto-configuration makes one when
 * {@code rdma.rsocket.server.port} is set: its acceptor is Spring's {@code RSocketMessageHandler.responder()} (the
 * one Boot's TCP server uses, so the same {@code @MessageMapping} controllers answer), the {@code RSocketServer} is
 * configured by every {@code RSocketServerCustomizer} bean (Spring Security's interceptor, observation), and the
 * RDMA side has the {@code rdma.server.*} settings (MPA, TLS, session limits, metrics) on its own port.
 *
 * <p>At stop it drains: it stops listening, refuses new requests on the open connections with RSocket's
 * {@code RejectedException} (a load-balancing client goes to another server), lets the requests in flight finish
 * within the shutdown timeout, then closes every connection gracefully. The bound port is published as
 * {@value #PORT_PROPERTY}, and {@link #port()} tells it.
 *
 * <p>Buffers: frames and payloads are RSocket's and the transport's, released by them (Spring's handler releases
 * the payloads it decodes); nothing here hands the application a buffer. Thread safety: start and stop are called
 * by the application context, one at a time; the getters may be called from any thread.
 */
public class RdmaRSocketServer implements SmartLifecycle, EnvironmentAware, RdmaServerStatus {
    /** Stops with web servers' graceful shutdown, as the RDMA server does: {@code DEFAULT_PHASE - 1024}. */
    public static final int PHASE = SmartLifecycle.DEFAULT_PHASE - 1024;

    /** The property that holds the bound port once started. */
    public static final String PORT_PROPERTY = "local.rdma.rsocket.server.port";

    private static final Log log = LogFactory.getLog(RdmaRSocketServer.class);
    private static final Duration BIND_TIMEOUT = Duration.ofSeconds(45);

    private final RdmaServer server;
    private final SocketAcceptor acceptor;
    private final Consumer<RSocketServer> configurer;
    private final Duration shutdownTimeout;
    private volatile ConfigurableEnvironment environment;
    private volatile CloseableRdmaServer bound;
    private volatile InFlightRequests requests;

    /**
     * A server that will listen with {@code server} (its host and port included).
     *
     * @param server the RDMA server settings, host and port
     * @param acceptor what accepts each connection's SETUP and answers its requests
     * @param configurer configures the {@code RSocketServer} before it binds (customizers)
     * @param shutdownTimeout how long requests in flight may take to finish when the application stops
     */
    public RdmaRSocketServer(RdmaServer server, SocketAcceptor acceptor, Consumer<RSocketServer> configurer,
            Duration shutdownTimeout) {
        this.server = Objects.requireNonNull(server, "server");
        this.acceptor = Objects.requireNonNull(acceptor, "acceptor");
        this.configurer = Objects.requireNonNull(configurer, "configurer");
        this.shutdownTimeout = Objects.requireNonNull(shutdownTimeout, "shutdownTimeout");
        if (shutdownTimeout.isNegative()) {
            throw new IllegalArgumentException("the shutdown timeout must not be negative, was " + shutdownTimeout);
        }
    }

    @Override
    public void setEnvironment(Environment environment) {
        this.environment = environment instanceof ConfigurableEnvironment c ? c : null;
    }

    @Override
    public void start() {
        if (bound != null) {
            return;
        }
        InFlightRequests inFlight = new InFlightRequests();
        RSocketServer rsocket = RSocketServer.create(acceptor);
        configurer.accept(rsocket);
        // Registered last, so outermost: a request refused while draining never reaches the other interceptors.
        rsocket.interceptors(registry -> registry.forResponder((RSocketInterceptor) inFlight::wrap));
        CloseableRdmaServer b = rsocket.bind(RdmaServerTransport.create(server)).block(BIND_TIMEOUT);
        requests = inFlight;
        bound = b;
        log.info("RSocket server over SoftRDMA listening on " + b.address());
        ServerLifecycles.publishPort(environment, "rdma.rsocket.server", PORT_PROPERTY, b.address().getPort());
    }

    @Override
    public void stop() {
        CloseableRdmaServer b = bound;
        if (b != null) {
            drain(b);
        }
    }

    @Override
    public void stop(Runnable callback) {
        CloseableRdmaServer b = bound;
        if (b == null) {
            callback.run();
            return;
        }
        ServerLifecycles.drainOffThread(() -> drain(b), callback, "rdma-rsocket-server-drain");
    }

    private void drain(CloseableRdmaServer b) {
        long deadline = System.nanoTime() + shutdownTimeout.toNanos();
        InFlightRequests inFlight = requests;
        try {
            b.server().dispose();   // stop listening; the open connections go on
            int waiting = inFlight.drain();
            if (waiting > 0) {
                log.info("RSocket server over SoftRDMA draining: waiting for " + waiting + " request(s) in flight");
            }
            try {
                inFlight.idle().block(remaining(deadline));
            } catch (RuntimeException e) {
                log.warn("RSocket server over SoftRDMA: " + inFlight.count() + " request(s) still in flight after "
                        + shutdownTimeout + "; closing their connections");
            }
            int connections = b.server().sessionCount();
            b.disposeGracefully(remaining(deadline).plusSeconds(1)).block(remaining(deadline).plusSeconds(5));
            log.info("RSocket server over SoftRDMA stopped; " + connections + " connection(s) closed");
        } catch (RuntimeException e) {
            log.warn("RSocket server over SoftRDMA stopped; connections still open after the shutdown timeout were"
                    + " closed: " + (e.getCause() instanceof TimeoutException ? "timeout" : e.toString()));
        } finally {
            bound = null;
        }
    }

    private static Duration remaining(long deadline) {
        return Duration.ofNanos(Math.max(0, deadline - System.nanoTime()));
    }

    @Override
    public boolean isRunning() {
        CloseableRdmaServer b = bound;
        return b != null && !b.isDisposed();
    }

    @Override
    public int getPhase() {
        return PHASE;
    }

    /** {@code rsocket}: its entry in the {@code rdma} health details. */
    @Override
    public String name() {
        return "rsocket";
    }

    @Override
    public boolean isListening() {
        return isRunning();
    }

    /**
     * The port it listens on.
     *
     * @return the port, or -1 when not running
     */
    @Override
    public int port() {
        CloseableRdmaServer b = bound;
        return b == null ? -1 : b.address().getPort();
    }

    /**
     * The address it listens on.
     *
     * @return the address, or null when not running
     */
    public InetSocketAddress address() {
        CloseableRdmaServer b = bound;
        return b == null ? null : b.address();
    }

    /** The RSocket connections (RDMA sessions) open now. */
    @Override
    public int connections() {
        CloseableRdmaServer b = bound;
        return b == null ? 0 : b.server().sessionCount();
    }

    /**
     * The requests being answered now: request-response, streams and channels not yet ended, fire-and-forget
     * handlers not yet done.
     *
     * @return the count
     */
    public int requestsInFlight() {
        InFlightRequests r = requests;
        return r == null ? 0 : r.count();
    }

    /**
     * The bound server underneath, for its sessions and MPA startups.
     *
     * @return the server, or null when not running
     */
    public CloseableRdmaServer server() {
        return bound;
    }

    /** The RDMA settings it listens with. */
    public RdmaServer rdmaServer() {
        return server;
    }
}
