package dev.idempotent.kafka.support;

import java.util.List;
import java.util.Map;

import org.apache.kafka.clients.consumer.ConsumerConfig;

import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.kafka.config.AbstractKafkaListenerContainerFactory;
import org.springframework.kafka.core.ConsumerFactory;
import org.springframework.kafka.core.DefaultKafkaConsumerFactory;

/**
 * Adds {@link PolledRecords} to the {@code interceptor.classes} of every {@link DefaultKafkaConsumerFactory}: each
 * consumer factory bean, and the consumer factory of each listener container factory bean, after the interceptors
 * configured already. Installed when the fast path is on, so that single-record listeners ask it once per poll.
 * A consumer factory of another type, or a container whose own consumer properties replace
 * {@code interceptor.classes}, gets none: its records are then looked up one by one (slower, equally correct).
 * Thread-safe.
 *
 * @since 0.1.0
 */
public final class PolledRecordsInstaller implements BeanPostProcessor {

	@Override
	public Object postProcessAfterInitialization(Object bean, String beanName) {
		if (bean instanceof AbstractKafkaListenerContainerFactory<?, ?, ?> factory) {
			install(factory.getConsumerFactory());
		}
		else if (bean instanceof ConsumerFactory<?, ?> consumers) {
			install(consumers);
		}
		return bean;
	}

	private static void install(ConsumerFactory<?, ?> consumers) {
		if (consumers instanceof DefaultKafkaConsumerFactory<?, ?> factory) {
			List<Object> classes = PolledRecords.addedTo(
					factory.getConfigurationProperties().get(ConsumerConfig.INTERCEPTOR_CLASSES_CONFIG));
			if (classes != null) {
				factory.updateConfigs(Map.of(ConsumerConfig.INTERCEPTOR_CLASSES_CONFIG, classes));
			}
		}
	}

}
