package dev.idempotent.kafka.startup;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Which spring-kafka versions retry a record that failed under {@code asyncAcks} (from 4.0.4; every 3.x and 4.0.0
 * to 4.0.3 stop the consumer's partitions instead).
 */
class AsyncAcksRetriesTest {

	@Test
	void fromSpringKafka404() {
		assertThat(AsyncAcksRetries.supported("3.3.10", false)).isFalse();
		assertThat(AsyncAcksRetries.supported("3.3.16", false)).isFalse();
		assertThat(AsyncAcksRetries.supported("4.0.0", true)).isFalse();
		assertThat(AsyncAcksRetries.supported("4.0.3", true)).isFalse();
		assertThat(AsyncAcksRetries.supported("4.0.4", true)).isTrue();
		assertThat(AsyncAcksRetries.supported("4.0.10", true)).isTrue();
		assertThat(AsyncAcksRetries.supported("4.1.0-M2", true)).isTrue();
		assertThat(AsyncAcksRetries.supported("5.0.0-SNAPSHOT", true)).isTrue();
	}

	@Test
	void withoutAVersionSpringKafka4IsTakenToBeFixedAnd3Not() {
		assertThat(AsyncAcksRetries.supported(null, true)).isTrue();
		assertThat(AsyncAcksRetries.supported(null, false)).isFalse();
		assertThat(AsyncAcksRetries.supported("custom", false)).isFalse();
	}

	@Test
	void theSpringKafkaOnTheClassPathIsRead() {
		// this module compiles and tests against spring-kafka 3.3
		assertThat(AsyncAcksRetries.springKafkaVersion()).startsWith("3.3.");
		assertThat(AsyncAcksRetries.supported()).isFalse();
	}

}
