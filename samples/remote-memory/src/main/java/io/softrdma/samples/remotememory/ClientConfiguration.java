package io.softrdma.samples.remotememory;

import org.springframework.cache.annotation.EnableCaching;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Profile;

/**
 * The client side: {@code RemoteMemory} and the {@code RdmaCacheManager} are the starter's beans, from
 * {@code rdma.memory.client.*} and {@code rdma.memory.cache.*}; caching is Spring's, switched on here.
 */
@Configuration(proxyBeanMethods = false)
@Profile("client")
@EnableCaching
public class ClientConfiguration {

    @Bean(destroyMethod = "stop")
    StorefrontRounds storefrontRounds(Storefront storefront, ProductCatalog catalog, SampleProperties sample) {
        return new StorefrontRounds(storefront, catalog, sample);
    }
}
