package io.softrdma.samples.remotememory;

import io.softrdma.memory.RemoteMemory;
import org.springframework.context.annotation.Profile;
import org.springframework.stereotype.Component;
import reactor.core.publisher.Mono;

/**
 * The client's use of the service's memory, each a line: counting a visit is one RFC 7306 Fetch-and-Add on the
 * service's {@code counters} region, and reading a price one (checked, retried if torn) RDMA Read of a versioned
 * record in {@code prices}. The service's code runs for neither; {@link RemoteMemory} resolves the regions, keeps
 * their leases, and reconnects and re-resolves when it must.
 *
 * <p>Thread safety: thread-safe, as RemoteMemory is; the values it emits are decoded copies (no buffer to release).
 */
@Component
@Profile("client")
public class Storefront {
    private final RemoteMemory memory;

    Storefront(RemoteMemory memory) {
        this.memory = memory;
    }

    // tag::remote-memory-storefront[]
    /** Counts a visit; the count before it. */
    public Mono<Long> visit() {
        return memory.region("counters").flatMap(counters -> counters.fetchAdd(Layout.VISITS, 1));
    }

    /** The price of {@code sku} as the service last published it: never half of one. */
    public Mono<Price> price(int sku) {
        return memory.region("prices").flatMap(prices -> prices.read(Layout.price(sku), Price.class));
    }
    // end::remote-memory-storefront[]
}
