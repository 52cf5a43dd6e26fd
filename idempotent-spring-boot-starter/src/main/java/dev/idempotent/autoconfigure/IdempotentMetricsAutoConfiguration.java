package dev.idempotent.autoconfigure;

import dev.idempotent.metrics.MicrometerClaimListener;
import io.micrometer.core.instrument.MeterRegistry;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration;
import org.springframework.context.annotation.Bean;

/**
 * Counts claims in Micrometer when a {@link MeterRegistry} is present: meters {@code idempotent.claims} and
 * {@code idempotent.claim.duration} (see {@link MicrometerClaimListener}).
 *
 * @since 0.1.0
 */
@AutoConfiguration(after = { MetricsAutoConfiguration.class, CompositeMeterRegistryAutoConfiguration.class },
		before = IdempotentAutoConfiguration.class)
@ConditionalOnClass({ MeterRegistry.class, MetricsAutoConfiguration.class })
@ConditionalOnBean(MeterRegistry.class)
public class IdempotentMetricsAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	MicrometerClaimListener idempotentMicrometerClaimListener(MeterRegistry registry) {
		return new MicrometerClaimListener(registry);
	}

}
