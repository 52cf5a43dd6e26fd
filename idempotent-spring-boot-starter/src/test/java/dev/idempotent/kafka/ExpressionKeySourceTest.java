package dev.idempotent.kafka;

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

	private static Method method(String name) throws NoSuchMethodException {
		return name.equals("payload") ? Signatures.class.getDeclaredMethod(name, String.class)
				: Signatures.class.getDeclaredMethod(name, List.class);
	}

	@SuppressWarnings("unused")
	static class Signatures {

		void payload(String payload) {
		}

		void records(List<ConsumerRecord<String, String>> records) {
		}

	}

}
