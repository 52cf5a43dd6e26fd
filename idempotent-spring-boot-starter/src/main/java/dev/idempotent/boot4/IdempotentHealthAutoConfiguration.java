package dev.idempotent.boot4;

import dev.idempotent.actuate.IdempotencyHealthCheck;
import dev.idempotent.autoconfigure.ConditionalOnIdempotentEnabled;
import dev.idempotent.autoconfigure.IdempotentAutoConfiguration;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.context.annotation.Bean;

/**
 * The {@code idempotency} health contributor ({@link IdempotencyHealthIndicator}) when Spring Boot 4's health support
 * ({@code spring-boot-health}, part of the actuator starter) is on the class path. Turn it off with
 * {@code management.health.idempotency.enabled=false}.
 *
 * @since 0.1.0
 */
@ConditionalOnIdempotentEnabled
@AutoConfiguration(after = IdempotentAutoConfiguration.class)
@ConditionalOnClass(HealthIndicator.class)
@ConditionalOnBean(IdempotencyHealthCheck.class)
@ConditionalOnEnabledHealthIndicator("idempotency")
public class IdempotentHealthAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean(name = "idempotencyHealthIndicator")
	IdempotencyHealthIndicator idempotencyHealthIndicator(IdempotencyHealthCheck check) {
		return new IdempotencyHealthIndicator(check);
	}

}
