package io.softrdma.samples.messaging;

import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * The sample's own settings ({@code messaging.*}). The server role has none: the starter's
 * {@code rdma.rsocket.server.port} is all it takes.
 *
 * <p>Thread safety: immutable.
 *
 * @param client the client role's settings ({@code messaging.client.*})
 */
@ConfigurationProperties("messaging")
public record MessagingProperties(@DefaultValue Client client) {

    /**
     * The client role's settings.
     *
     * @param host the server's host; with {@code load-balanced}, a name whose DNS records are the servers (a
     *        Kubernetes headless Service)
     * @param port the server's RSocket-over-RDMA port ({@code rdma.rsocket.server.port} there)
     * @param loadBalanced connect to every address {@code host} resolves to and balance across them, following
     *        changes ({@code rdma.rsocket.client.refresh-interval}); false: one connection to {@code host}
     * @param consumeDelay how long the client spends on each quote: what makes it a slow consumer
     * @param requestWindow how many quotes it asks for ahead ({@code limitRate}: RSocket's REQUEST_N)
     * @param interval how often it runs a round of the other routes (get, process, record)
     * @param ordersPerRound how many orders each round sends through the channel {@code orders.process}
     * @param symbol the symbol whose quotes it streams
     */
    public record Client(@DefaultValue("localhost") String host, @DefaultValue("7472") int port,
            @DefaultValue("false") boolean loadBalanced, @DefaultValue("5ms") Duration consumeDelay,
            @DefaultValue("16") int requestWindow, @DefaultValue("2s") Duration interval,
            @DefaultValue("10") int ordersPerRound, @DefaultValue("SRDM") String symbol) {
        public Client {
            if (host == null || host.isBlank()) {
                throw new IllegalArgumentException("messaging.client.host must name the server (or, with"
                        + " messaging.client.load-balanced=true, a headless Service)");
            }
            if (port < 1 || port > 65535) {
                throw new IllegalArgumentException("messaging.client.port must be 1..65535 (the server's"
                        + " rdma.rsocket.server.port), not " + port);
            }
            if (consumeDelay.isNegative()) {
                throw new IllegalArgumentException("messaging.client.consume-delay must not be negative, not "
                        + consumeDelay);
            }
            if (requestWindow < 1) {
                throw new IllegalArgumentException("messaging.client.request-window must be at least 1 (quotes asked"
                        + " for ahead), not " + requestWindow);
            }
            if (interval.isNegative() || interval.isZero()) {
                throw new IllegalArgumentException("messaging.client.interval must be positive, not " + interval);
            }
            if (ordersPerRound < 1) {
                throw new IllegalArgumentException("messaging.client.orders-per-round must be at least 1, not "
                        + ordersPerRound);
            }
        }
    }
}
