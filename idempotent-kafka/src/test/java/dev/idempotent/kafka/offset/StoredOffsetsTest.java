package dev.idempotent.kafka.offset;

import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import javax.sql.DataSource;

import dev.idempotent.claim.DeliverySource;
import dev.idempotent.jdbc.JdbcOffsetStore;
import dev.idempotent.jdbc.SchemaInitializer;
import dev.idempotent.jdbc.SqlDialect;
import dev.idempotent.jdbc.TableName;
import dev.idempotent.testsupport.TestDatabases;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.MockConsumer;
import org.apache.kafka.clients.consumer.OffsetResetStrategy;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.kafka.support.KafkaUtils;
import org.springframework.transaction.support.TransactionTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Which records a consumer that seeks to a stored offset gives to its listener, on Kafka's {@link MockConsumer} (its
 * fetches start at the consumer's position, as a broker's do) and a real offset table (H2): the first record fetched
 * from the stored offset, never one fetched before the seek, nor one an error handler's seek brought back in between;
 * past a gap at the stored offset, the record two fetches start at; from the partition's beginning when the database
 * lost the row this consumer stored.
 */
class StoredOffsetsTest {

	private static final String GROUP = "payments";

	private static final TopicPartition PARTITION = new TopicPartition("orders", 0);

	private final DataSource h2 = TestDatabases.h2();

	private final TableName table = new TableName("offs_" + Long.toHexString(System.nanoTime()));

	private final MockConsumer<String, String> consumer = new MockConsumer<>(OffsetResetStrategy.EARLIEST);

	private final List<Long> log = new java.util.ArrayList<>();

	private StoredOffsets offsets;

	@BeforeEach
	void setUp() {
		SchemaInitializer.offsets(this.h2, this.table, SqlDialect.H2).initialize();
		this.offsets = new StoredOffsets(new JdbcOffsetStore(this.h2, this.table, SqlDialect.H2, Clock.systemUTC()));
		this.offsets.revoked(List.of(PARTITION, new TopicPartition("orders", 1))); // what an earlier test left on the thread
		this.consumer.assign(List.of(PARTITION));
		this.consumer.updateBeginningOffsets(Map.of(PARTITION, 0L));
		KafkaUtils.setConsumerGroupId(GROUP);
	}

	@AfterEach
	void tearDown() {
		KafkaUtils.clearConsumerGroupId();
		TestDatabases.drop(this.h2, this.table.value());
	}

	@Test
	void aRecordAfterTheStoredOffsetMakesTheConsumerReadFromThereAndAnErrorHandlersSeekIsUndone() {
		store(5);
		this.consumer.seek(PARTITION, 10);
		addRecords(5, 12);

		List<Long> first = pollAdmitted();
		assertThat(first).as("fetched before the seek").isEmpty();
		assertThat(this.consumer.position(PARTITION)).isEqualTo(5);

		this.consumer.seek(PARTITION, 10); // an error handler seeks to the records of a failed delivery
		assertThat(pollAdmitted()).as("fetched from another seek than the stored offset's").isEmpty();
		assertThat(this.consumer.position(PARTITION)).as("sought back").isEqualTo(5);
		assertThat(pollAdmitted()).containsExactly(5L, 6L, 7L, 8L, 9L, 10L, 11L);
	}

	@Test
	void theLibrarysErrorHandlersRestoreTheSeekAfterTheirOwnHoweverOftenTheyFail() {
		store(5);
		this.consumer.seek(PARTITION, 10);
		addRecords(5, 12);
		assertThat(pollAdmitted()).isEmpty();
		for (int failures = 0; failures < 3; failures++) {
			this.consumer.seek(PARTITION, 10); // an error handler, to the poll's records as they came
			StoredOffsets.restoreSeeks(this.consumer);
			assertThat(this.consumer.position(PARTITION)).isEqualTo(5);
		}
		assertThat(pollAdmitted()).containsExactly(5L, 6L, 7L, 8L, 9L, 10L, 11L);
	}

	@Test
	void recordsBelowAStoredOffsetAheadOfKafkasAreSkippedHoweverOftenTheyAreDelivered() {
		store(8);
		this.consumer.seek(PARTITION, 3);
		this.consumer.updateEndOffsets(Map.of(PARTITION, 12L));
		addRecords(3, 12);
		ConsumerRecord<String, String> stale = new ConsumerRecord<>("orders", 0, 3, "k", "v");
		assertThat(pollAdmitted()).as("processed already: the database stores 8").isEmpty();
		assertThat(this.offsets.admit(stale, this.consumer)).as("delivered again from memory").isFalse();
		assertThat(this.offsets.admit(stale, this.consumer)).isFalse();
		assertThat(pollAdmitted()).containsExactly(8L, 9L, 10L, 11L);
	}

	@Test
	void aStoredOffsetBeyondThePartitionsLogLeavesTheConsumerWhereKafkaReset() {
		store(50);
		this.consumer.seek(PARTITION, 0);
		this.consumer.updateEndOffsets(Map.of(PARTITION, 3L));
		addRecords(0, 3);
		assertThat(pollAdmitted()).isEmpty();
		this.consumer.seek(PARTITION, 0); // auto.offset.reset: 50 is out of range
		assertThat(pollAdmitted()).containsExactly(0L, 1L, 2L);
	}

	@Test
	void pastAGapAtTheStoredOffsetTheFirstRecordTwoFetchesStartAtIsTaken() {
		store(5);
		this.consumer.seek(PARTITION, 9);
		addRecords(7, 10); // 5 and 6 compacted away
		assertThat(pollAdmitted()).isEmpty();
		assertThat(pollAdmitted()).as("the fetch from 5 starts at 7: once could be another seek").isEmpty();
		assertThat(pollAdmitted()).containsExactly(7L, 8L, 9L);
	}

	@Test
	void aRecordAtTheStoredOffsetIsTakenAtOnceAndWithoutAStoredOffsetKafkasPositionHolds() {
		store(3);
		this.consumer.seek(PARTITION, 3);
		addRecords(3, 5);
		assertThat(pollAdmitted()).containsExactly(3L, 4L);
		assertThat(this.offsets.admit(new ConsumerRecord<>("orders", 1, 8, "k", "v"), this.consumer))
			.as("nothing stored for partition 1").isTrue();
	}

	@Test
	void aDatabaseThatLostTheRowThisConsumerStoredMakesItReadThePartitionFromItsBeginning() {
		store(3);
		this.consumer.seek(PARTITION, 3);
		addRecords(0, 5);
		assertThat(pollAdmitted()).containsExactly(3L, 4L);
		new JdbcTemplate(this.h2).update("DELETE FROM " + this.table);

		TransactionTemplate transaction = new TransactionTemplate(new DataSourceTransactionManager(this.h2));
		assertThatExceptionOfType(StoredOffsetMovedException.class).isThrownBy(() -> transaction
			.executeWithoutResult((status) -> this.offsets.store(List.of(new DeliverySource("orders", 0, 3)))));
		this.consumer.seek(PARTITION, 3); // the error handler, to the failed record
		assertThat(pollAdmitted()).isEmpty();
		assertThat(pollAdmitted()).as("the fetch from the beginning starts at 0: once could be another seek").isEmpty();
		assertThat(pollAdmitted()).containsExactly(0L, 1L, 2L, 3L, 4L);
	}

	@Test
	void aConsumerWithoutAGroupReadsAsWithoutTheLibrary() {
		store(5);
		KafkaUtils.clearConsumerGroupId();
		assertThat(this.offsets.admit(new ConsumerRecord<>("orders", 0, 10, "k", "v"), this.consumer)).isTrue();
	}

	private void store(long offset) {
		new JdbcTemplate(this.h2).update("INSERT INTO " + this.table + " (consumer_group, topic, partition_id,"
				+ " next_offset, updated_at) VALUES (?, ?, ?, ?, CURRENT_TIMESTAMP)", GROUP, PARTITION.topic(),
				PARTITION.partition(), offset);
	}

	/** Write records to the partition's log. */
	private void addRecords(int from, int to) {
		for (long offset = from; offset < to; offset++) {
			this.log.add(offset);
		}
	}

	/**
	 * Poll once, fetching the log from the consumer's position (a {@link MockConsumer} forgets the records it returned:
	 * they are given to it again), and return the offsets of the records the stored offsets admit, as the batch
	 * interceptor would.
	 */
	private List<Long> pollAdmitted() {
		for (long offset : this.log) {
			this.consumer.addRecord(new ConsumerRecord<>(PARTITION.topic(), PARTITION.partition(), offset, "k", "v"));
		}
		return this.offsets.admitted(this.consumer.poll(Duration.ZERO), this.consumer)
			.records(PARTITION)
			.stream()
			.map(ConsumerRecord::offset)
			.toList();
	}

}
