package dev.idempotent.autoconfigure;

import static dev.idempotent.testsupport.BootLine.COMPOSITE_METER_REGISTRY;
import static dev.idempotent.testsupport.BootLine.DATA_SOURCE;
import static dev.idempotent.testsupport.BootLine.DATA_SOURCE_TRANSACTION_MANAGER;
import static dev.idempotent.testsupport.BootLine.KAFKA;
import static dev.idempotent.testsupport.BootLine.METRICS;

import dev.idempotent.actuate.IdempotencyEndpoint;
import dev.idempotent.boot4.IdempotencyHealthIndicator;
import dev.idempotent.boot4.IdempotentHealthAutoConfiguration;
import dev.idempotent.jdbc.ClaimInspector;
import org.junit.jupiter.api.Test;

import org.springframework.boot.actuate.autoconfigure.endpoint.EndpointAutoConfiguration;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The actuator support is optional: present with Spring Boot's health and actuator modules, absent without. Like
 * every endpoint, the {@code idempotency} endpoint exists only when it is exposed (here over the web).
 */
class IdempotentActuatorAutoConfigurationTest {

	private final WebApplicationContextRunner runner = new WebApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DATA_SOURCE,
				DATA_SOURCE_TRANSACTION_MANAGER, KAFKA,
				METRICS, COMPOSITE_METER_REGISTRY,
				EndpointAutoConfiguration.class, IdempotentAutoConfiguration.class,
				IdempotentHealthAutoConfiguration.class, IdempotentEndpointAutoConfiguration.class))
		.withPropertyValues("spring.datasource.url=jdbc:h2:mem:actuator;MODE=MySQL;DB_CLOSE_DELAY=-1",
				"spring.kafka.bootstrap-servers=127.0.0.1:9", "management.endpoints.web.exposure.include=idempotency");

	@Test
	void contributesTheHealthIndicatorAndTheEndpoint() {
		this.runner.run((context) -> {
			assertThat(context).hasSingleBean(ClaimInspector.class)
				.hasSingleBean(IdempotencyEndpoint.class)
				.hasBean("idempotencyHealthIndicator");
			Health health = context.getBean(IdempotencyHealthIndicator.class).health();
			assertThat(health.getStatus()).isEqualTo(Status.UP);
			assertThat(health.getDetails()).containsEntry("dialect", "h2");
			assertThat(context.getBean(IdempotencyEndpoint.class).summary().keysMasked()).isTrue();
		});
	}

	@Test
	void keysAreShownInClearOnlyWhenConfigured() {
		this.runner.withPropertyValues("idempotent.mask-keys=false")
			.run((context) -> assertThat(context.getBean(IdempotencyEndpoint.class).summary().keysMasked()).isFalse());
	}

	@Test
	void theHealthIndicatorCanBeTurnedOff() {
		this.runner.withPropertyValues("management.health.idempotency.enabled=false")
			.run((context) -> assertThat(context).doesNotHaveBean(IdempotencyHealthIndicator.class)
				.hasSingleBean(IdempotencyEndpoint.class));
	}

	@Test
	void theEndpointIsOnlyCreatedWhenExposed() {
		this.runner.withPropertyValues("management.endpoints.web.exposure.include=health")
			.run((context) -> assertThat(context).doesNotHaveBean(IdempotencyEndpoint.class)
				.hasBean("idempotencyHealthIndicator"));
	}

	@Test
	void theEndpointCanBeTurnedOff() {
		this.runner.withPropertyValues("management.endpoint.idempotency.access=NONE")
			.run((context) -> assertThat(context).doesNotHaveBean(IdempotencyEndpoint.class));
	}

	@Test
	void backsOffWithoutSpringBootsHealthAndActuatorModules() {
		this.runner.withClassLoader(new FilteredClassLoader(HealthIndicator.class, Endpoint.class)).run((context) -> {
			assertThat(context).hasNotFailed().hasSingleBean(ClaimInspector.class);
			assertThat(context).doesNotHaveBean(IdempotencyHealthIndicator.class).doesNotHaveBean(IdempotencyEndpoint.class);
		});
	}

	@Test
	void stepsAsideForTheApplicationsOwnBeans() {
		this.runner
			.withBean("idempotencyHealthIndicator", HealthIndicator.class, () -> () -> Health.outOfService().build())
			.run((context) -> assertThat(context).doesNotHaveBean(IdempotencyHealthIndicator.class)
				.hasBean("idempotencyHealthIndicator"));
	}

}
