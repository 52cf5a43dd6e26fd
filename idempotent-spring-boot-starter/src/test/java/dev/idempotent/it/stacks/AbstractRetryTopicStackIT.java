package dev.idempotent.it.stacks;

import java.util.List;
import java.util.Map;

import dev.idempotent.it.KafkaTestSupport;
import dev.idempotent.kafka.IdempotencyHeaders;
import dev.idempotent.metrics.MicrometerClaimListener;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.kafka.test.context.EmbeddedKafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * {@code @RetryableTopic} non-blocking retries: the deliveries of the main topic and of its retry topics are one
 * key space, so a record that fails twice and then succeeds on a retry topic takes effect once and a later
 * replay of it on the main topic is a hit; a bad key goes to the {@code -dlt} topic at once, with the reason; a
 * record an {@code ErrorHandlingDeserializer} could not read goes there with its bytes.
 */
@SpringBootTest(classes = RetryTopicStackApplication.class, properties = {
		"spring.kafka.consumer.value-deserializer=org.springframework.kafka.support.serializer.ErrorHandlingDeserializer",
		"spring.kafka.consumer.properties.spring.deserializer.value.delegate.class=dev.idempotent.it.stacks.StrictStringDeserializer" })
@EmbeddedKafka(partitions = 1, topics = { RetryTopicStackApplication.TOPIC, RetryTopicStackApplication.SCOPED_TOPIC })
abstract class AbstractRetryTopicStackIT extends AbstractStackIT {

	static final String TOPIC = RetryTopicStackApplication.TOPIC;

	static final String DLT = TOPIC + "-dlt";

	@Value("${it.run}-retry")
	String group;

	@Test
	void aRecordThatFailsTwiceThenSucceedsOnARetryTopicTakesEffectOnceInTheListenersScope() throws Exception {
		String key = RUN + "-fail-twice";
		try (KafkaTestSupport kafka = kafka()) {
			kafka.send(TOPIC, key, "fail-twice");
			await().atMost(KafkaTestSupport.timeout()).until(() -> this.attempts.of(key) == 3
					&& this.payments.rows(this.group, key) == 1 && !claimsOfKey(key).isEmpty());
		}
		assertThat(this.payments.rows(this.group, key)).isOne();
		List<Map<String, Object>> claims = claimsOfKey(key);
		assertThat(claims).as("claim rows of %s", key).hasSize(1);
		assertThat(claims.get(0)).containsEntry("scope", this.group);
		assertThat(((Number) claims.get(0).get("status")).intValue()).isOne();
	}

	@Test
	void aReplayOnTheMainTopicOfARecordThatSucceededOnARetryTopicIsAHit() throws Exception {
		String key = RUN + "-replayed";
		try (KafkaTestSupport kafka = kafka()) {
			kafka.send(TOPIC, key, "fail-once");
			await().atMost(KafkaTestSupport.timeout())
				.until(() -> this.attempts.of(key) == 2 && this.payments.rows(this.group, key) == 1);
			long hitsBefore = hits(this.group);
			kafka.send(TOPIC, key, "ok");
			await().atMost(KafkaTestSupport.timeout())
				.until(() -> hits(this.group) - hitsBefore == 1 || this.payments.rows(this.group, key) > 1);
			await().atMost(KafkaTestSupport.timeout()).until(() -> kafka.lag(this.group, TOPIC) == 0);
		}
		assertThat(this.payments.rows(this.group, key)).as("payments of %s, claims %s", key, claimsOfKey(key)).isOne();
		assertThat(this.attempts.of(key)).isEqualTo(2);
	}

	@Test
	void withAnExplicitScopeAReplayOnTheMainTopicOfARecordThatSucceededOnARetryTopicIsAHit() throws Exception {
		String key = RUN + "-scoped-replayed";
		String scoped = this.group + "-scoped";
		try (KafkaTestSupport kafka = kafka()) {
			kafka.send(RetryTopicStackApplication.SCOPED_TOPIC, key, "fail-once");
			await().atMost(KafkaTestSupport.timeout())
				.until(() -> this.attempts.of(key) == 2 && Integer.valueOf(1).equals(status(scoped, key)));
			long hitsBefore = hits(scoped);
			kafka.send(RetryTopicStackApplication.SCOPED_TOPIC, key, "ok");
			await().atMost(KafkaTestSupport.timeout())
				.until(() -> hits(scoped) - hitsBefore == 1 || this.payments.rows(scoped, key) > 1);
		}
		assertThat(this.payments.rows(scoped, key)).isOne();
		assertThat(this.attempts.of(key)).isEqualTo(2);
		assertThat(claimsOfKey(key)).hasSize(1);
	}

	@Test
	void aPoisonRecordGoesToTheDeadLetterTopicWithItsBytesAndTheRecordsAfterItFlow() throws Exception {
		String poison = RUN + "-retry-poison";
		String after = RUN + "-retry-after-poison";
		try (KafkaTestSupport kafka = kafka(); Consumer<String, String> reader = deadLetterReader(DLT)) {
			kafka.send(TOPIC, poison, "poison " + RUN);
			kafka.send(TOPIC, after, "ok");
			ConsumerRecord<String, String> dead = awaitRecordWithValue(reader, "poison " + RUN);
			assertThat(header(dead, "kafka_exception-fqcn")).contains("DeserializationException");
			await().atMost(KafkaTestSupport.timeout()).until(() -> Integer.valueOf(1).equals(status(this.group, after)));
		}
		assertThat(claimsOfKey(poison)).isEmpty();
		assertThat(this.attempts.of(poison)).isZero();
		assertThat(this.payments.rows(this.group, after)).isOne();
	}

	@Test
	void aBadKeyGoesToTheDeadLetterTopicAtOnceWithTheReason() throws Exception {
		long rejectedBefore = countInScopesStartingWith(this.group, MicrometerClaimListener.REJECTED);
		try (KafkaTestSupport kafka = kafka(); Consumer<String, String> reader = deadLetterReader(DLT)) {
			String payload = RUN + "-no-key";
			kafka.send(TOPIC, null, payload);
			ConsumerRecord<String, String> dead = awaitRecordWithValue(reader, payload);
			// retry topics' dead-letter records carry spring-kafka's kafka_exception-* headers
			assertThat(header(dead, "kafka_exception-message")).contains("is null");
			// one hop, main topic to -dlt topic; through the retry topics it would carry one attempts header per hop
			assertThat(dead.headers().headers("retry_topic-attempts")).hasSize(1);
			assertThat(header(dead, IdempotencyHeaders.REJECTION_REASON)).isEqualTo("NULL");
		}
		// rejected once, on the main topic: a bad key is not retried through the retry topics (whose containers'
		// group ids, and so default scopes, start with the listener's)
		assertThat(countInScopesStartingWith(this.group, MicrometerClaimListener.REJECTED) - rejectedBefore).isOne();
	}

}
