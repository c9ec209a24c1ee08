package io.softrdma.spring.autoconfigure;

import io.softrdma.reactive.RdmaClient;

/**
 * Adjusts the auto-configured {@link RdmaClient} after the {@code rdma.client.*} properties are applied.
 * Customizer beans run in {@link org.springframework.core.annotation.Order} order.
 */
@FunctionalInterface
public interface RdmaClientCustomizer {
    /**
     * Returns the client to use: {@code client} with changes (it is immutable; every setter returns a new one).
     *
     * @param client the client so far
     * @return the client with this customizer's changes
     */
    RdmaClient customize(RdmaClient client);
}
