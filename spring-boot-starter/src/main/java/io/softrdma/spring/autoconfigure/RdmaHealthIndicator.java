package io.softrdma.spring.autoconfigure;

import io.softrdma.reactive.DisposableRdmaServer;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;

/**
 * Health of SoftRDMA: DOWN when the application has a server that is not listening (it failed to bind, or has
 * stopped); UP otherwise. Details: whether the server listens and on which port; per role ({@code server},
 * {@code client}) the open connections and the errors seen — sessions lost, Terminates, failed and refused
 * startups; the same per named peer under {@code peers}; and each other server ({@link RdmaServerStatus}, such as
 * the RSocket server) under its name, with {@code listening}, {@code port} and {@code connections}.
 *
 * <p>Thread safety: thread-safe; each check reads the live state.
 */
public class RdmaHealthIndicator extends AbstractHealthIndicator {
    private final RdmaActivity activity;
    private final RdmaServerLifecycle server;
    private final List<RdmaServerStatus> others;

    /**
     * Health from {@code activity} and, if the application has one, {@code server}.
     *
     * @param activity the sessions' activity
     * @param server the server's lifecycle, or null without a server
     */
    public RdmaHealthIndicator(RdmaActivity activity, RdmaServerLifecycle server) {
        this(activity, server, List.of());
    }

    /**
     * Health from {@code activity}, {@code server} if the application has one, and the other servers.
     *
     * @param activity the sessions' activity
     * @param server the server's lifecycle, or null without a server
     * @param others the other servers on SoftRDMA (the RSocket server)
     */
    public RdmaHealthIndicator(RdmaActivity activity, RdmaServerLifecycle server, List<RdmaServerStatus> others) {
        super("SoftRDMA health check failed");
        this.activity = activity;
        this.server = server;
        this.others = List.copyOf(others);
    }

    @Override
    protected void doHealthCheck(Health.Builder builder) {
        if (server != null) {
            DisposableRdmaServer bound = server.server();
            if (bound == null || bound.isDisposed()) {
                builder.down().withDetail("listening", false);
            } else {
                builder.up().withDetail("listening", true).withDetail("port", bound.port());
            }
        } else {
            builder.up();
        }
        for (RdmaServerStatus other : others) {
            boolean listening = other.isListening();
            if (!listening) {
                builder.down();
            }
            Map<String, Object> details = new LinkedHashMap<>();
            details.put("listening", listening);
            if (listening) {
                details.put("port", other.port());
            }
            details.put("connections", other.connections());
            builder.withDetail(other.name(), details);
        }
        builder.withDetail(activity.server().name(), details(activity.server()));
        builder.withDetail(activity.client().name(), details(activity.client()));
        Map<String, Object> peers = new LinkedHashMap<>();
        activity.peers().forEach((peer, role) -> peers.put(peer, details(role)));
        if (!peers.isEmpty()) {
            builder.withDetail("peers", peers);
        }
    }

    private static Map<String, Object> details(RdmaActivity.Role role) {
        return Map.of(
                "connections", role.openSessions().size(),
                "sessionsLost", role.lost(),
                "terminates", role.terminates(),
                "startupsFailed", role.startupsFailed(),
                "startupsRejected", role.startupsRejected());
    }
}
