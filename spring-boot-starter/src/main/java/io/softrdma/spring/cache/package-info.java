/**
 * Spring's cache abstraction on the RDMA cache: {@link io.softrdma.spring.cache.RdmaCacheManager} makes
 * {@code @Cacheable}, {@code @CachePut} and {@code @CacheEvict} read and write
 * {@link io.softrdma.memory.cache.RdmaCache}s (GETs one-sided), and {@link io.softrdma.spring.cache.RdmaCacheMetrics}
 * reports them to Micrometer.
 */
package io.softrdma.spring.cache;
