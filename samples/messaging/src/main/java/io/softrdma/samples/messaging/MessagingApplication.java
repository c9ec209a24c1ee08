package io.softrdma.samples.messaging;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.context.properties.EnableConfigurationProperties;

/**
 * The messaging sample: Spring messaging over RSocket over RDMA. With the {@code server} profile (the default) it
 * serves the {@code @MessageMapping} routes of {@link OrderController}, {@link QuoteController} and
 * {@link EventController}; the starter starts the RSocket server from {@code rdma.rsocket.server.port}. With the
 * {@code client} profile, {@link MessagingClient} calls every route through an {@code RSocketRequester} and consumes
 * the quote stream slowly, which throttles the server's fast producer.
 *
 * <p>Thread safety: the entry point only; the beans say their own.
 */
@SpringBootApplication
@EnableConfigurationProperties(MessagingProperties.class)
public class MessagingApplication {

    /**
     * Runs the server, or the client with {@code --spring.profiles.active=client}.
     *
     * @param args Spring Boot arguments
     */
    public static void main(String[] args) {
        SpringApplication.run(MessagingApplication.class, args);
    }
}
