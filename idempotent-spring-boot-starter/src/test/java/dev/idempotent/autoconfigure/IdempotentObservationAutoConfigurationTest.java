package dev.idempotent.autoconfigure;

import dev.idempotent.claim.IdempotentTemplate;
import dev.idempotent.key.KeyMasker;
import dev.idempotent.observation.ClaimObservationContext;
import dev.idempotent.observation.ClaimObservationConvention;
import dev.idempotent.observation.ClaimObserver;
import dev.idempotent.observation.DefaultClaimObservationConvention;
import dev.idempotent.observation.ObservationClaimObserver;
import io.micrometer.common.KeyValues;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.observation.tck.TestObservationRegistry;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import static dev.idempotent.testsupport.BootLine.DATA_SOURCE;
import static dev.idempotent.testsupport.BootLine.DATA_SOURCE_TRANSACTION_MANAGER;
import static dev.idempotent.testsupport.BootLine.KAFKA;
import static dev.idempotent.testsupport.BootLine.OBSERVATION;
import static io.micrometer.observation.tck.TestObservationRegistryAssert.assertThat;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The observation auto-configuration: an observer on the executors when the application has an
 * {@link ObservationRegistry}, none without one or when turned off, and the application's convention honoured.
 */
class IdempotentObservationAutoConfigurationTest {

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DATA_SOURCE,
				DATA_SOURCE_TRANSACTION_MANAGER, KAFKA,
				IdempotentAutoConfiguration.class, IdempotentObservationAutoConfiguration.class))
		.withPropertyValues("spring.datasource.url=jdbc:h2:mem:observations;MODE=MySQL;DB_CLOSE_DELAY=-1",
				"spring.kafka.bootstrap-servers=127.0.0.1:9");

	@Test
	void claimsAreObservedInTheApplicationsRegistryWithKeysMaskedAsInTheLogs() {
		this.runner.withUserConfiguration(TestRegistry.class).run((context) -> {
			assertThat(context).hasSingleBean(ObservationClaimObserver.class);
			TestObservationRegistry registry = context.getBean(TestObservationRegistry.class);

			context.getBean(IdempotentTemplate.class).execute("autoconfig-observed", "order-0001-xyz", () -> "done");

			assertThat(registry).hasSingleObservationThat()
				.hasNameEqualTo(DefaultClaimObservationConvention.NAME)
				.hasLowCardinalityKeyValue("idempotent.outcome", "claimed")
				.hasHighCardinalityKeyValue("idempotent.key", KeyMasker.MASKED.mask("order-0001-xyz"));
		});
	}

	@Test
	void aRejectedKeyReachesTheObserverThroughTheClaimListeners() {
		this.runner.withUserConfiguration(TestRegistry.class).run((context) -> {
			TestObservationRegistry registry = context.getBean(TestObservationRegistry.class);

			org.assertj.core.api.Assertions
				.assertThatThrownBy(() -> context.getBean(IdempotentTemplate.class).execute("autoconfig-rejected", " ",
						() -> "never"))
				.isInstanceOf(dev.idempotent.key.InvalidIdempotencyKeyException.class);

			assertThat(registry).hasSingleObservationThat().hasLowCardinalityKeyValue("idempotent.outcome", "rejected");
		});
	}

	@Test
	void theApplicationsConventionReplacesTheDefault() {
		this.runner.withUserConfiguration(TestRegistry.class, TeamConvention.class).run((context) -> {
			context.getBean(IdempotentTemplate.class).execute("autoconfig-convention", "order-0002", () -> "done");

			assertThat(context.getBean(TestObservationRegistry.class)).hasSingleObservationThat()
				.hasLowCardinalityKeyValue("team", "payments");
		});
	}

	@Test
	void nothingIsObservedWithoutARegistryOrWhenTurnedOff() {
		this.runner.run((context) -> assertThat(context).doesNotHaveBean(ClaimObserver.class));
		this.runner.withConfiguration(AutoConfigurations.of(OBSERVATION))
			.withPropertyValues("idempotent.observation.enabled=false")
			.run((context) -> assertThat(context).hasSingleBean(ObservationRegistry.class)
				.doesNotHaveBean(ClaimObserver.class));
		this.runner.withConfiguration(AutoConfigurations.of(OBSERVATION))
			.run((context) -> assertThat(context).hasSingleBean(ObservationClaimObserver.class));
	}

	@Configuration(proxyBeanMethods = false)
	static class TestRegistry {

		@Bean
		TestObservationRegistry observationRegistry() {
			return TestObservationRegistry.create();
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class TeamConvention {

		@Bean
		ClaimObservationConvention teamConvention() {
			return new DefaultClaimObservationConvention() {

				@Override
				public KeyValues getLowCardinalityKeyValues(ClaimObservationContext context) {
					return super.getLowCardinalityKeyValues(context).and("team", "payments");
				}

			};
		}

	}

}
