package io.softrdma.samples.remotememory;

import java.util.concurrent.atomic.AtomicInteger;
import org.springframework.cache.annotation.Cacheable;
import org.springframework.context.annotation.Profile;
import org.springframework.stereotype.Service;

/**
 * The client's catalog: loading a product stands for a slow system of record; {@code @Cacheable} keeps what it loads
 * in the service's RDMA cache {@code products}, where every client pod finds it with one-sided Reads (the starter's
 * {@code RdmaCacheManager}). Spring's cache abstraction, unchanged.
 *
 * <p>Thread safety: thread-safe.
 */
@Service
@Profile("client")
public class ProductCatalog {
    private final AtomicInteger loads = new AtomicInteger();

    // tag::remote-memory-cacheable[]
    @Cacheable("products")
    public Product product(String id) {
        loads.incrementAndGet();
        return new Product(id, "Product " + id, Math.floorMod(id.hashCode(), 16));
    }
    // end::remote-memory-cacheable[]

    /** How many products were loaded rather than found in the cache. */
    public int loads() {
        return loads.get();
    }
}
