package io.softrdma.spring.memory;

import io.softrdma.memory.cache.CacheOwner;
import java.util.List;

/**
 * The caches the application's memory server owns, from {@code rdma.memory.cache.caches.*}: declared on the server
 * before it binds ({@link CacheOwner#declareOn}), started once it is bound and stopped with it by
 * {@link RdmaMemoryServer}. One bean, so that the owner that serves the requests is the one that was started.
 *
 * <p>Thread safety: immutable.
 *
 * @param owners the owners, in the order declared
 */
public record OwnedCaches(List<CacheOwner> owners) {
    public OwnedCaches {
        owners = List.copyOf(owners);
    }
}
