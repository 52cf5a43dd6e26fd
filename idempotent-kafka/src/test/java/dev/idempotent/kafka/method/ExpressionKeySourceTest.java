package dev.idempotent.kafka.method;

import java.lang.reflect.Method;
import java.util.List;

import dev.idempotent.key.InvalidIdempotencyKeyException;
import dev.idempotent.key.InvalidKeyReason;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

class ExpressionKeySourceTest {

	private final ConsumerRecord<String, String> record = new ConsumerRecord<>("t", 0, 1, "k", "short");

	@Test
	void aRuntimeExceptionOfACalledMethodIsAFailedExpression() throws Exception {
		ExpressionKeySource source = ExpressionKeySource.of("#payload.substring(8)", method("payload"));
		assertThatExceptionOfType(InvalidIdempotencyKeyException.class)
			.isThrownBy(() -> source.rawKey(this.record, new Object[] { "short" }))
			.satisfies((ex) -> assertThat(ex.getReason()).isEqualTo(InvalidKeyReason.EXPRESSION_FAILED));
	}

	@Test
	void aMalformedUuidIsAFailedExpression() throws Exception {
		ExpressionKeySource source = ExpressionKeySource.of("T(java.util.UUID).fromString(#payload)", method("payload"));
		assertThatExceptionOfType(InvalidIdempotencyKeyException.class)
			.isThrownBy(() -> source.rawKey(this.record, new Object[] { "not-a-uuid" }))
			.satisfies((ex) -> assertThat(ex.getReason()).isEqualTo(InvalidKeyReason.EXPRESSION_FAILED));
	}

	@Test
	void theElementOfABatchOfRecordsHasItsValueAsPayload() throws Exception {
		ExpressionKeySource source = ExpressionKeySource.of("#payload + '/' + #record.offset()", method("records"));
		assertThat(source.rawKey(this.record, new Object[] { this.record })).isEqualTo("short/1");
	}

	@Test
	void anotherPolledRecordsKeyIsProducedFromItsOwnValueWhenItIsOfThePayloadsType() throws Exception {
		ExpressionKeySource source = ExpressionKeySource.of("#payload + '@' + #tenant", method("tenant"));
		ConsumerRecord<String, Object> polled = new ConsumerRecord<>("t", 0, 2, "k", "other");

		Object[] arguments = source.argumentsOf(polled, new Object[] { "short", "acme" });

		assertThat(arguments).as("the payload swapped, the header argument kept").containsExactly("other", "acme");
		assertThat(source.rawKey(polled, arguments)).isEqualTo("other@acme");
	}

	@Test
	void anotherPolledRecordsKeyIsNotProducedFromAValueTheConverterWouldChange() throws Exception {
		ExpressionKeySource source = ExpressionKeySource.of("#payload", method("payload"));

		assertThat(source.argumentsOf(new ConsumerRecord<>("t", 0, 2, "k", 42), new Object[] { "short" }))
			.as("an Integer value for a String parameter: converted on delivery").isNull();
		assertThat(source.argumentsOf(new ConsumerRecord<>("t", 0, 2, "k", null), new Object[] { "short" }))
			.as("a tombstone").isNull();
		assertThat(source.argumentsOf(new ConsumerRecord<>("t", 0, 2, "k", "x"),
				new Object[] { org.springframework.messaging.support.MessageBuilder.withPayload("short").build() }))
			.as("a Message argument").isNull();
	}

	@Test
	void aRecordArgumentIsSwappedForThePolledRecord() throws Exception {
		ExpressionKeySource source = ExpressionKeySource.of("#record.value()", method("record"));
		ConsumerRecord<String, String> polled = new ConsumerRecord<>("t", 0, 2, "k", "other");

		assertThat(source.rawKey(polled, source.argumentsOf(polled, new Object[] { this.record }))).isEqualTo("other");
	}

	@Test
	void aHeaderKeyNeedsNoArguments() {
		HeaderKeySource source = new HeaderKeySource("idempotency-key");
		Object[] delivered = { "short" };

		assertThat(source.argumentsOf(new ConsumerRecord<>("t", 0, 2, "k", 42), delivered)).isSameAs(delivered);
	}

	private static Method method(String name) throws NoSuchMethodException {
		return switch (name) {
			case "payload" -> Signatures.class.getDeclaredMethod(name, String.class);
			case "tenant" -> Signatures.class.getDeclaredMethod(name, String.class, String.class);
			case "record" -> Signatures.class.getDeclaredMethod(name, ConsumerRecord.class);
			default -> Signatures.class.getDeclaredMethod(name, List.class);
		};
	}

	@SuppressWarnings("unused")
	static class Signatures {

		void payload(String payload) {
		}

		void records(List<ConsumerRecord<String, String>> records) {
		}

		void tenant(String payload, @org.springframework.messaging.handler.annotation.Header("tenant") String tenant) {
		}

		void record(ConsumerRecord<String, String> record) {
		}

	}

}
