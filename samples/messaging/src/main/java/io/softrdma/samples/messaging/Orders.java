package io.softrdma.samples.messaging;

import java.math.BigDecimal;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import org.springframework.context.annotation.Profile;
import org.springframework.stereotype.Component;

/**
 * The server's orders, in memory: three to begin with ({@code 1001} to {@code 1003}), and every order the channel
 * {@code orders.process} accepts.
 *
 * <p>Thread safety: thread-safe.
 */
@Component
@Profile("server")
public class Orders {
    private final ConcurrentMap<String, Order> byId = new ConcurrentHashMap<>();

    Orders() {
        for (Order o : new Order[] {
                new Order("1001", "registered memory, 1 MiB", 2, new BigDecimal("12.50")),
                new Order("1002", "queue pair", 1, new BigDecimal("99.00")),
                new Order("1003", "completion queue", 4, new BigDecimal("7.25"))}) {
            byId.put(o.id(), o);
        }
    }

    /** The order with this id, if there is one. */
    Optional<Order> find(String id) {
        return Optional.ofNullable(byId.get(id));
    }

    /** Stores an accepted order, replacing one with the same id. */
    void store(Order order) {
        byId.put(order.id(), order);
    }
}
