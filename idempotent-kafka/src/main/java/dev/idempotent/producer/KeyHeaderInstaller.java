package dev.idempotent.producer;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;

import org.apache.kafka.clients.producer.ProducerConfig;
import org.jspecify.annotations.Nullable;

import org.springframework.kafka.core.DefaultKafkaProducerFactory;

/**
 * Adds {@link IdempotencyKeyProducerInterceptor} to the {@code interceptor.classes} of a producer factory, after the
 * interceptors already configured (which are kept), and passes it the header name; adding it twice changes nothing.
 * The starters apply it to Spring Boot's producer factory with {@code idempotent.producer.add-key-header=true}.
 * Thread-safe (stateless).
 *
 * @since 0.1.0
 */
public final class KeyHeaderInstaller {

	private KeyHeaderInstaller() {
	}

	/**
	 * Add the interceptor to a producer factory, after the interceptors already configured, and pass it the header name.
	 * @param producerFactory the factory, before it creates its first producer
	 * @param header the header the interceptor writes, never {@code null}
	 */
	public static void install(DefaultKafkaProducerFactory<?, ?> producerFactory, String header) {
		Map<String, Object> configs = producerFactory.getConfigurationProperties();
		List<Object> interceptors = interceptors(configs.get(ProducerConfig.INTERCEPTOR_CLASSES_CONFIG));
		boolean present = interceptors.stream()
			.anyMatch((interceptor) -> IdempotencyKeyProducerInterceptor.class.getName().equals(className(interceptor)));
		if (!present) {
			interceptors.add(IdempotencyKeyProducerInterceptor.class);
		}
		producerFactory.updateConfigs(Map.of(ProducerConfig.INTERCEPTOR_CLASSES_CONFIG, interceptors,
				IdempotencyKeyProducerInterceptor.KEY_HEADER_CONFIG, header));
	}

	/** The configured interceptors as a list of class names and classes, as Kafka accepts them. */
	private static List<Object> interceptors(@Nullable Object configured) {
		List<Object> interceptors = new ArrayList<>();
		if (configured instanceof String names) {
			for (String name : names.split(",")) {
				if (!name.isBlank()) {
					interceptors.add(name.trim());
				}
			}
		}
		else if (configured instanceof Collection<?> collection) {
			interceptors.addAll(collection);
		}
		else if (configured != null) {
			interceptors.add(configured);
		}
		return interceptors;
	}

	private static String className(Object interceptor) {
		return (interceptor instanceof Class<?> type) ? type.getName() : interceptor.toString().trim();
	}

}
