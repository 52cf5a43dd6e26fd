package dev.idempotent.it;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.UUID;

import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.kafka.test.EmbeddedKafkaBroker;
import org.springframework.kafka.test.condition.EmbeddedKafkaCondition;
import org.springframework.kafka.test.context.EmbeddedKafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Outputs survive a crash: a consumer in a child JVM sends one output per record through the application's
 * {@code KafkaTemplate} and is killed with SIGKILL right after the database commit of a record, before its output was
 * delivered (a 30 s linger keeps it in the producer) or, under a Kafka transaction, before the Kafka commit; a
 * restarted consumer finds the record's claim (a hit) and sends its stored output. Without Kafka transactions every
 * input's output is then on the output topic at least once; with them, a {@code read_committed} reader sees each
 * exactly once.
 */
@EmbeddedKafka(partitions = 1, topics = { AbstractOutputsCrashIT.IN, AbstractOutputsCrashIT.OUT,
		AbstractOutputsCrashIT.TX_IN, AbstractOutputsCrashIT.TX_OUT },
		brokerProperties = { "transaction.state.log.replication.factor=1", "transaction.state.log.min.isr=1" })
abstract class AbstractOutputsCrashIT {

	static final String IN = "outputs-crash.in";

	static final String OUT = "outputs-crash.out";

	static final String TX_IN = "outputs-crash.tx-in";

	static final String TX_OUT = "outputs-crash.tx-out";

	/** Child JVMs start slowly on a loaded machine: how long a step involving one may take. */
	private static final Duration CHILD_TIMEOUT = Duration.ofMinutes(4);

	private final ItDatabase database;

	private final ItLedger ledger;

	AbstractOutputsCrashIT(ItDatabase database) {
		this.database = database;
		this.ledger = new ItLedger(new JdbcTemplate(database.dataSource()));
	}

	/**
	 * Also with offsets stored in the claims' transactions: the claim's transaction, having stored an output, leaves the
	 * stored offset at its record, so the restart reads it again (a hit) and sends the output.
	 */
	@ParameterizedTest(name = "offsets stored with the claims: {0}")
	@ValueSource(booleans = { false, true })
	void killedAfterTheDatabaseCommitBeforeTheOutputWasDeliveredTheRestartSendsItAtLeastOnce(boolean storedOffsets)
			throws Exception {
		EmbeddedKafkaBroker broker = EmbeddedKafkaCondition.getBroker();
		String group = UUID.randomUUID().toString().substring(0, 8) + "-outputs";
		List<String> keys = keys(group, 4);
		String victim = keys.get(0);
		String offsets = "--idempotent.offsets.enabled=" + storedOffsets;
		try (KafkaTestSupport kafka = new KafkaTestSupport(broker.getBrokersAsString());
				DeadLetterReader out = new DeadLetterReader(broker.getBrokersAsString(), OUT)) {
			kafka.sendAll(IN, keys);
			try (ChildConsumer first = start("outputs-1", kafka, IN, group, "--it.out-topic=" + OUT, offsets,
					"--crash.after-commit-of=" + victim, "--spring.kafka.producer.properties.linger.ms=30000")) {
				first.awaitLine("CRASH-POINT after-commit " + victim, CHILD_TIMEOUT);
				first.kill();
			}
			assertThat(this.ledger.rows(group, victim)).as("committed before the crash").isOne();
			assertThat(out.readToEnd()).extracting(ConsumerRecord::value)
				.as("the output was still in the killed producer")
				.doesNotContain("out:" + victim);

			try (ChildConsumer second = start("outputs-2", kafka, IN, group, "--it.out-topic=" + OUT, offsets)) {
				await().atMost(CHILD_TIMEOUT).until(() -> kafka.lag(group, IN) == 0);
				List<String> values = out.readToEnd().stream().map(ConsumerRecord::value).toList();
				for (String key : keys) {
					assertThat(values).as(key).contains("out:" + key);
				}
			}
		}
		assertEachKeyCreditedOnce(group, keys);
	}

	@Test
	void killedBetweenTheDatabaseCommitAndTheKafkaCommitTheOutputIsSeenExactlyOnce(EmbeddedKafkaBroker broker)
			throws Exception {
		String group = UUID.randomUUID().toString().substring(0, 8) + "-outputs-tx";
		List<String> keys = keys(group, 4);
		String victim = keys.get(1);
		String transactions = "--spring.kafka.producer.transaction-id-prefix=" + group + "-tx-";
		try (KafkaTestSupport kafka = new KafkaTestSupport(broker.getBrokersAsString());
				DeadLetterReader out = new DeadLetterReader(broker.getBrokersAsString(), TX_OUT)) {
			kafka.sendAll(TX_IN, keys);
			try (ChildConsumer first = start("outputs-tx-1", kafka, TX_IN, group, "--it.out-topic=" + TX_OUT,
					"--crash.after-commit-of=" + victim, transactions,
					"--spring.kafka.producer.properties.transaction.timeout.ms=10000")) {
				first.awaitLine("CRASH-POINT after-commit " + victim, CHILD_TIMEOUT);
				first.kill();
			}
			assertThat(this.ledger.rows(group, victim)).as("committed before the crash").isOne();

			try (ChildConsumer second = start("outputs-tx-2", kafka, TX_IN, group, "--it.out-topic=" + TX_OUT,
					transactions)) {
				await().atMost(CHILD_TIMEOUT).until(() -> kafka.lag(group, TX_IN) == 0);
				List<String> values = out.readToEnd().stream().map(ConsumerRecord::value).toList();
				for (String key : keys) {
					assertThat(values).as(key).containsOnlyOnce("out:" + key);
				}
				assertThat(values).hasSize(keys.size());
			}
		}
		assertEachKeyCreditedOnce(group, keys);
	}

	private ChildConsumer start(String name, KafkaTestSupport kafka, String topic, String group, String... args)
			throws java.io.IOException {
		List<String> arguments = new ArrayList<>(this.database.arguments());
		arguments.add("--it.mode=outputs");
		arguments.add("--idempotent.jdbc.initialize-schema=always");
		arguments.addAll(List.of(args));
		return ChildConsumer.start(this.database.name().toLowerCase(Locale.ROOT) + "-" + name, kafka.bootstrapServers(),
				topic, group, arguments.toArray(String[]::new));
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
