package dev.idempotent.producer;

import java.nio.charset.StandardCharsets;
import java.util.Map;

import dev.idempotent.kafka.IdempotencyHeaders;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.Header;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** Which records the interceptor gives a key (pure logic; the broker round trip is {@link ProducerKeyHeaderIT}). */
class IdempotencyKeyProducerInterceptorTest {

	private final IdempotencyKeyProducerInterceptor interceptor = new IdempotencyKeyProducerInterceptor();

	@Test
	void eachRecordWithoutAKeyGetsItsOwn() {
		String first = key(this.interceptor.onSend(new ProducerRecord<>("t", "a")), IdempotencyHeaders.KEY);
		String second = key(this.interceptor.onSend(new ProducerRecord<>("t", "a")), IdempotencyHeaders.KEY);
		assertThat(first).hasSize(36).isNotEqualTo(second);
	}

	@Test
	void anExistingKeyIsKeptEvenWhenBlank() {
		ProducerRecord<Object, Object> record = new ProducerRecord<>("t", "a");
		record.headers().add(IdempotencyHeaders.KEY, " ".getBytes(StandardCharsets.UTF_8));
		assertThat(this.interceptor.onSend(record).headers().headers(IdempotencyHeaders.KEY)).singleElement()
			.satisfies((header) -> assertThat(header.value()).isEqualTo(" ".getBytes(StandardCharsets.UTF_8)));
	}

	@Test
	void aRecordDeadLetteredForItsMissingKeyStaysWithoutOne() {
		ProducerRecord<Object, Object> record = new ProducerRecord<>("t.DLT", "a");
		record.headers().add(IdempotencyHeaders.REJECTION_REASON, "NULL".getBytes(StandardCharsets.UTF_8));
		assertThat(this.interceptor.onSend(record).headers().lastHeader(IdempotencyHeaders.KEY)).isNull();
	}

	@Test
	void theHeaderNameIsConfigurable() {
		this.interceptor.configure(Map.of(IdempotencyKeyProducerInterceptor.KEY_HEADER_CONFIG, "x-key"));
		ProducerRecord<Object, Object> record = this.interceptor.onSend(new ProducerRecord<>("t", "a"));
		assertThat(record.headers().lastHeader("x-key")).isNotNull();
		assertThat(record.headers().lastHeader(IdempotencyHeaders.KEY)).isNull();
	}

	private static String key(ProducerRecord<Object, Object> record, String name) {
		Header header = record.headers().lastHeader(name);
		assertThat(header).isNotNull();
		return new String(header.value(), StandardCharsets.UTF_8);
	}

}
