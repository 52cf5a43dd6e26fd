package dev.idempotent.adoption;

import dev.idempotent.kafka.error.IdempotentErrorHandlers;
import org.apache.kafka.common.TopicPartition;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.kafka.config.ConcurrentKafkaListenerContainerFactory;
import org.springframework.kafka.core.ConsumerFactory;
import org.springframework.kafka.core.KafkaTemplate;
import org.springframework.kafka.listener.DeadLetterPublishingRecoverer;
import org.springframework.kafka.listener.DefaultErrorHandler;
import org.springframework.util.backoff.FixedBackOff;

/** The service's own container factory and error handler, kept when it adopts the starter. */
@Configuration(proxyBeanMethods = false)
class KafkaConfig {

	@Bean
	DefaultErrorHandler errorHandler(ObjectProvider<IdempotentErrorHandlers> idempotent,
			KafkaTemplate<Object, Object> template) {
		DeadLetterPublishingRecoverer deadLetters = new DeadLetterPublishingRecoverer(template,
				(record, ex) -> new TopicPartition("ledger.failed-payments", -1));
		FixedBackOff backOff = new FixedBackOff(200L, 2);
		IdempotentErrorHandlers handlers = idempotent.getIfAvailable(); // none with idempotent.enabled=false
		return (handlers != null) ? handlers.errorHandler(deadLetters, backOff)
				: new DefaultErrorHandler(deadLetters, backOff);
	}

	@Bean
	ConcurrentKafkaListenerContainerFactory<String, String> kafkaListenerContainerFactory(
			ConsumerFactory<String, String> consumerFactory, DefaultErrorHandler errorHandler) {
		ConcurrentKafkaListenerContainerFactory<String, String> factory = new ConcurrentKafkaListenerContainerFactory<>();
		factory.setConsumerFactory(consumerFactory);
		factory.setCommonErrorHandler(errorHandler);
		return factory;
	}

}
