package io.softrdma.samples.remotememory;

import io.softrdma.memory.AccessPolicy;
import io.softrdma.memory.RegionAccess;
import io.softrdma.spring.memory.RdmaMemoryServer;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Profile;

/**
 * The service side. Its regions and cache are declared in {@code application.yaml} ({@code rdma.memory.*}); who may
 * use them is this {@link AccessPolicy}: the clients that present the sample's credential (a Secret in Kubernetes,
 * so it is not in the properties) may count visits (atomics on {@code counters}), read prices, and read and fill the
 * {@code products} cache. Everyone else is refused, with the reason.
 */
@Configuration(proxyBeanMethods = false)
@Profile("service")
public class ServiceConfiguration {

    // tag::remote-memory-policy[]
    @Bean
    AccessPolicy storefrontClients(SampleProperties sample) {
        String storefront = sample.credential();
        return AccessPolicy.grant(storefront, "counters", RegionAccess.READ, RegionAccess.ATOMIC)
                .or(AccessPolicy.grant(storefront, "prices", RegionAccess.READ))
                .or(AccessPolicy.grant(storefront, "cache.products", RegionAccess.READ, RegionAccess.WRITE));
    }
    // end::remote-memory-policy[]

    @Bean(destroyMethod = "stop")
    PriceBoard priceBoard(RdmaMemoryServer memory, SampleProperties sample) {
        return new PriceBoard(memory, sample.skus(), sample.interval());
    }
}
