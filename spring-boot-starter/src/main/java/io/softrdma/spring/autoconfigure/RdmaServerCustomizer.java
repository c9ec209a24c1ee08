package io.softrdma.spring.autoconfigure;

import io.softrdma.reactive.RdmaServer;

/**
 * Adjusts the auto-configured {@link RdmaServer} after the {@code rdma.server.*} properties are applied: an
 * accept decision, reactor-netty settings, anything the properties do not cover. Customizer beans run in
 * {@link org.springframework.core.annotation.Order} order.
 */
@FunctionalInterface
public interface RdmaServerCustomizer {
    /**
     * Returns the server to use: {@code server} with changes (it is immutable; every setter returns a new one).
     *
     * @param server the server so far
     * @return the server with this customizer's changes
     */
    RdmaServer customize(RdmaServer server);
}
