package dev.idempotent.it;

import org.springframework.beans.factory.BeanFactory;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.kafka.config.ConcurrentKafkaListenerContainerFactory;
import org.springframework.kafka.core.ConsumerFactory;

import static dev.idempotent.testsupport.BootLine.bootConfiguredFactory;

/** A container factory {@code batchFactory} for batch listeners, configured as Boot configures the default one. */
@Configuration(proxyBeanMethods = false)
class BatchContainerFactory {

	@Bean
	ConcurrentKafkaListenerContainerFactory<Object, Object> batchFactory(
			BeanFactory beans, ConsumerFactory<Object, Object> consumers) {
		ConcurrentKafkaListenerContainerFactory<Object, Object> factory = bootConfiguredFactory(beans, consumers);
		factory.setBatchListener(true);
		return factory;
	}

}
