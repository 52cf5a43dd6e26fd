package dev.idempotent.autoconfigure;

import javax.sql.DataSource;

import dev.idempotent.actuate.IdempotencyHealthIndicator;
import dev.idempotent.jdbc.ClaimInspector;
import dev.idempotent.jdbc.SchemaValidator;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.context.annotation.Bean;

/**
 * The {@code idempotency} health contributor ({@link IdempotencyHealthIndicator}) when Spring Boot's health support
 * ({@code spring-boot-health}, part of the actuator starter) is on the class path. Turn it off with
 * {@code management.health.idempotency.enabled=false}.
 *
 * @since 0.1.0
 */
@AutoConfiguration(after = IdempotentAutoConfiguration.class)
@ConditionalOnClass(HealthIndicator.class)
@ConditionalOnBean(ClaimInspector.class)
@ConditionalOnEnabledHealthIndicator("idempotency")
public class IdempotentHealthAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean(name = "idempotencyHealthIndicator")
	IdempotencyHealthIndicator idempotencyHealthIndicator(DataSource dataSource, ClaimInspector inspector,
			IdempotentProperties properties, ObjectProvider<IdempotentSchemaValidation> startupCheck) {
		// the startup check's validator when there is one: it knows the fingerprint column and the archive table
		IdempotentSchemaValidation validation = startupCheck.getIfAvailable();
		SchemaValidator validator = (validation != null) ? validation.validator()
				: new SchemaValidator(dataSource, inspector.getTable(), inspector.getDialect(),
						properties.getMaxKeyLength());
		return new IdempotencyHealthIndicator(inspector, validator);
	}

}
