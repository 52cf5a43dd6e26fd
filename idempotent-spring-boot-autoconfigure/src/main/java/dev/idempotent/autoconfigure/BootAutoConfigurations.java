package dev.idempotent.autoconfigure;

/**
 * The names of Spring Boot's own auto-configurations that this library's are ordered against, as Spring Boot 3 and
 * Spring Boot 4 name them (Boot 4 moved them to packages of their own): one auto-configuration of this library
 * serves both generations, and an ordering against a class that is not on the class path is ignored.
 */
final class BootAutoConfigurations {

	static final String DATA_SOURCE_3 = "org.springframework.boot.autoconfigure.jdbc.DataSourceAutoConfiguration";

	static final String DATA_SOURCE_4 = "org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration";

	static final String TRANSACTION_MANAGER_3 =
			"org.springframework.boot.autoconfigure.jdbc.DataSourceTransactionManagerAutoConfiguration";

	static final String TRANSACTION_MANAGER_4 =
			"org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration";

	static final String KAFKA_3 = "org.springframework.boot.autoconfigure.kafka.KafkaAutoConfiguration";

	static final String KAFKA_4 = "org.springframework.boot.kafka.autoconfigure.KafkaAutoConfiguration";

	static final String METRICS_3 = "org.springframework.boot.actuate.autoconfigure.metrics.MetricsAutoConfiguration";

	static final String METRICS_4 = "org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration";

	static final String COMPOSITE_METER_REGISTRY_3 =
			"org.springframework.boot.actuate.autoconfigure.metrics.CompositeMeterRegistryAutoConfiguration";

	static final String COMPOSITE_METER_REGISTRY_4 =
			"org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration";

	static final String OBSERVATION_3 =
			"org.springframework.boot.actuate.autoconfigure.observation.ObservationAutoConfiguration";

	static final String OBSERVATION_4 =
			"org.springframework.boot.micrometer.observation.autoconfigure.ObservationAutoConfiguration";

	private BootAutoConfigurations() {
	}

}
