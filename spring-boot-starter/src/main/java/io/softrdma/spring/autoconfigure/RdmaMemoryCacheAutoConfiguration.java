package io.softrdma.spring.autoconfigure;

import io.micrometer.core.instrument.binder.MeterBinder;
import io.softrdma.memory.RemoteMemory;
import io.softrdma.spring.cache.RdmaCacheManager;
import io.softrdma.spring.cache.RdmaCacheMetrics;
import io.softrdma.spring.memory.RdmaMemoryProperties;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.cache.CacheManager;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The {@link RdmaCacheManager} over the {@link RemoteMemory} bean, so that {@code @Cacheable} and its kin use the RDMA
 * cache, unless the application has a CacheManager of its own or {@code rdma.memory.cache.enabled} is false; and
 * its Micrometer meters.
 */
@AutoConfiguration(after = RdmaMemoryAutoConfiguration.class,
        beforeName = "org.springframework.boot.cache.autoconfigure.CacheAutoConfiguration")
@ConditionalOnClass({RdmaCacheManager.class, CacheManager.class, RemoteMemory.class})
@ConditionalOnBean(RemoteMemory.class)
@ConditionalOnBooleanProperty(name = "rdma.memory.cache.enabled", matchIfMissing = true)
@EnableConfigurationProperties(RdmaMemoryProperties.class)
public final class RdmaMemoryCacheAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean(CacheManager.class)
    RdmaCacheManager cacheManager(RemoteMemory memory, RdmaMemoryProperties properties) {
        RdmaMemoryProperties.Cache p = properties.getCache();
        RdmaCacheManager.Builder builder = RdmaCacheManager.builder(memory).timeout(p.getTimeout());
        p.getTimeToLive().forEach(builder::ttl);
        if (!p.getCacheNames().isEmpty()) {
            builder.cacheNames(p.getCacheNames().toArray(String[]::new));
        }
        if (!p.isCacheNullValues()) {
            builder.disallowNullValues();
        }
        return builder.build();
    }

    /**
     * The meters, when Micrometer is there (a class of its own: RdmaCacheMetrics is a MeterBinder), and the manager
     * is ours: the application has no CacheManager but ours (this class is read before the manager's bean exists).
     */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(MeterBinder.class)
    @ConditionalOnMissingBean(value = CacheManager.class, ignored = RdmaCacheManager.class)
    static class MetricsConfiguration {

        @Bean
        @ConditionalOnMissingBean
        RdmaCacheMetrics rdmaCacheMetrics(RdmaCacheManager manager) {
            return new RdmaCacheMetrics(manager);
        }
    }
}
