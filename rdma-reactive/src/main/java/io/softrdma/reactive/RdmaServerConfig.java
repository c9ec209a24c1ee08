package io.softrdma.reactive;

import io.softrdma.cm.ConnectRequest;
import io.softrdma.cm.StartupLimiter;
import java.util.Objects;
import java.util.function.Function;
import org.reactivestreams.Publisher;
import reactor.core.publisher.Mono;

/**
 * What an {@link RdmaServer} is set to, besides its reactor-netty {@code TcpServer} (address, port, options,
 * TLS: {@link RdmaServer#tcpServer()}): the settings its sessions share with a client's, the accept decision,
 * the session handler and the limits.
 *
 * <p>Thread safety: immutable.
 */
public final class RdmaServerConfig {
    private final RdmaSessionConfig session;
    private final Function<? super ConnectRequest, ? extends Mono<ConnectDecision>> accept;
    private final Function<? super RdmaSession, ? extends Publisher<Void>> handler;
    private final int maxPendingStartups;
    private final int maxSessions;

    RdmaServerConfig(RdmaSessionConfig session, Function<? super ConnectRequest, ? extends Mono<ConnectDecision>> accept,
            Function<? super RdmaSession, ? extends Publisher<Void>> handler, int maxPendingStartups,
            int maxSessions) {
        new StartupLimiter(maxPendingStartups); // validates, naming the rule
        if (maxSessions < 1) {
            throw new IllegalArgumentException("maxSessions must be at least 1, not " + maxSessions);
        }
        this.session = Objects.requireNonNull(session, "session");
        this.accept = Objects.requireNonNull(accept, "accept");
        this.handler = Objects.requireNonNull(handler, "handler");
        this.maxPendingStartups = maxPendingStartups;
        this.maxSessions = maxSessions;
    }

    /** Device, MPA settings, queue pair shape, messaging and metrics. */
    public RdmaSessionConfig session() {
        return session;
    }

    /** Decides on each MPA Request: see {@link RdmaServer#accept}. */
    public Function<? super ConnectRequest, ? extends Mono<ConnectDecision>> accept() {
        return accept;
    }

    /** Serves each session; the session closes when its publisher terminates. */
    public Function<? super RdmaSession, ? extends Publisher<Void>> handler() {
        return handler;
    }

    /** The most MPA startups at once. */
    public int maxPendingStartups() {
        return maxPendingStartups;
    }

    /** The most sessions open at once. */
    public int maxSessions() {
        return maxSessions;
    }

    RdmaServerConfig withSession(RdmaSessionConfig session) {
        return new RdmaServerConfig(session, accept, handler, maxPendingStartups, maxSessions);
    }

    RdmaServerConfig withAccept(Function<? super ConnectRequest, ? extends Mono<ConnectDecision>> accept) {
        return new RdmaServerConfig(session, accept, handler, maxPendingStartups, maxSessions);
    }

    RdmaServerConfig withHandler(Function<? super RdmaSession, ? extends Publisher<Void>> handler) {
        return new RdmaServerConfig(session, accept, handler, maxPendingStartups, maxSessions);
    }

    RdmaServerConfig withMaxPendingStartups(int maxPendingStartups) {
        return new RdmaServerConfig(session, accept, handler, maxPendingStartups, maxSessions);
    }

    RdmaServerConfig withMaxSessions(int maxSessions) {
        return new RdmaServerConfig(session, accept, handler, maxPendingStartups, maxSessions);
    }

    @Override
    public String toString() {
        return "RdmaServerConfig[" + session + ", maxPendingStartups=" + maxPendingStartups + ", maxSessions="
                + maxSessions + "]";
    }
}
