package dev.idempotent.kafka.error;

import java.util.LinkedHashMap;
import java.util.Map;

import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.DisposableBean;
import org.springframework.kafka.core.DefaultKafkaProducerFactory;
import org.springframework.kafka.core.KafkaOperations;
import org.springframework.kafka.core.KafkaTemplate;

/**
 * The templates a {@code DeadLetterPublishingRecoverer} publishes with, by the type of the record's value: the
 * application's {@link KafkaOperations} for every value, except {@code byte[]}. A record that an
 * {@code ErrorHandlingDeserializer} could not read is dead-lettered with its original bytes, which the
 * application's value serializer (a {@code StringSerializer}, say) may refuse; the publish would then fail on
 * every attempt and the consumer would retry that record forever, never reaching the records after it. So
 * {@code byte[]} values go through a template with the application's producer configuration and key serializer
 * and a {@link ByteArraySerializer} for values. That template is derived only from a non-transactional
 * {@link DefaultKafkaProducerFactory}; otherwise every value uses the application's template. Its producer is
 * created on the first such publish and closed by {@link #destroy()}.
 * <p>Thread-safe.
 *
 * @since 0.1.0
 */
public final class DeadLetterTemplates implements DisposableBean {

	private final Map<Class<?>, KafkaOperations<?, ?>> templates = new LinkedHashMap<>();

	private final @Nullable DefaultKafkaProducerFactory<?, byte[]> bytesFactory;

	/**
	 * Derive the templates from the application's.
	 * @param operations the application's template, never {@code null}
	 */
	public DeadLetterTemplates(KafkaOperations<?, ?> operations) {
		this.bytesFactory = bytesFactory(operations);
		this.templates.put(Void.class, operations);
		if (this.bytesFactory != null) {
			this.templates.put(byte[].class, new KafkaTemplate<>(this.bytesFactory));
		}
		this.templates.put(Object.class, operations);
	}

	/**
	 * Return the templates by value type, in the order a {@code DeadLetterPublishingRecoverer} must try them.
	 * @return an ordered map, not to be modified
	 */
	public Map<Class<?>, KafkaOperations<?, ?>> byValueType() {
		return this.templates;
	}

	/**
	 * Return the template for {@code byte[]} values.
	 * @return the template, or {@code null} when none could be derived (the application's template is not a
	 * non-transactional {@code KafkaTemplate} on a {@link DefaultKafkaProducerFactory})
	 */
	public @Nullable KafkaOperations<?, ?> forBytes() {
		return this.templates.get(byte[].class);
	}

	private static <K> @Nullable DefaultKafkaProducerFactory<K, byte[]> bytesFactory(KafkaOperations<K, ?> operations) {
		if (!(operations instanceof KafkaTemplate<K, ?> template)
				|| !(template.getProducerFactory() instanceof DefaultKafkaProducerFactory<K, ?> factory)
				|| factory.transactionCapable()) {
			return null;
		}
		return new DefaultKafkaProducerFactory<>(factory.getConfigurationProperties(), factory.getKeySerializerSupplier(),
				ByteArraySerializer::new);
	}

	/** Close the producer of {@code byte[]} values, if one was created. */
	@Override
	public void destroy() {
		if (this.bytesFactory != null) {
			this.bytesFactory.destroy();
		}
	}

}
