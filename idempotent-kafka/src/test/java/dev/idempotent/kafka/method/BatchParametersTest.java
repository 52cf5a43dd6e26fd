package dev.idempotent.kafka.method;

import java.lang.reflect.Method;
import java.util.List;
import java.util.Map;

import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

import org.springframework.kafka.support.Acknowledgment;
import org.springframework.kafka.support.KafkaHeaders;
import org.springframework.messaging.Message;
import org.springframework.messaging.handler.annotation.Header;
import org.springframework.messaging.handler.annotation.Headers;
import org.springframework.messaging.handler.annotation.Payload;

import static org.assertj.core.api.Assertions.assertThat;

class BatchParametersTest {

	@Test
	void everyPerRecordHeaderListIsCutDownToTheSamePositionsAndOtherArgumentsPassUnchanged() {
		BatchParameters parameters = BatchParameters.of(method("headerLists"));
		Acknowledgment ack = () -> {
		};
		Object[] arguments = { List.of("a", "b", "c"), List.of("ka", "kb", "kc"), List.of(10L, 11L, 12L), ack };
		Object[] selected = parameters.select(arguments, parameters.elements(arguments), List.of(0, 2));
		assertThat(selected[0]).isEqualTo(List.of("a", "c"));
		assertThat(selected[1]).isEqualTo(List.of("ka", "kc"));
		assertThat(selected[2]).isEqualTo(List.of(10L, 12L));
		assertThat(selected[3]).isSameAs(ack);
		assertThat(parameters.elementArguments(arguments, 1, "b")).containsExactly("b", "kb", 11L, ack);
		assertThat(parameters.problem()).isNull();
	}

	@Test
	void aHeaderListFirstIsNotTheBatch() {
		BatchParameters parameters = BatchParameters.of(method("headerFirst"));
		assertThat(parameters.batchIndex()).isEqualTo(1);
		assertThat(parameters.kind()).isEqualTo(BatchParameters.Kind.PAYLOADS);
	}

	@Test
	void thePayloadAnnotationNamesTheBatch() {
		assertThat(BatchParameters.of(method("annotatedPayload")).batchIndex()).isEqualTo(1);
	}

	@Test
	void aHeaderListShorterThanTheBatchIsThatRecordsOwnProblem() {
		BatchParameters parameters = BatchParameters.of(method("headerLists"));
		Object[] arguments = { List.of("a", "b", "c"), List.of("ka", "kb"), List.of(10L, 11L, 12L), null };
		assertThat(parameters.missingElement(arguments, 1)).isNull();
		assertThat(parameters.missingElement(arguments, 2)).contains("none for record 2");
	}

	@Test
	void consumerRecordsAreRebuiltWithTheSelectedRecordsAndTheNextOffsetsWhereKafkaClientsHasThem() throws Exception {
		BatchParameters parameters = BatchParameters.of(method("consumerRecords"));
		assertThat(parameters.kind()).isEqualTo(BatchParameters.Kind.CONSUMER_RECORDS);
		TopicPartition p0 = new TopicPartition("t", 0);
		TopicPartition p1 = new TopicPartition("t", 1);
		ConsumerRecord<String, String> a = new ConsumerRecord<>("t", 0, 5, "a", "va");
		ConsumerRecord<String, String> b = new ConsumerRecord<>("t", 1, 7, "b", "vb");
		ConsumerRecord<String, String> c = new ConsumerRecord<>("t", 1, 8, "c", "vc");
		Map<TopicPartition, OffsetAndMetadata> next = Map.of(p0, new OffsetAndMetadata(6), p1, new OffsetAndMetadata(9));
		Map<TopicPartition, List<ConsumerRecord<String, String>>> polled = Map.of(p0, List.of(a), p1, List.of(b, c));
		java.lang.reflect.Constructor<?> withNextOffsets = nextOffsetsConstructor();
		@SuppressWarnings("unchecked")
		ConsumerRecords<String, String> records = (withNextOffsets != null)
				? (ConsumerRecords<String, String>) withNextOffsets.newInstance(polled, next) : new ConsumerRecords<>(polled);
		Object[] arguments = { records };
		assertThat(parameters.records(arguments)).hasSize(3);
		Object[] selected = parameters.select(arguments, parameters.elements(arguments),
				List.of(indexOf(records, a), indexOf(records, c)));
		@SuppressWarnings("unchecked")
		ConsumerRecords<String, String> cut = (ConsumerRecords<String, String>) selected[0];
		assertThat(cut.count()).isEqualTo(2);
		assertThat(cut.records(p0)).containsExactly(a);
		assertThat(cut.records(p1)).containsExactly(c);
		if (withNextOffsets != null) {
			assertThat(ConsumerRecords.class.getMethod("nextOffsets").invoke(cut)).isEqualTo(next);
		}
	}

	/** kafka-clients 4's constructor with the poll's next offsets; {@code null} on 3.9. */
	private static java.lang.reflect.@org.jspecify.annotations.Nullable Constructor<?> nextOffsetsConstructor() {
		try {
			return ConsumerRecords.class.getConstructor(Map.class, Map.class);
		}
		catch (NoSuchMethodException ex) {
			return null;
		}
	}

	@Test
	void aListOfRecordsIsItsOwnRecords() {
		BatchParameters parameters = BatchParameters.of(method("records"));
		assertThat(parameters.kind()).isEqualTo(BatchParameters.Kind.RECORDS);
		ConsumerRecord<String, String> a = new ConsumerRecord<>("t", 0, 5, "a", "va");
		assertThat(parameters.records(new Object[] { List.of(a), null })).containsExactly(a);
	}

	@Test
	void nullableElementsAreDeclaredOnTheElementType() {
		assertThat(BatchParameters.of(method("nullablePayloads")).nullableElements()).isTrue();
		assertThat(BatchParameters.of(method("headerLists")).nullableElements()).isFalse();
	}

	@Test
	void shapesWhoseElementsCannotBeMatchedAreNamed() {
		assertThat(BatchParameters.of(method("otherHeaderList")).problem()).contains("@Header(\"custom\")");
		assertThat(BatchParameters.of(method("headersMap")).problem()).contains("whole batch");
		assertThat(BatchParameters.of(method("wholeMessage")).problem()).contains("whole batch");
		assertThat(BatchParameters.of(method("twoLists")).problem()).contains("ambiguous");
	}

	@Test
	void aMethodWithoutAListHasNoBatch() {
		assertThat(BatchParameters.of(method("single")).batchIndex()).isEqualTo(-1);
	}

	private static int indexOf(ConsumerRecords<String, String> records, ConsumerRecord<String, String> record) {
		int i = 0;
		for (ConsumerRecord<String, String> each : records) {
			if (each == record) {
				return i;
			}
			i++;
		}
		throw new AssertionError();
	}

	private static Method method(String name) {
		for (Method method : Signatures.class.getDeclaredMethods()) {
			if (method.getName().equals(name)) {
				return method;
			}
		}
		throw new IllegalArgumentException(name);
	}

	@SuppressWarnings("unused")
	static class Signatures {

		void headerLists(List<String> payloads, @Header(KafkaHeaders.RECEIVED_KEY) List<String> keys,
				@Header(KafkaHeaders.OFFSET) List<Long> offsets, Acknowledgment ack) {
		}

		void headerFirst(@Header(KafkaHeaders.RECEIVED_PARTITION) List<Integer> partitions, List<String> payloads) {
		}

		void annotatedPayload(@Header(name = KafkaHeaders.OFFSET) List<Long> offsets, @Payload List<String> payloads) {
		}

		void consumerRecords(ConsumerRecords<String, String> records) {
		}

		void records(List<ConsumerRecord<String, String>> records, Consumer<?, ?> consumer) {
		}

		void nullablePayloads(List<@Nullable String> payloads) {
		}

		void otherHeaderList(List<String> payloads, @Header("custom") List<String> custom) {
		}

		void headersMap(List<String> payloads, @Headers Map<String, Object> headers) {
		}

		void wholeMessage(List<String> payloads, Message<?> message) {
		}

		void twoLists(List<String> payloads, List<String> others) {
		}

		void single(String payload) {
		}

	}

}
