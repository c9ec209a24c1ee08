package io.softrdma.spring.memory;

import io.softrdma.memory.MemoryServer;

/**
 * Changes the memory server the starter builds from {@code rdma.memory.*}, before it binds: regions declared in code,
 * {@link io.softrdma.memory.MemoryService}s, a lease timer. Beans of this type are applied in order
 * ({@link org.springframework.core.annotation.Order}), after the properties and the {@code AccessPolicy} beans.
 *
 * <p>Thread safety: called once, on the thread that creates the beans.
 */
@FunctionalInterface
public interface MemoryServerCustomizer {
    /**
     * @param server the server so far
     * @return the server to use (the builder is immutable: return what its methods return)
     */
    MemoryServer customize(MemoryServer server);
}
