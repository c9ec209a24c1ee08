package io.softrdma.samples.messaging;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.Set;
import org.springframework.context.annotation.Profile;
import org.springframework.messaging.handler.annotation.MessageMapping;
import org.springframework.stereotype.Controller;
import reactor.core.publisher.Mono;

/**
 * Events: fire-and-forget ({@code events.record}). Nothing goes back to the requester, not even an error, so the
 * meter {@code messaging.events.recorded} (per {@code type}) is how one sees them arrive.
 *
 * <p>Thread safety: thread-safe. Buffers: none; Spring's codecs decode the frame and release it.
 */
@Controller
@Profile("server")
public class EventController {
    /** The event types counted by name; others count as {@code other}, so that a client cannot add meters. */
    static final Set<String> TYPES = Set.of("order.accepted", "order.rejected", "order.read");

    private final MeterRegistry registry;

    EventController(MeterRegistry registry) {
        this.registry = registry;
    }

    /** Fire-and-forget: counts the event. */
    @MessageMapping("events.record")
    Mono<Void> record(Event event) {
        String type = TYPES.contains(event.type()) ? event.type() : "other";
        Counter.builder("messaging.events.recorded").baseUnit("events").tag("type", type)
                .description("events received by fire-and-forget on events.record").register(registry).increment();
        return Mono.empty();
    }
}
