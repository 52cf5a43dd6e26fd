package dev.idempotent.it.stacks;

import dev.idempotent.it.KafkaTestSupport;
import dev.idempotent.metrics.MicrometerClaimListener;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.kafka.test.context.EmbeddedKafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A {@code RecordFilterStrategy} on a single-record listener: filtered records are not claimed (not even
 * validated: a filtered record without a key is not dead-lettered), their offsets move on, and the records
 * around them take effect once.
 */
@SpringBootTest(classes = RecordFilterStackApplication.class)
@EmbeddedKafka(partitions = 1, topics = RecordFilterStackApplication.TOPIC)
abstract class AbstractRecordFilterStackIT extends AbstractStackIT {

	static final String TOPIC = RecordFilterStackApplication.TOPIC;

	@Value("${it.run}-filter")
	String group;

	@Test
	void filteredRecordsAreNotClaimedTheirOffsetsMoveOnAndNoRecordIsLost() throws Exception {
		String before = RUN + "-before";
		String skipped = RUN + "-skipped";
		String after = RUN + "-after";
		try (KafkaTestSupport kafka = kafka()) {
			kafka.send(TOPIC, before, "pay");
			kafka.send(TOPIC, skipped, "skip me");
			kafka.send(TOPIC, null, "skip me too, I have no key");
			kafka.send(TOPIC, after, "pay");
			await().atMost(KafkaTestSupport.timeout())
				.until(() -> Integer.valueOf(1).equals(status(this.group, after)) && kafka.lag(this.group, TOPIC) == 0);
			long hitsBefore = hits(this.group);
			kafka.send(TOPIC, before, "pay");
			await().atMost(KafkaTestSupport.timeout()).until(() -> hits(this.group) - hitsBefore == 1);
			await().atMost(KafkaTestSupport.timeout()).until(() -> kafka.lag(this.group, TOPIC) == 0);
		}
		assertThat(this.payments.rows(this.group, before)).isOne();
		assertThat(this.payments.rows(this.group, after)).isOne();
		assertThat(status(this.group, before)).isOne();
		assertThat(this.attempts.of(skipped)).isZero();
		assertThat(this.payments.rows(this.group, skipped)).isZero();
		assertThat(claimsOfKey(skipped)).isEmpty();
		assertThat(count(this.group, MicrometerClaimListener.REJECTED)).isZero();
	}

}
