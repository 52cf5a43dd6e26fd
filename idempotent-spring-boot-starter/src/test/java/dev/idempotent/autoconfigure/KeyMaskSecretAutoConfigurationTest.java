package dev.idempotent.autoconfigure;

import dev.idempotent.claim.ClaimOutcome;
import dev.idempotent.claim.IdempotentTemplate;
import dev.idempotent.key.KeyMasker;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import static dev.idempotent.testsupport.BootLine.DATA_SOURCE;
import static dev.idempotent.testsupport.BootLine.DATA_SOURCE_TRANSACTION_MANAGER;
import static dev.idempotent.testsupport.BootLine.KAFKA;
import static org.assertj.core.api.Assertions.assertThat;

/** {@code idempotent.key-mask-secret} keys the fingerprints of masked keys in what the starter logs. */
@ExtendWith(OutputCaptureExtension.class)
class KeyMaskSecretAutoConfigurationTest {

	private static final String SECRET = "correct horse battery staple";

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DATA_SOURCE,
				DATA_SOURCE_TRANSACTION_MANAGER, KAFKA,
				IdempotentAutoConfiguration.class))
		.withPropertyValues("spring.datasource.url=jdbc:h2:mem:keymask;MODE=MySQL;DB_CLOSE_DELAY=-1",
				"spring.kafka.bootstrap-servers=127.0.0.1:9");

	/** HMAC-SHA256 of ORD-12345 under the secret starts with 93e41f33 (see KeyMaskerTest). */
	@Test
	void theHitLogMasksKeysWithTheConfiguredSecret(CapturedOutput output) {
		this.runner.withPropertyValues("idempotent.key-mask-secret=" + SECRET).run((context) -> {
			IdempotentTemplate template = context.getBean(IdempotentTemplate.class);
			template.execute("ledger", "ORD-12345", () -> "booked");
			ClaimOutcome<String> again = template.execute("ledger", "ORD-12345", () -> "booked again");

			assertThat(again).isInstanceOf(ClaimOutcome.Skipped.class);
			assertThat(output).contains("Idempotent hit: scope=ledger key=OR*****45#93e41f33").doesNotContain("ORD-12345");
			assertThat(context.getBean(IdempotentProperties.class).keyMasker().mask("ORD-12345"))
				.isEqualTo(KeyMasker.of(true, SECRET).mask("ORD-12345"));
		});
	}

	@Test
	void aSecretTooShortToResistGuessingFailsTheStartup() {
		this.runner.withPropertyValues("idempotent.key-mask-secret=hunter2").run((context) -> assertThat(context)
			.getFailure()
			.rootCause()
			.isInstanceOf(IllegalArgumentException.class)
			.hasMessageContaining("idempotent.key-mask-secret must have at least 16 characters (it has 7)"));
	}

	@Test
	void withoutASecretMasksUseTheProcessSecret() {
		this.runner.run((context) -> assertThat(context.getBean(IdempotentProperties.class).keyMasker())
			.isSameAs(KeyMasker.MASKED));
	}

}
