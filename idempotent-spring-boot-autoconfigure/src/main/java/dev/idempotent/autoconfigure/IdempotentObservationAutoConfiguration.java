package dev.idempotent.autoconfigure;

import dev.idempotent.observation.BatchClaimObservationConvention;
import dev.idempotent.observation.ClaimObservationConvention;
import dev.idempotent.observation.ClaimObserver;
import dev.idempotent.observation.ObservationClaimObserver;
import io.micrometer.observation.ObservationRegistry;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;

/**
 * Observes claims with Micrometer Observation when the application has an {@link ObservationRegistry} (Spring Boot's
 * actuator provides one): an observation per claim ({@code idempotent.claim}) and per batch claim
 * ({@code idempotent.claim.batch}), children of spring-kafka's observation of the delivery when
 * {@code spring.kafka.listener.observation-enabled=true}; see {@link ObservationClaimObserver} and
 * docs/observability.md. Keys in the observations are rendered like those in the logs ({@code idempotent.mask-keys},
 * {@code idempotent.key-mask-secret}). A {@link ClaimObservationConvention} or {@link BatchClaimObservationConvention}
 * bean replaces the default names and keys; a {@link ClaimObserver} bean replaces the observer;
 * {@code idempotent.observation.enabled=false} turns the observations off.
 *
 * @since 0.1.0
 */
@ConditionalOnIdempotentEnabled
@AutoConfiguration(afterName = { BootAutoConfigurations.OBSERVATION_3, BootAutoConfigurations.OBSERVATION_4 },
		before = IdempotentAutoConfiguration.class)
@ConditionalOnClass(ObservationRegistry.class)
@ConditionalOnBean(ObservationRegistry.class)
@ConditionalOnBooleanProperty(name = "idempotent.observation.enabled", matchIfMissing = true)
@EnableConfigurationProperties(IdempotentProperties.class)
public class IdempotentObservationAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean(ClaimObserver.class)
	ObservationClaimObserver idempotentClaimObserver(ObservationRegistry registry, IdempotentProperties properties,
			ObjectProvider<ClaimObservationConvention> convention,
			ObjectProvider<BatchClaimObservationConvention> batchConvention) {
		return new ObservationClaimObserver(registry, properties.keyMasker(), convention.getIfUnique(),
				batchConvention.getIfUnique());
	}

}
