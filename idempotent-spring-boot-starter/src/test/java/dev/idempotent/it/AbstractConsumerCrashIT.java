package dev.idempotent.it;

import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.kafka.test.EmbeddedKafkaBroker;
import org.springframework.kafka.test.context.EmbeddedKafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The incident: a consumer in a child JVM is killed with SIGKILL at the worst moments, then restarted; every
 * key takes effect exactly once. One partition, so that offsets are easy to reason about.
 */
@EmbeddedKafka(partitions = 1, topics = { AbstractConsumerCrashIT.AFTER_COMMIT, AbstractConsumerCrashIT.BEFORE_COMMIT })
abstract class AbstractConsumerCrashIT {

	static final String AFTER_COMMIT = "crash.after-commit";

	static final String BEFORE_COMMIT = "crash.before-commit";

	private final ItDatabase database;

	final ItLedger ledger;

	AbstractConsumerCrashIT(ItDatabase database) {
		this.database = database;
		this.ledger = new ItLedger(new JdbcTemplate(database.dataSource()));
	}

	@Test
	void killedAfterTheDatabaseCommitAndBeforeTheOffsetCommit(EmbeddedKafkaBroker broker) throws Exception {
		String group = UUID.randomUUID().toString().substring(0, 8) + "-after";
		List<String> keys = keys(group, 10);
		String victim = keys.get(5);
		try (KafkaTestSupport kafka = new KafkaTestSupport(broker.getBrokersAsString())) {
			kafka.sendAll(AFTER_COMMIT, keys);
			crash(kafka, AFTER_COMMIT, group, "after-commit", victim);
			assertThat(this.ledger.rows(group, victim)).as("committed before the crash").isOne();
			assertThat(kafka.committedOffset(group, new TopicPartition(AFTER_COMMIT, 0)))
				.as("the offset of the victim (5) was not committed")
				.isLessThanOrEqualTo(5);
			try (ChildConsumer second = restartAndDrain(kafka, AFTER_COMMIT, group)) {
				second.awaitLine("Idempotent hit: scope=" + group + " key=" + ChildConsumer.MASKER.mask(victim) + " ");
			}
		}
		assertEachKeyCreditedOnce(group, keys);
	}

	@Test
	void killedInsideTheTransactionBeforeItsCommit(EmbeddedKafkaBroker broker) throws Exception {
		String group = UUID.randomUUID().toString().substring(0, 8) + "-before";
		List<String> keys = keys(group, 10);
		String victim = keys.get(5);
		try (KafkaTestSupport kafka = new KafkaTestSupport(broker.getBrokersAsString())) {
			kafka.sendAll(BEFORE_COMMIT, keys);
			crash(kafka, BEFORE_COMMIT, group, "before-commit", victim);
			afterCrashInsideTheTransaction(group, keys, victim);
			try (ChildConsumer second = restartAndDrain(kafka, BEFORE_COMMIT, group)) {
				assertThat(second.printed("key=" + ChildConsumer.MASKER.mask(victim) + " "))
					.as("the rolled-back record is processed, not a hit")
					.isFalse();
			}
		}
		assertEachKeyCreditedOnce(group, keys);
	}

	/** Extra arguments of every child consumer of this test class. */
	List<String> childArguments() {
		return List.of();
	}

	/** Check what a crash inside the transaction left, before the restart. */
	void afterCrashInsideTheTransaction(String group, List<String> keys, String victim) {
	}

	/** Run a consumer until it reaches the crash point on the victim, then kill it with SIGKILL. */
	private void crash(KafkaTestSupport kafka, String topic, String group, String point, String victim)
			throws Exception {
		try (ChildConsumer first = start(point + "-1", kafka, topic, group, "--crash." + point + "-of=" + victim)) {
			first.awaitLine("CRASH-POINT " + point + " " + victim);
			first.kill();
		}
	}

	/** Start a consumer in the same group and wait until it committed every offset. */
	private ChildConsumer restartAndDrain(KafkaTestSupport kafka, String topic, String group) throws Exception {
		ChildConsumer second = start(topic + "-2", kafka, topic, group);
		await().atMost(KafkaTestSupport.timeout()).until(() -> kafka.lag(group, topic) == 0);
		return second;
	}

	private ChildConsumer start(String name, KafkaTestSupport kafka, String topic, String group, String... args)
			throws java.io.IOException {
		List<String> arguments = new ArrayList<>(this.database.arguments());
		arguments.addAll(childArguments());
		arguments.addAll(List.of(args));
		return ChildConsumer.start(this.database.name().toLowerCase(java.util.Locale.ROOT) + "-" + name,
				kafka.bootstrapServers(), topic, group, arguments.toArray(String[]::new));
	}

	private void assertEachKeyCreditedOnce(String group, List<String> keys) {
		assertThat(this.ledger.doubleCredits(group)).isEmpty();
		for (String key : keys) {
			assertThat(this.ledger.rows(group, key)).as(key).isOne();
		}
	}

	private static List<String> keys(String group, int count) {
		List<String> keys = new ArrayList<>();
		for (int i = 0; i < count; i++) {
			keys.add(group + "-order-" + i);
		}
		return keys;
	}

}
