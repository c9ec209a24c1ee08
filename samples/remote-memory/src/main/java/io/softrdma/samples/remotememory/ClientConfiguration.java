package io.softrdma.samples.remotememory;

import io.softrdma.reactive.RdmaClient;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Profile;
import org.springframework.web.reactive.function.client.WebClient;

/** The client side: the check that reads and writes the service's region. */
@Configuration(proxyBeanMethods = false)
@Profile("client")
public class ClientConfiguration {

    @Bean(destroyMethod = "close")
    RemoteMemoryCheck remoteMemoryCheck(RdmaClient client, RemoteMemoryProperties properties,
            ConfigurableApplicationContext context) {
        return new RemoteMemoryCheck(client, properties, WebClient.builder(), context);
    }
}
