package io.softrdma.samples.remotememory;

import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Profile;

/** The service side: the region, its lending to RDMA sessions, and the HTTP endpoints that describe it. */
@Configuration(proxyBeanMethods = false)
@Profile("service")
public class ServiceConfiguration {

    @Bean(destroyMethod = "close")
    SharedRegion sharedRegion(RemoteMemoryProperties properties) {
        return new SharedRegion(Math.toIntExact(properties.size().toBytes()), properties.seed());
    }

    @Bean
    RegionService regionService(SharedRegion region) {
        return new RegionService(region);
    }
}
