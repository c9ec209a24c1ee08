package io.softrdma.spring.autoconfigure;

import io.micrometer.core.instrument.MeterRegistry;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/**
 * SoftRDMA's Micrometer meters ({@link RdmaMeterBinder}) when the application has a {@link MeterRegistry}.
 */
@AutoConfiguration(after = RdmaAutoConfiguration.class,
        afterName = "org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration")
@ConditionalOnClass({MeterRegistry.class, RdmaActivity.class})
@ConditionalOnBean({MeterRegistry.class, RdmaActivity.class})
public final class RdmaMetricsAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean
    RdmaMeterBinder rdmaMeterBinder(RdmaActivity activity) {
        return new RdmaMeterBinder(activity);
    }
}
