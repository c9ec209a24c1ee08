package io.softrdma.spring.autoconfigure;

import java.net.InetAddress;
import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * RSocket over SoftRDMA ({@code rdma.rsocket.*}): the server that serves the application's {@code @MessageMapping}
 * controllers over RDMA, and the clients' load balancing and reconnection. The RDMA settings themselves (MPA, queue
 * pair, messaging, TLS, session limits) are those of {@code rdma.server.*} and {@code rdma.client.*}.
 *
 * <p>Thread safety: bound once by Spring Boot at startup, then only read.
 */
@ConfigurationProperties("rdma.rsocket")
public class RdmaRSocketProperties {
    private final Server server = new Server();
    private final Client client = new Client();
    private final Observation observation = new Observation();

    public Observation getObservation() {
        return observation;
    }

    public Server getServer() {
        return server;
    }

    public Client getClient() {
        return client;
    }

    /** The RSocket server over RDMA: started with the application when {@code rdma.rsocket.server.port} is set. */
    public static class Server {
        /**
         * Port of the RSocket server over RDMA (0 for any free one); the server starts only when this is set and
         * the application has Spring's RSocketMessageHandler (spring-boot-rsocket).
         */
        private Integer port;

        /** Address to bind; every interface when unset. */
        private InetAddress address;

        /**
         * How long in-flight requests may take to finish when the application stops; then the connections close.
         * Defaults to spring.lifecycle.timeout-per-shutdown-phase (30s).
         */
        private Duration shutdownTimeout;

        public Integer getPort() {
            return port;
        }

        public void setPort(Integer port) {
            this.port = port;
        }

        public InetAddress getAddress() {
            return address;
        }

        public void setAddress(InetAddress address) {
            this.address = address;
        }

        public Duration getShutdownTimeout() {
            return shutdownTimeout;
        }

        public void setShutdownTimeout(Duration shutdownTimeout) {
            this.shutdownTimeout = shutdownTimeout;
        }
    }

    /** RSocket clients over RDMA (RdmaRSocketTransports). */
    public static class Client {
        /**
         * How often a load-balanced service name is resolved again (its DNS A/AAAA records), to follow the pods
         * added and removed; a target whose connection was lost is connected again at the next resolution.
         */
        private Duration refreshInterval = Duration.ofSeconds(10);

        private final Reconnect reconnect = new Reconnect();

        public Duration getRefreshInterval() {
            return refreshInterval;
        }

        public void setRefreshInterval(Duration refreshInterval) {
            this.refreshInterval = refreshInterval;
        }

        public Reconnect getReconnect() {
            return reconnect;
        }
    }

    /** Reconnection of the requesters RdmaRSocketTransports makes: exponential backoff with jitter. */
    public static class Reconnect {
        /** Whether the requesters made by RdmaRSocketTransports connect again, with backoff, after a failure. */
        private boolean enabled = true;

        /** Attempts after a failed connect before the request fails. */
        private long maxAttempts = 10;

        /** The first wait between attempts; each next wait doubles it. */
        private Duration minBackoff = Duration.ofMillis(500);

        /** The longest wait between attempts. */
        private Duration maxBackoff = Duration.ofSeconds(10);

        public boolean isEnabled() {
            return enabled;
        }

        public void setEnabled(boolean enabled) {
            this.enabled = enabled;
        }

        public long getMaxAttempts() {
            return maxAttempts;
        }

        public void setMaxAttempts(long maxAttempts) {
            this.maxAttempts = maxAttempts;
        }

        public Duration getMinBackoff() {
            return minBackoff;
        }

        public void setMinBackoff(Duration minBackoff) {
            this.minBackoff = minBackoff;
        }

        public Duration getMaxBackoff() {
            return maxBackoff;
        }

        public void setMaxBackoff(Duration maxBackoff) {
            this.maxBackoff = maxBackoff;
        }
    }

    /** Micrometer Observation of RSocket requests, with RSocket's own observation proxies. */
    public static class Observation {
        /**
         * Whether to observe every RSocket request, sent and answered, when the application has an
         * ObservationRegistry: RSocket's observation proxies on all requesters from Boot's RSocketRequester.Builder
         * and on all RSocket servers (over RDMA and TCP), which carry the trace context in the requests' metadata.
         */
        private boolean enabled = true;

        public boolean isEnabled() {
            return enabled;
        }

        public void setEnabled(boolean enabled) {
            this.enabled = enabled;
        }
    }
}
