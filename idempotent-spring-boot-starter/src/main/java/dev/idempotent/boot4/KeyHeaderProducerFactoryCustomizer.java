package dev.idempotent.boot4;

import dev.idempotent.producer.KeyHeaderInstaller;

import org.springframework.boot.kafka.autoconfigure.DefaultKafkaProducerFactoryCustomizer;
import org.springframework.kafka.core.DefaultKafkaProducerFactory;

/**
 * Spring Boot 4's customizer of its producer factory that installs the idempotency key header
 * ({@link KeyHeaderInstaller}). Thread-safe (immutable).
 *
 * @since 0.1.0
 */
public class KeyHeaderProducerFactoryCustomizer implements DefaultKafkaProducerFactoryCustomizer {

	private final String header;

	/**
	 * Create the customizer.
	 * @param header the header the interceptor writes, never {@code null}
	 */
	public KeyHeaderProducerFactoryCustomizer(String header) {
		this.header = header;
	}

	@Override
	public void customize(DefaultKafkaProducerFactory<?, ?> producerFactory) {
		KeyHeaderInstaller.install(producerFactory, this.header);
	}

}
