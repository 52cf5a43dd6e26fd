package dev.idempotent.kafka.method;

import java.lang.reflect.Method;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;

import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.junit.jupiter.api.Test;

import org.springframework.kafka.annotation.KafkaListener;
import org.springframework.kafka.support.KafkaHeaders;
import org.springframework.messaging.handler.annotation.Header;
import org.springframework.messaging.handler.annotation.Headers;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

class KafkaEndpointTest {

	@Test
	void aBatchWithPerRecordHeaderListsIsAccepted() {
		KafkaEndpoint endpoint = KafkaEndpoint.of(method("headerLists"), UnaryOperator.identity());
		assertThat(endpoint.batch()).isTrue();
		assertThat(endpoint.batchParameters().batchIndex()).isEqualTo(1);
	}

	@Test
	void consumerRecordsMakeABatchListener() {
		KafkaEndpoint endpoint = KafkaEndpoint.of(method("consumerRecords"), UnaryOperator.identity());
		assertThat(endpoint.batch()).isTrue();
		assertThat(endpoint.batchParameters().kind()).isEqualTo(BatchParameters.Kind.CONSUMER_RECORDS);
	}

	@Test
	void aBatchWhoseHeadersCannotBeMatchedIsRefusedNamingTheMethod() {
		assertThatIllegalArgumentException().isThrownBy(() -> KafkaEndpoint.of(method("headersMap"), UnaryOperator.identity()))
			.withMessageContaining("headersMap")
			.withMessageContaining("@Header lists");
	}

	@Test
	void aListOfPayloadsWithAListenerFilterIsRefused() {
		assertThatIllegalArgumentException()
			.isThrownBy(() -> KafkaEndpoint.of(method("filteredPayloads"), UnaryOperator.identity()))
			.withMessageContaining("List<ConsumerRecord<K, V>>");
	}

	@Test
	void aListOfRecordsWithAListenerFilterIsAccepted() {
		assertThat(KafkaEndpoint.of(method("filteredRecords"), UnaryOperator.identity()).batch()).isTrue();
	}

	@Test
	void aSingleRecordListenerIsNotCheckedAsABatch() {
		KafkaEndpoint endpoint = KafkaEndpoint.of(method("singleWithCustomHeaderList"), UnaryOperator.identity());
		assertThat(endpoint.batch()).isFalse();
	}

	private static Method method(String name) {
		for (Method method : Listeners.class.getDeclaredMethods()) {
			if (method.getName().equals(name)) {
				return method;
			}
		}
		throw new IllegalArgumentException(name);
	}

	@SuppressWarnings("unused")
	static class Listeners {

		@KafkaListener(topics = "t", batch = "true")
		void headerLists(@Header(KafkaHeaders.OFFSET) List<Long> offsets, List<String> payloads,
				@Header(KafkaHeaders.RECEIVED_KEY) List<String> keys) {
		}

		@KafkaListener(topics = "t")
		void consumerRecords(ConsumerRecords<String, String> records) {
		}

		@KafkaListener(topics = "t", batch = "true")
		void headersMap(List<String> payloads, @Headers Map<String, Object> headers) {
		}

		@KafkaListener(topics = "t", batch = "true", filter = "myFilter")
		void filteredPayloads(List<String> payloads) {
		}

		@KafkaListener(topics = "t", filter = "myFilter")
		void filteredRecords(List<ConsumerRecord<String, String>> records) {
		}

		@KafkaListener(topics = "t")
		void singleWithCustomHeaderList(String payload, @Header("tags") List<String> tags) {
		}

	}

}
