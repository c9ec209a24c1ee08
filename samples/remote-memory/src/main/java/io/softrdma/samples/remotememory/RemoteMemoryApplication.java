package io.softrdma.samples.remotememory;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.context.properties.EnableConfigurationProperties;

/**
 * The remote-memory sample, SoftRDMA's remote memory as a product: with the {@code service} profile (the default) a
 * service that owns named regions ({@code counters}, {@code prices}) and an RDMA cache ({@code products}), declared
 * in {@code application.yaml}; with the {@code client} profile a storefront that counts visits with a remote
 * Fetch-and-Add, reads prices as versioned records, and caches products with {@code @Cacheable} — one-sided, the
 * service's code never running for a read.
 */
@SpringBootApplication
@EnableConfigurationProperties(SampleProperties.class)
public class RemoteMemoryApplication {

    /**
     * Runs the service, or the client with {@code --spring.profiles.active=client}.
     *
     * @param args Spring Boot arguments
     */
    public static void main(String[] args) {
        SpringApplication.run(RemoteMemoryApplication.class, args);
    }
}
