package io.softrdma.spring.memory;

import io.softrdma.memory.RemoteMemory;

/**
 * Changes the {@link RemoteMemory} bean's builder after the {@code rdma.memory.client.*} properties are applied: a
 * codec, record attempts, a clock. Beans of this type are applied in order
 * ({@link org.springframework.core.annotation.Order}).
 *
 * <p>Thread safety: called once, on the thread that creates the beans.
 */
@FunctionalInterface
public interface RemoteMemoryCustomizer {
    /**
     * @param builder the builder, to change in place
     */
    void customize(RemoteMemory.Builder builder);
}
