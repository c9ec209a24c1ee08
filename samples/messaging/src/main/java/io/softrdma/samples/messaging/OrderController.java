package io.softrdma.samples.messaging;

import java.math.BigDecimal;
import org.springframework.context.annotation.Profile;
import org.springframework.messaging.handler.annotation.MessageMapping;
import org.springframework.stereotype.Controller;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Orders: request-response ({@code orders.get}) and a channel ({@code orders.process}). Plain Spring messaging:
 * nothing here knows the transport is RDMA.
 *
 * <p>Thread safety: thread-safe (the store is).
 */
@Controller
@Profile("server")
public class OrderController {
    private final Orders orders;

    OrderController(Orders orders) {
        this.orders = orders;
    }

    /**
     * Request-response: one order by id; an unknown id is an error the requester receives (RSocket's
     * APPLICATION_ERROR with this message).
     */
    @MessageMapping("orders.get")
    Mono<Order> get(OrderRequest request) {
        return Mono.justOrEmpty(orders.find(request.id())).switchIfEmpty(Mono.error(() ->
                new IllegalArgumentException("no order " + request.id())));
    }

    /**
     * Channel: a status for each order, in the order they come; an accepted order is stored, so {@code orders.get}
     * finds it. Both directions flow with the requester's and this side's demand (REQUEST_N each way).
     */
    @MessageMapping("orders.process")
    Flux<OrderStatus> process(Flux<Order> incoming) {
        return incoming.map(this::process);
    }

    private OrderStatus process(Order order) {
        if (order.quantity() < 1) {
            return new OrderStatus(order.id(), OrderStatus.State.REJECTED, BigDecimal.ZERO,
                    "quantity must be at least 1, not " + order.quantity());
        }
        if (order.unitPrice() == null || order.unitPrice().signum() < 0) {
            return new OrderStatus(order.id(), OrderStatus.State.REJECTED, BigDecimal.ZERO,
                    "unit price must be given and not negative");
        }
        orders.store(order);
        return new OrderStatus(order.id(), OrderStatus.State.ACCEPTED, order.total(), "");
    }
}
