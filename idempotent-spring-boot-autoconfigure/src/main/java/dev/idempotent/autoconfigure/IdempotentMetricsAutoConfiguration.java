package dev.idempotent.autoconfigure;

import dev.idempotent.metrics.MicrometerClaimListener;
import dev.idempotent.metrics.MicrometerRetentionListener;
import io.micrometer.core.instrument.MeterRegistry;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/**
 * Counts claims in Micrometer when a {@link MeterRegistry} is present: meters {@code idempotent.claims} and
 * {@code idempotent.claim.duration} (see {@link MicrometerClaimListener}); and retention:
 * {@code idempotent.retention.rows}, {@code idempotent.retention.runs} and {@code idempotent.late.records} (see
 * {@link MicrometerRetentionListener}).
 *
 * @since 0.1.0
 */
@ConditionalOnIdempotentEnabled
@AutoConfiguration(afterName = { BootAutoConfigurations.METRICS_3, BootAutoConfigurations.METRICS_4,
		BootAutoConfigurations.COMPOSITE_METER_REGISTRY_3, BootAutoConfigurations.COMPOSITE_METER_REGISTRY_4 },
		before = IdempotentAutoConfiguration.class)
@ConditionalOnClass(MeterRegistry.class)
@ConditionalOnBean(MeterRegistry.class)
public class IdempotentMetricsAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	MicrometerRetentionListener idempotentMicrometerRetentionListener(MeterRegistry registry) {
		return new MicrometerRetentionListener(registry);
	}

	@Bean
	@ConditionalOnMissingBean
	MicrometerClaimListener idempotentMicrometerClaimListener(MeterRegistry registry) {
		return new MicrometerClaimListener(registry);
	}

}
