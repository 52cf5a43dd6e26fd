package dev.idempotent.it;

import org.springframework.boot.kafka.autoconfigure.ConcurrentKafkaListenerContainerFactoryConfigurer;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.kafka.config.ConcurrentKafkaListenerContainerFactory;
import org.springframework.kafka.core.ConsumerFactory;

/** A container factory {@code batchFactory} for batch listeners, configured as Boot configures the default one. */
@Configuration(proxyBeanMethods = false)
class BatchContainerFactory {

	@Bean
	ConcurrentKafkaListenerContainerFactory<Object, Object> batchFactory(
			ConcurrentKafkaListenerContainerFactoryConfigurer configurer, ConsumerFactory<Object, Object> consumers) {
		ConcurrentKafkaListenerContainerFactory<Object, Object> factory = new ConcurrentKafkaListenerContainerFactory<>();
		configurer.configure(factory, consumers);
		factory.setBatchListener(true);
		return factory;
	}

}
