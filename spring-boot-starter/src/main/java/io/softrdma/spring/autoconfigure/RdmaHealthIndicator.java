package io.softrdma.spring.autoconfigure;

import io.softrdma.reactive.DisposableRdmaServer;
import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;

/**
 * Health of SoftRDMA: DOWN when the application has a server that is not listening (it failed to bind, or has
 * stopped); UP otherwise. Details: whether the server listens and on which port, and per role ({@code server},
 * {@code client}) the open connections and the errors seen — sessions lost, Terminates, failed and refused
 * startups.
 */
public class RdmaHealthIndicator extends AbstractHealthIndicator {
    private final RdmaActivity activity;
    private final RdmaServerLifecycle server;

    /**
     * Health from {@code activity} and, if the application has one, {@code server}.
     *
     * @param activity the sessions' activity
     * @param server the server's lifecycle, or null without a server
     */
    public RdmaHealthIndicator(RdmaActivity activity, RdmaServerLifecycle server) {
        super("SoftRDMA health check failed");
        this.activity = activity;
        this.server = server;
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
        for (RdmaActivity.Role role : activity.roles()) {
            builder.withDetail(role.name(), java.util.Map.of(
                    "connections", role.openSessions().size(),
                    "sessionsLost", role.lost(),
                    "terminates", role.terminates(),
                    "startupsFailed", role.startupsFailed(),
                    "startupsRejected", role.startupsRejected()));
        }
    }
}
