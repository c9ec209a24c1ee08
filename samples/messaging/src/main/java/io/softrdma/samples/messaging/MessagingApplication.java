package io.softrdma.samples.messaging;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.context.properties.EnableConfigurationProperties;

/**
 * The messaging sample: with the {@code consumer} profile (the default) an RDMA server that consumes a stream of
 * messages slowly; with the {@code producer} profile a client that sends as fast as the consumer's credits let it.
 * The consumer's pace sets the producer's: receive demand becomes credits (docs/protocol.md).
 */
@SpringBootApplication
@EnableConfigurationProperties(MessagingProperties.class)
public class MessagingApplication {

    /**
     * Runs the consumer, or the producer with {@code --spring.profiles.active=producer}.
     *
     * @param args Spring Boot arguments
     */
    public static void main(String[] args) {
        SpringApplication.run(MessagingApplication.class, args);
    }
}
