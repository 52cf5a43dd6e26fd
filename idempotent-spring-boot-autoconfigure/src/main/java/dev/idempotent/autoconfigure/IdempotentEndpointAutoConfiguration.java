package dev.idempotent.autoconfigure;

import dev.idempotent.actuate.IdempotencyEndpoint;
import dev.idempotent.audit.Audits;
import dev.idempotent.jdbc.ClaimInspector;
import io.micrometer.core.instrument.MeterRegistry;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/**
 * The {@code idempotency} actuator endpoint ({@link IdempotencyEndpoint}) when Spring Boot Actuator and Micrometer
 * are on the class path. Like every endpoint, it is exposed over HTTP only when listed in
 * {@code management.endpoints.web.exposure.include}.
 *
 * @since 0.1.0
 */
@ConditionalOnIdempotentEnabled
@AutoConfiguration(after = IdempotentAutoConfiguration.class, afterName = {
		BootAutoConfigurations.COMPOSITE_METER_REGISTRY_3, BootAutoConfigurations.COMPOSITE_METER_REGISTRY_4 })
@ConditionalOnClass({ Endpoint.class, ConditionalOnAvailableEndpoint.class, MeterRegistry.class })
@ConditionalOnBean(ClaimInspector.class)
@ConditionalOnAvailableEndpoint(IdempotencyEndpoint.class)
public class IdempotentEndpointAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	IdempotencyEndpoint idempotencyEndpoint(ClaimInspector inspector, IdempotentProperties properties,
			ObjectProvider<MeterRegistry> registry, ObjectProvider<Audits> audits) {
		return new IdempotencyEndpoint(inspector, properties.keyMasker(), registry.getIfUnique(), audits);
	}

}
