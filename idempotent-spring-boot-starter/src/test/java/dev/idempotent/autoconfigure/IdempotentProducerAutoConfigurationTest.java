package dev.idempotent.autoconfigure;

import java.util.List;

import dev.idempotent.producer.IdempotencyKeyProducerInterceptor;
import dev.idempotent.producer.CountingProducerInterceptor;
import dev.idempotent.producer.ProducerSettingsCheck;

import org.apache.kafka.clients.producer.ProducerConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.kafka.core.DefaultKafkaProducerFactory;
import org.springframework.kafka.core.ProducerFactory;

import static dev.idempotent.testsupport.BootLine.KAFKA;
import static dev.idempotent.testsupport.BootLine.KEY_HEADER;
import static dev.idempotent.testsupport.BootLine.KEY_HEADER_CUSTOMIZER;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The producer side's auto-configuration, without any database: the key-header interceptor only on request and
 * after the application's interceptors, and the startup warning about unsafe producer settings.
 */
@ExtendWith(OutputCaptureExtension.class)
class IdempotentProducerAutoConfigurationTest {

	private static final String WARNING = "Producer factory '";

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(KAFKA, IdempotentProducerAutoConfiguration.class,
				KEY_HEADER))
		.withPropertyValues("spring.kafka.bootstrap-servers=127.0.0.1:9");

	@Test
	void addsNoInterceptorUnlessAskedAndStaysQuietOnKafkasDefaults(CapturedOutput output) {
		this.runner.run((context) -> {
			assertThat(context).hasNotFailed()
				.doesNotHaveBean(KEY_HEADER_CUSTOMIZER)
				.hasSingleBean(ProducerSettingsCheck.class);
			assertThat(context.getBean(ProducerFactory.class).getConfigurationProperties())
				.doesNotContainKey(ProducerConfig.INTERCEPTOR_CLASSES_CONFIG);
		});
		assertThat(output).doesNotContain(WARNING);
	}

	@Test
	void appendsTheInterceptorAfterTheApplicationsOwn() {
		this.runner
			.withPropertyValues("idempotent.producer.add-key-header=true", "idempotent.key-header=x-key",
					"spring.kafka.producer.properties[interceptor.classes]=" + CountingProducerInterceptor.class.getName())
			.run((context) -> {
				assertThat(context).hasSingleBean(KEY_HEADER_CUSTOMIZER);
				DefaultKafkaProducerFactory<?, ?> factory = context.getBean(DefaultKafkaProducerFactory.class);
				assertThat(factory.getConfigurationProperties().get(ProducerConfig.INTERCEPTOR_CLASSES_CONFIG))
					.isEqualTo(List.of(CountingProducerInterceptor.class.getName(), IdempotencyKeyProducerInterceptor.class));
				assertThat(factory.getConfigurationProperties())
					.containsEntry(IdempotencyKeyProducerInterceptor.KEY_HEADER_CONFIG, "x-key");
			});
	}

	@Test
	void warnsAboutAcksOtherThanAllAndTheIdempotenceItTurnsOff(CapturedOutput output) {
		this.runner.withPropertyValues("spring.kafka.producer.acks=1").run((context) -> assertThat(context).hasNotFailed());
		assertThat(output).contains("WARN")
			.contains("Producer factory 'kafkaProducerFactory' uses acks=1: a record the partition leader acknowledged "
					+ "is lost")
			.contains("Set spring.kafka.producer.acks=all")
			.contains("Producer factory 'kafkaProducerFactory' is not idempotent (enable.idempotence turned off by the "
					+ "Kafka client because of acks=1)");
	}

	@Test
	void warnsAboutIdempotenceTurnedOffExplicitly(CapturedOutput output) {
		this.runner.withPropertyValues("spring.kafka.producer.properties[enable.idempotence]=false", "spring.kafka.producer.acks=-1")
			.run((context) -> assertThat(context).hasNotFailed());
		assertThat(output).contains("Producer factory 'kafkaProducerFactory' is not idempotent (enable.idempotence=false)")
			.contains("a send retried after a timeout can be written twice")
			.doesNotContain("uses acks=");
	}

	@Test
	void theWarningCanBeTurnedOff(CapturedOutput output) {
		this.runner.withPropertyValues("spring.kafka.producer.acks=0", "idempotent.producer.warn-unsafe-settings=false")
			.run((context) -> assertThat(context).doesNotHaveBean(ProducerSettingsCheck.class));
		assertThat(output).doesNotContain(WARNING);
	}

}
