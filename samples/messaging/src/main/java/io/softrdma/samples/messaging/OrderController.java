package io.softrdma.samples.messaging;

import io.rsocket.exceptions.ApplicationErrorException;
import java.math.BigDecimal;
import org.springframework.context.annotation.Profile;
import org.springframework.messaging.handler.annotation.MessageExceptionHandler;
import org.springframework.messaging.handler.annotation.MessageMapping;
import org.springframework.stereotype.Controller;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Orders: request-response ({@code orders.get}) and a channel ({@code orders.process}). Plain Spring messaging:
 * nothing here knows the transport is RDMA.
 *
 * <p>Thread safety: thread-safe (the store is). Buffers: none; Spring's codecs decode the frames into objects and
 * release them.
 */
@Controller
@Profile("server")
public class OrderController {
    private final Orders orders;

    OrderController(Orders orders) {
        this.orders = orders;
    }

    /** Request-response: one order by id; an unknown id is an {@link UnknownOrderException}. */
    @MessageMapping("orders.get")
    Mono<Order> get(OrderRequest request) {
        return Mono.justOrEmpty(orders.find(request.id()))
                .switchIfEmpty(Mono.error(() -> new UnknownOrderException(request.id())));
    }

    /**
     * An unknown order is an answer like any other, not a failure of the server: it goes back to the requester as
     * RSocket's APPLICATION_ERROR with the exception's message, without the error log Spring writes for an
     * exception no handler claims.
     */
    @MessageExceptionHandler
    Mono<Order> unknown(UnknownOrderException e) {
        return Mono.error(new ApplicationErrorException(e.getMessage()));
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
