package io.softrdma.samples.remotememory;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.context.properties.EnableConfigurationProperties;

/**
 * The remote-memory sample: with the {@code service} profile (the default) a service that lends a memory region
 * to every RDMA client and tells each its handle, over RDMA and over HTTP; with the {@code client} profile a
 * client that RDMA-Reads and RDMA-Writes that memory and checks it against the service's own checksum.
 */
@SpringBootApplication
@EnableConfigurationProperties(RemoteMemoryProperties.class)
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
