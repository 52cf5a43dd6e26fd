package dev.idempotent.it;

import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;

import dev.idempotent.claim.ClaimMode;
import dev.idempotent.kafka.GroupCommit;
import dev.idempotent.kafka.IdempotentListener;
import io.micrometer.core.instrument.MeterRegistry;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.kafka.annotation.KafkaListener;
import org.springframework.kafka.config.KafkaListenerEndpointRegistry;
import org.springframework.kafka.listener.MessageListenerContainer;
import org.springframework.kafka.test.EmbeddedKafkaBroker;
import org.springframework.kafka.test.context.EmbeddedKafka;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Offsets stored in the claims' transactions ({@code idempotent.offsets.enabled=true}), end to end, for a single-record
 * listener, a batch listener, a single-record listener with group commit and one in LEASED mode: a consumer starts from the stored offsets whatever Kafka's committed offset says, so a lost or
 * reset Kafka offset redelivers nothing; records whose commits the database lost (what a failover to a replica that
 * lacked them, or a restore, leaves behind: the claims, the business rows and the stored offset of the last records gone
 * together) are read again, whether the consumer restarts or keeps running across the loss. Each key is credited once.
 */
@SpringBootTest(classes = { ItApplication.class, BatchContainerFactory.class, StoredOffsetsIT.Listeners.class },
		properties = { "idempotent.offsets.enabled=true", "idempotent.retry.interval=100ms" })
@EmbeddedKafka(partitions = 1, topics = { StoredOffsetsIT.RECORDS, StoredOffsetsIT.BATCHES, StoredOffsetsIT.GROUPED,
		StoredOffsetsIT.LEASED })
class StoredOffsetsIT {

	static final String RECORDS = "stored-offsets.records";

	static final String BATCHES = "stored-offsets.batches";

	static final String GROUPED = "stored-offsets.grouped";

	static final String LEASED = "stored-offsets.leased";

	static final String PREFIX = UUID.randomUUID().toString().substring(0, 8);

	@Autowired
	ItLedger ledger;

	@Autowired
	EmbeddedKafkaBroker broker;

	@Autowired
	MeterRegistry meters;

	@Autowired
	JdbcTemplate jdbc;

	@Autowired
	KafkaListenerEndpointRegistry registry;

	@DynamicPropertySource
	static void groups(DynamicPropertyRegistry registry) {
		registry.add("it.prefix", () -> PREFIX);
	}

	@ParameterizedTest
	@ValueSource(strings = { "record", "batch", "grouped", "leased" })
	void theDatabaseDecidesWhereEachConsumerContinues(String kind) throws Exception {
		String group = PREFIX + "-" + kind;
		String topic = switch (kind) {
			case "record" -> RECORDS;
			case "batch" -> BATCHES;
			case "grouped" -> GROUPED;
			default -> LEASED;
		};
		MessageListenerContainer container = this.registry.getListenerContainer(kind);
		try (KafkaTestSupport kafka = new KafkaTestSupport(this.broker.getBrokersAsString())) {
			kafka.sendAll(topic, keys(0, 10));
			awaitCredited(group, topic, 10);

			// Kafka's committed offset reset (lost, or a crash before its commit): nothing is delivered twice
			container.stop();
			resetKafkaOffset(group, topic);
			container.start();
			kafka.send(topic, "k-10", "payload-k-10");
			awaitCredited(group, topic, 11);
			assertThat(kafka.committedOffset(group, new TopicPartition(topic, 0))).isEqualTo(11);

			// the database lost its last four commits while the consumer was down: those records are read again
			container.stop();
			loseCommits(group, topic, keys(7, 11), 7);
			container.start();
			awaitCredited(group, topic, 11);

			// and while it runs: its next transaction finds the stored offset moved back and reads from there again
			loseCommits(group, topic, keys(8, 11), 8);
			kafka.send(topic, "k-11", "payload-k-11");
			awaitCredited(group, topic, 12);
		}
		assertThat(this.ledger.doubleCredits(group)).isEmpty();
		assertThat(ClaimMeters.hits(this.meters, group)).as("no record the database held was read again").isZero();
	}

	/** Wait until each of the first {@code count} keys is credited once and the stored offset follows the last. */
	private void awaitCredited(String group, String topic, int count) {
		await().atMost(KafkaTestSupport.timeout())
			.untilAsserted(() -> {
				assertThat(this.ledger.distinctKeys(group)).isEqualTo(count);
				assertThat(this.ledger.rows(group)).isEqualTo(count);
				assertThat(storedOffset(group, topic)).isEqualTo(count);
			});
	}

	private long storedOffset(String group, String topic) {
		List<Long> offsets = this.jdbc.queryForList("SELECT next_offset FROM idempotent_claim_offset WHERE consumer_group"
				+ " = ? AND topic = ? AND partition_id = 0", Long.class, group, topic);
		return offsets.isEmpty() ? -1 : offsets.get(0);
	}

	/**
	 * What a database that lost its last commits holds: neither the business rows nor the claims of those records, and
	 * the stored offset of the last commit it kept.
	 */
	private void loseCommits(String group, String topic, List<String> keys, long storedOffset) {
		for (String key : keys) {
			this.jdbc.update("DELETE FROM it_ledger WHERE grp = ? AND idem_key = ?", group, key);
			this.jdbc.update("DELETE FROM idempotent_claim WHERE scope = ? AND idempotency_key = ?", group, key);
		}
		this.jdbc.update("UPDATE idempotent_claim_offset SET next_offset = ? WHERE consumer_group = ? AND topic = ?",
				storedOffset, group, topic);
	}

	private void resetKafkaOffset(String group, String topic) throws Exception {
		try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG,
				this.broker.getBrokersAsString()))) {
			await().atMost(KafkaTestSupport.timeout()).ignoreExceptions().untilAsserted(() -> admin
				.alterConsumerGroupOffsets(group, Map.of(new TopicPartition(topic, 0), new OffsetAndMetadata(0)))
				.all()
				.get(30, TimeUnit.SECONDS));
		}
	}

	private static List<String> keys(int from, int to) {
		return IntStream.range(from, to).mapToObj((i) -> "k-" + i).toList();
	}

	static class Listeners {

		private final ItLedger ledger;

		Listeners(ItLedger ledger) {
			this.ledger = ledger;
		}

		@KafkaListener(id = "record", topics = RECORDS, groupId = "${it.prefix}-record")
		@IdempotentListener
		public void onRecord(ConsumerRecord<String, String> record) {
			this.ledger.credit(PREFIX + "-record", record.key(), record.value());
		}

		@KafkaListener(id = "batch", topics = BATCHES, groupId = "${it.prefix}-batch",
				containerFactory = "batchFactory")
		@IdempotentListener
		public void onBatch(List<ConsumerRecord<String, String>> records) {
			records.forEach((record) -> this.ledger.credit(PREFIX + "-batch", record.key(), record.value()));
		}

		@KafkaListener(id = "grouped", topics = GROUPED, groupId = "${it.prefix}-grouped")
		@IdempotentListener(groupCommit = GroupCommit.ENABLED)
		public void onGroupedRecord(ConsumerRecord<String, String> record) {
			this.ledger.credit(PREFIX + "-grouped", record.key(), record.value());
		}

		/** The ledger stands for the remote side effect; the offset is stored with the completion. */
		@KafkaListener(id = "leased", topics = LEASED, groupId = "${it.prefix}-leased")
		@IdempotentListener(mode = ClaimMode.LEASED, lease = "2s")
		public void onLeasedRecord(ConsumerRecord<String, String> record) {
			this.ledger.credit(PREFIX + "-leased", record.key(), record.value());
		}

	}

}
