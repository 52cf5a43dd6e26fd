package dev.idempotent.it.stacks;

import dev.idempotent.it.KafkaTestSupport;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Value;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The guarantees every data layer must keep when its writes run inside an {@code @IdempotentListener}: they
 * join the claim's transaction (a failure after the write rolls back the row and the claim, a success commits
 * both once, a replay is a hit that writes nothing), and a business unique violation is a failure of the record
 * (retried, dead-lettered, its key FAILED), never an idempotent hit. Each stack's subclass supplies the
 * application whose {@link PaymentWriter} uses that stack.
 */
abstract class AbstractDataLayerIT extends AbstractStackIT {

	static final String DLT = PaymentListener.TOPIC + ".DLT";

	/** The starter's default retries before the dead-letter topic. */
	static final int ATTEMPTS_BEFORE_DEAD_LETTER = 1 + 3;

	@Value("${it.run}-${it.stack}")
	String group;

	@Test
	void aSuccessCommitsTheRowAndTheClaimOnceAndAReplayIsAHitThatWritesNothing() throws Exception {
		String key = RUN + "-ok";
		try (KafkaTestSupport kafka = kafka()) {
			kafka.send(PaymentListener.TOPIC, key, this.group + "-ref-ok|ok");
			await().atMost(KafkaTestSupport.timeout()).until(() -> Integer.valueOf(1).equals(status(this.group, key)));
			assertThat(this.payments.rows(this.group, key)).isOne();

			long hitsBefore = hits(this.group);
			kafka.send(PaymentListener.TOPIC, key, this.group + "-ref-ok|ok");
			await().atMost(KafkaTestSupport.timeout()).until(() -> hits(this.group) - hitsBefore == 1);
			await().atMost(KafkaTestSupport.timeout()).until(() -> kafka.lag(this.group, PaymentListener.TOPIC) == 0);
		}
		assertThat(this.payments.rows(this.group, key)).isOne();
		assertThat(this.attempts.of(key)).isOne();
	}

	@Test
	void aFailureAfterTheWriteRollsBackTheRowAndTheClaimSoTheRetryProcessesTheRecordOnce() throws Exception {
		String key = RUN + "-fail-once";
		long hitsBefore = hits(this.group);
		try (KafkaTestSupport kafka = kafka()) {
			kafka.send(PaymentListener.TOPIC, key, this.group + "-ref-fail-once|fail-once");
			await().atMost(KafkaTestSupport.timeout()).until(() -> Integer.valueOf(1).equals(status(this.group, key)));
			await().atMost(KafkaTestSupport.timeout()).until(() -> kafka.lag(this.group, PaymentListener.TOPIC) == 0);
		}
		// a row kept from the failed call would make two; a claim kept from it would make the retry a hit
		assertThat(this.attempts.of(key)).isEqualTo(2);
		assertThat(this.payments.rows(this.group, key)).isOne();
		assertThat(hits(this.group)).isEqualTo(hitsBefore);
	}

	@Test
	void aRecordThatAlwaysFailsAfterItsWriteIsDeadLetteredWithNoRowAndItsKeyFailed() throws Exception {
		String key = RUN + "-fail-always";
		try (KafkaTestSupport kafka = kafka(); Consumer<String, String> reader = deadLetterReader(DLT)) {
			kafka.send(PaymentListener.TOPIC, key, this.group + "-ref-fail-always|fail-always");
			ConsumerRecord<String, String> dead = awaitDeadLetter(reader, key);
			assertThat(header(dead, "kafka_dlt-exception-message")).contains("on purpose");
			await().atMost(KafkaTestSupport.timeout()).until(() -> Integer.valueOf(2).equals(status(this.group, key)));
		}
		assertThat(this.attempts.of(key)).isEqualTo(ATTEMPTS_BEFORE_DEAD_LETTER);
		assertThat(this.payments.rows(this.group, key)).isZero();
	}

	@Test
	void aBusinessUniqueViolationIsAFailureOfTheRecordNeverAHit() throws Exception {
		String first = RUN + "-unique-first";
		String second = RUN + "-unique-second";
		String reference = this.group + "-ref-taken";
		long hitsBefore = hits(this.group);
		try (KafkaTestSupport kafka = kafka(); Consumer<String, String> reader = deadLetterReader(DLT)) {
			kafka.send(PaymentListener.TOPIC, first, reference + "|ok");
			await().atMost(KafkaTestSupport.timeout()).until(() -> Integer.valueOf(1).equals(status(this.group, first)));

			kafka.send(PaymentListener.TOPIC, second, reference + "|ok");
			ConsumerRecord<String, String> dead = awaitDeadLetter(reader, second);
			assertThat(header(dead, "kafka_dlt-exception-fqcn")).isNotNull();
			await().atMost(KafkaTestSupport.timeout()).until(() -> Integer.valueOf(2).equals(status(this.group, second)));
		}
		assertThat(this.attempts.of(second)).isEqualTo(ATTEMPTS_BEFORE_DEAD_LETTER);
		assertThat(hits(this.group)).isEqualTo(hitsBefore);
		assertThat(this.payments.rowsWithReference(reference)).isOne();
		assertThat(this.payments.rows(this.group, second)).isZero();
	}

}
