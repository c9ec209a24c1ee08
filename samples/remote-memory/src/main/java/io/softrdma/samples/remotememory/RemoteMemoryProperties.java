package io.softrdma.samples.remotememory;

import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.util.unit.DataSize;

/**
 * The sample's settings ({@code remote-memory.*}).
 *
 * @param size the region the service lends
 * @param seed the pattern the service fills it with at start
 * @param serviceUrl where the client finds the service's HTTP endpoints
 * @param interval how often the client runs its check
 * @param rounds how many checks the client runs before it exits; 0 for as long as it runs
 */
@ConfigurationProperties("remote-memory")
public record RemoteMemoryProperties(DataSize size, long seed, String serviceUrl, Duration interval, int rounds) {
    public RemoteMemoryProperties {
        size = size == null ? DataSize.ofMegabytes(1) : size;
        serviceUrl = serviceUrl == null ? "http://localhost:8080" : serviceUrl;
        interval = interval == null ? Duration.ofSeconds(5) : interval;
    }
}
