package dev.idempotent.it.stacks;

import dev.idempotent.it.KafkaTestSupport;
import dev.idempotent.kafka.IdempotencyHeaders;
import dev.idempotent.metrics.MicrometerClaimListener;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.errors.SerializationException;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.kafka.test.context.EmbeddedKafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * {@code ErrorHandlingDeserializer} poison records on a single-record listener: a record whose value cannot be
 * read goes to the dead-letter topic with its original bytes and the deserialization exception, is never
 * claimed, and the records after it take effect once on a consumer that keeps running.
 */
@SpringBootTest(classes = PoisonRecordStackApplication.class, properties = {
		"spring.kafka.consumer.value-deserializer=org.springframework.kafka.support.serializer.ErrorHandlingDeserializer",
		"spring.kafka.consumer.properties.spring.deserializer.value.delegate.class=dev.idempotent.it.stacks.StrictStringDeserializer" })
@EmbeddedKafka(partitions = 1, topics = { PoisonRecordStackApplication.TOPIC, AbstractPoisonRecordStackIT.DLT })
abstract class AbstractPoisonRecordStackIT extends AbstractStackIT {

	static final String TOPIC = PoisonRecordStackApplication.TOPIC;

	static final String DLT = TOPIC + ".DLT";

	@Value("${it.run}-poison")
	String group;

	@Test
	void aPoisonRecordIsDeadLetteredUnclaimedAndTheRecordsAfterItTakeEffectOnce() throws Exception {
		String poison = RUN + "-poison";
		String after = RUN + "-after-poison";
		String later = RUN + "-later";
		try (KafkaTestSupport kafka = kafka(); Consumer<String, String> reader = deadLetterReader(DLT)) {
			kafka.send(TOPIC, poison, "poison " + RUN);
			kafka.send(TOPIC, after, "pay");
			ConsumerRecord<String, String> dead = awaitRecordWithValue(reader, "poison " + RUN);
			assertThat(header(dead, "kafka_dlt-exception-fqcn")).contains("DeserializationException");
			assertThat(header(dead, "kafka_dlt-exception-message")).contains("failed to deserialize");
			assertThat(header(dead, "kafka_dlt-exception-stacktrace")).contains(SerializationException.class.getName())
				.contains("Cannot read 'poison " + RUN + "'");
			assertThat(header(dead, IdempotencyHeaders.KEY)).isEqualTo(poison);
			// never claimed, so no scope/key of a failed claim and no rejection
			assertThat(header(dead, IdempotencyHeaders.DEAD_LETTER_SCOPE)).isNull();
			assertThat(header(dead, IdempotencyHeaders.REJECTION_REASON)).isNull();

			await().atMost(KafkaTestSupport.timeout()).until(() -> Integer.valueOf(1).equals(status(this.group, after)));
			kafka.send(TOPIC, after, "pay");
			kafka.send(TOPIC, later, "pay");
			await().atMost(KafkaTestSupport.timeout())
				.until(() -> Integer.valueOf(1).equals(status(this.group, later)) && kafka.lag(this.group, TOPIC) == 0);
		}
		assertThat(claimsOfKey(poison)).isEmpty();
		assertThat(this.attempts.of(poison)).isZero();
		assertThat(this.payments.rows(this.group, after)).isOne();
		assertThat(this.payments.rows(this.group, later)).isOne();
		assertThat(hits(this.group)).isOne();
		assertThat(count(this.group, MicrometerClaimListener.REJECTED)).isZero();
	}

}
