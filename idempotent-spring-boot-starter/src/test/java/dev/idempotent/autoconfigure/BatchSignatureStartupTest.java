package dev.idempotent.autoconfigure;

import java.util.List;
import java.util.Map;

import dev.idempotent.kafka.IdempotentListener;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.kafka.annotation.KafkaListener;
import org.springframework.kafka.config.ConcurrentKafkaListenerContainerFactory;
import org.springframework.kafka.core.ConsumerFactory;
import org.springframework.kafka.support.KafkaHeaders;
import org.springframework.messaging.handler.annotation.Header;
import org.springframework.messaging.handler.annotation.Headers;

import static dev.idempotent.testsupport.BootLine.DATA_SOURCE;
import static dev.idempotent.testsupport.BootLine.DATA_SOURCE_TRANSACTION_MANAGER;
import static dev.idempotent.testsupport.BootLine.KAFKA;
import static org.assertj.core.api.Assertions.assertThat;

/** Batch listener signatures whose per-record arguments cannot be matched to their records stop the application. */
class BatchSignatureStartupTest {

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DATA_SOURCE,
				DATA_SOURCE_TRANSACTION_MANAGER, KAFKA,
				IdempotentAutoConfiguration.class))
		.withPropertyValues("spring.datasource.url=jdbc:h2:mem:batchsignatures;MODE=MySQL;DB_CLOSE_DELAY=-1",
				"spring.kafka.bootstrap-servers=127.0.0.1:9")
		.withUserConfiguration(BatchFactory.class);

	@Test
	void aHeadersMapOnADeclaredBatchListenerIsRefused() {
		this.runner.withBean(DeclaredBatchWithHeadersMap.class)
			.run((context) -> assertThat(context).getFailure()
				.hasMessageContaining("DeclaredBatchWithHeadersMap.onBatch")
				.hasMessageContaining("take @Header lists"));
	}

	@Test
	void aHeadersMapOnABatchFactoryIsRefusedNamingTheFactory() {
		this.runner.withBean(FactoryBatchWithHeadersMap.class)
			.run((context) -> assertThat(context).getFailure()
				.hasMessageContaining("FactoryBatchWithHeadersMap.onBatch")
				.hasMessageContaining("receives batches from container factory 'batchFactory'"));
	}

	@Test
	void perRecordHeaderListsAndConsumerRecordsStart() {
		this.runner.withBean(SupportedBatches.class).run((context) -> assertThat(context).hasNotFailed());
	}

	@Configuration(proxyBeanMethods = false)
	static class BatchFactory {

		@Bean
		ConcurrentKafkaListenerContainerFactory<Object, Object> batchFactory(ConsumerFactory<Object, Object> consumers) {
			ConcurrentKafkaListenerContainerFactory<Object, Object> factory = new ConcurrentKafkaListenerContainerFactory<>();
			factory.setConsumerFactory(consumers);
			factory.setBatchListener(true);
			return factory;
		}

	}

	static class DeclaredBatchWithHeadersMap {

		@KafkaListener(topics = "orders", groupId = "ledger", autoStartup = "false", batch = "true")
		@IdempotentListener
		public void onBatch(List<String> payloads, @Headers Map<String, Object> headers) {
		}

	}

	static class FactoryBatchWithHeadersMap {

		@KafkaListener(topics = "orders", groupId = "ledger", autoStartup = "false", containerFactory = "batchFactory")
		@IdempotentListener
		public void onBatch(List<String> payloads, @Headers Map<String, Object> headers) {
		}

	}

	static class SupportedBatches {

		@KafkaListener(topics = "orders", groupId = "ledger", autoStartup = "false", containerFactory = "batchFactory")
		@IdempotentListener(scope = "ledger-payloads")
		public void onPayloads(@Header(KafkaHeaders.OFFSET) List<Long> offsets, List<String> payloads,
				@Header(KafkaHeaders.RECEIVED_KEY) List<String> keys) {
		}

		@KafkaListener(topics = "other", groupId = "ledger", autoStartup = "false", containerFactory = "batchFactory")
		@IdempotentListener(scope = "ledger-records")
		public void onRecords(ConsumerRecords<String, String> records) {
		}

	}

}
