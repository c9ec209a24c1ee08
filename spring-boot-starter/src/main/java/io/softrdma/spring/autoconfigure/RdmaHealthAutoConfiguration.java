package io.softrdma.spring.autoconfigure;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.context.annotation.Bean;

/**
 * The {@code rdma} health indicator ({@link RdmaHealthIndicator}); off with
 * {@code management.health.rdma.enabled=false}.
 */
@AutoConfiguration(after = RdmaAutoConfiguration.class)
@ConditionalOnClass({HealthIndicator.class, ConditionalOnEnabledHealthIndicator.class, RdmaActivity.class})
@ConditionalOnBean(RdmaActivity.class)
@ConditionalOnEnabledHealthIndicator("rdma")
public final class RdmaHealthAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean(name = "rdmaHealthIndicator")
    RdmaHealthIndicator rdmaHealthIndicator(RdmaActivity activity, ObjectProvider<RdmaServerLifecycle> server,
            ObjectProvider<RdmaServerStatus> others) {
        return new RdmaHealthIndicator(activity, server.getIfAvailable(), others.orderedStream().toList());
    }
}
