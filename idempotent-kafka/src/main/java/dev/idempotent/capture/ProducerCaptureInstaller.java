package dev.idempotent.capture;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Supplier;

import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.serialization.Serializer;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.BeanUtils;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.kafka.core.DefaultKafkaProducerFactory;
import org.springframework.kafka.core.ProducerFactory;
import org.springframework.util.ClassUtils;

/**
 * Makes every {@link DefaultKafkaProducerFactory} bean capture: its key and value serializers are wrapped in
 * serializers that report their bytes to the send under way (and return stored bytes when a stored output is sent
 * again), and its producers are wrapped by a {@code ProducerPostProcessor} that hands records sent under a claim to
 * the claim's {@link Capture}. Records sent outside a claim pass through unchanged, at the cost of a thread-local
 * lookup. Serializers configured by class name are instantiated here, as the producer would have done.
 * <p>Thread-safe.
 *
 * @since 0.1.0
 */
public final class ProducerCaptureInstaller implements BeanPostProcessor {

	private final int maxBytes;

	/** The factories that capture, by bean name, in the order they were initialised. */
	private final Map<String, ProducerFactory<?, ?>> factories = Collections.synchronizedMap(new LinkedHashMap<>());

	/**
	 * Create the installer.
	 * @param maxBytes the largest serialized key or value a claim's output may have
	 */
	public ProducerCaptureInstaller(int maxBytes) {
		this.maxBytes = maxBytes;
	}

	@Override
	public Object postProcessAfterInitialization(Object bean, String beanName) {
		if (bean instanceof DefaultKafkaProducerFactory<?, ?> factory && !captures(factory)) {
			install(factory, beanName);
			this.factories.put(beanName, factory);
		}
		return bean;
	}

	/**
	 * Tell whether a producer factory captures outputs.
	 * @param factory a producer factory
	 * @return whether this installer wrapped it
	 */
	public boolean captures(ProducerFactory<?, ?> factory) {
		synchronized (this.factories) {
			return this.factories.values().stream().anyMatch((captured) -> captured == factory);
		}
	}

	/**
	 * Return the first producer factory that captures outputs.
	 * @return the factory, or {@code null} if no factory bean captures
	 */
	public @Nullable ProducerFactory<?, ?> first() {
		synchronized (this.factories) {
			return this.factories.values().stream().findFirst().orElse(null);
		}
	}

	/**
	 * Return the producer factory bean of a name, if it captures outputs.
	 * @param beanName the name of the bean
	 * @return the factory, or {@code null} if no factory bean of that name captures
	 * @since 0.1.0
	 */
	public @Nullable ProducerFactory<?, ?> named(String beanName) {
		return this.factories.get(beanName);
	}

	private <K, V> void install(DefaultKafkaProducerFactory<K, V> factory, String beanName) {
		Map<String, Object> configs = factory.getConfigurationProperties();
		Supplier<Serializer<K>> keys = serializers(factory.getKeySerializerSupplier(),
				configs.get(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG), configs, true, factory.isConfigureSerializers());
		Supplier<Serializer<V>> values = serializers(factory.getValueSerializerSupplier(),
				configs.get(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG), configs, false, factory.isConfigureSerializers());
		factory.setKeySerializerSupplier(() -> new CapturingSerializer<>(keys.get(), true, this.maxBytes));
		factory.setValueSerializerSupplier(() -> new CapturingSerializer<>(values.get(), false, this.maxBytes));
		factory.addPostProcessor((producer) -> CapturingProducer.wrap(producer, beanName));
	}

	/**
	 * The application's serializers: from its supplier, or else (no supplier, or one that returns {@code null})
	 * instantiated from the class the configuration names, and configured here if the factory does not configure the
	 * serializers it is given.
	 */
	@SuppressWarnings("unchecked")
	private static <T> Supplier<Serializer<T>> serializers(@Nullable Supplier<@Nullable Serializer<T>> supplier,
			@Nullable Object configured, Map<String, Object> configs, boolean isKey, boolean factoryConfigures) {
		String property = isKey ? ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG : ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG;
		return () -> {
			Serializer<T> serializer = (supplier != null) ? supplier.get() : null;
			if (serializer != null) {
				return serializer;
			}
			if (configured == null) {
				throw new IllegalStateException("The producer factory names no " + (isKey ? "key" : "value")
						+ " serializer (" + property + ")");
			}
			Class<?> type = (configured instanceof Class<?> given) ? given
					: ClassUtils.resolveClassName(configured.toString().trim(), ProducerCaptureInstaller.class.getClassLoader());
			serializer = (Serializer<T>) BeanUtils.instantiateClass(type);
			if (!factoryConfigures) {
				serializer.configure(configs, isKey);
			}
			return serializer;
		};
	}

}
