package io.softrdma.samples.remotememory;

import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * The sample's own settings ({@code remote-memory.*}); SoftRDMA's are the starter's {@code rdma.*}.
 *
 * @param credential what the clients present and the service grants the regions' rights to (in Kubernetes, from a
 *     Secret)
 * @param skus how many prices the service publishes
 * @param interval the service's price updates and the client's rounds, each this often
 *
 * <p>Thread safety: immutable.
 */
@ConfigurationProperties("remote-memory")
public record SampleProperties(String credential, int skus, Duration interval) {
    public SampleProperties {
        if (credential == null || credential.isBlank()) {
            throw new IllegalArgumentException("remote-memory.credential is not set: give the credential the clients"
                    + " present (rdma.memory.client.credential) and the service grants");
        }
        if (skus < 1 || skus > Layout.MAX_SKUS) {
            throw new IllegalArgumentException("remote-memory.skus " + skus + " must be 1 to " + Layout.MAX_SKUS);
        }
        if (interval == null || interval.isNegative() || interval.isZero()) {
            throw new IllegalArgumentException("remote-memory.interval must be positive, e.g. 5s");
        }
    }
}
