package dev.idempotent.kafka.support;

import org.jspecify.annotations.Nullable;

import org.springframework.beans.DirectFieldAccessor;
import org.springframework.kafka.listener.BatchInterceptor;
import org.springframework.kafka.listener.RecordInterceptor;

/**
 * The record and batch interceptors a listener container factory or a listener container holds. spring-kafka 4 has
 * public getters for them; 3.3 has none on the factory and protected ones on the container, so they are read from
 * their fields, which both versions name alike. Thread-safe.
 * <p>Internal: public for the starter's other packages, not API.
 */
public final class ListenerInterceptors {

	private ListenerInterceptors() {
	}

	/**
	 * The record interceptor of an {@code AbstractKafkaListenerContainerFactory} or an
	 * {@code AbstractMessageListenerContainer}.
	 * @param factoryOrContainer the factory or container
	 * @return its record interceptor, or {@code null}
	 */
	public static @Nullable RecordInterceptor<?, ?> record(Object factoryOrContainer) {
		return (RecordInterceptor<?, ?>) new DirectFieldAccessor(factoryOrContainer).getPropertyValue("recordInterceptor");
	}

	/**
	 * The batch interceptor of an {@code AbstractKafkaListenerContainerFactory} or an
	 * {@code AbstractMessageListenerContainer}.
	 * @param factoryOrContainer the factory or container
	 * @return its batch interceptor, or {@code null}
	 */
	static @Nullable BatchInterceptor<?, ?> batch(Object factoryOrContainer) {
		return (BatchInterceptor<?, ?>) new DirectFieldAccessor(factoryOrContainer).getPropertyValue("batchInterceptor");
	}

}
