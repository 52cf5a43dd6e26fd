package dev.idempotent.autoconfigure;

import java.time.Duration;
import java.util.Map;

import dev.idempotent.kafka.ReplyMode;
import org.junit.jupiter.api.Test;

import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.MapConfigurationPropertySource;

import static org.assertj.core.api.Assertions.assertThat;

/** The settings bind under their names, and the deprecated names still set what replaced them. */
class IdempotentPropertiesTest {

	@Test
	void theRetrySettingsBindUnderOnePrefix() {
		IdempotentProperties properties = bind(Map.of("idempotent.retry.max-retries", "7", "idempotent.retry.interval",
				"2s", "idempotent.retry.transient-max-interval", "1m", "idempotent.retry.transaction-retries", "9",
				"idempotent.dead-letter-suffix", "-dlt", "idempotent.default-lease", "3m", "idempotent.unstored-replies",
				"warn"));

		assertRenamedSettings(properties);
	}

	@Test
	@SuppressWarnings("removal")
	void theDeprecatedNamesStillWork() {
		IdempotentProperties properties = bind(Map.of("idempotent.error-handling.max-retries", "7",
				"idempotent.error-handling.retry-interval", "2s", "idempotent.error-handling.transient-max-interval", "1m",
				"idempotent.max-transient-retries", "9", "idempotent.error-handling.dead-letter-suffix", "-dlt",
				"idempotent.lease", "3m", "idempotent.replies", "warn"));

		assertRenamedSettings(properties);
	}

	@Test
	@SuppressWarnings("removal")
	void groupCommitsTargetDurationKeepsItsDeprecatedName() {
		IdempotentGroupCommitProperties renamed = new Binder(new MapConfigurationPropertySource(
				Map.of("idempotent.group-commit.max-wait", "250ms")))
			.bind("idempotent.group-commit", IdempotentGroupCommitProperties.class)
			.get();

		assertThat(renamed.getTargetDuration()).isEqualTo(Duration.ofMillis(250));
		assertThat(new IdempotentGroupCommitProperties().getTargetDuration()).isEqualTo(Duration.ofSeconds(1));
	}

	@Test
	void defaults() {
		IdempotentProperties properties = new IdempotentProperties();

		assertThat(properties.getRetry().getMaxRetries()).isEqualTo(3);
		assertThat(properties.getRetry().getInterval()).isEqualTo(Duration.ofMillis(500));
		assertThat(properties.getRetry().getTransientMaxInterval()).isEqualTo(Duration.ofSeconds(10));
		assertThat(properties.getRetry().getTransactionRetries()).isEqualTo(5);
		assertThat(properties.getDeadLetterSuffix()).isEqualTo(".DLT");
		assertThat(properties.getDefaultLease()).isEqualTo(Duration.ofMinutes(1));
		assertThat(properties.getUnstoredReplies()).isEqualTo(ReplyMode.REFUSE);
		assertThat(properties.isEnabled()).isTrue();
		assertThat(properties.isShadow()).isFalse();
	}

	private static void assertRenamedSettings(IdempotentProperties properties) {
		assertThat(properties.getRetry().getMaxRetries()).isEqualTo(7);
		assertThat(properties.getRetry().getInterval()).isEqualTo(Duration.ofSeconds(2));
		assertThat(properties.getRetry().getTransientMaxInterval()).isEqualTo(Duration.ofMinutes(1));
		assertThat(properties.getRetry().getTransactionRetries()).isEqualTo(9);
		assertThat(properties.getDeadLetterSuffix()).isEqualTo("-dlt");
		assertThat(properties.getDefaultLease()).isEqualTo(Duration.ofMinutes(3));
		assertThat(properties.getUnstoredReplies()).isEqualTo(ReplyMode.WARN);
	}

	private static IdempotentProperties bind(Map<String, String> settings) {
		return new Binder(new MapConfigurationPropertySource(settings)).bind("idempotent", IdempotentProperties.class)
			.get();
	}

}
