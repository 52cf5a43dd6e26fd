package dev.idempotent.it;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

import javax.sql.DataSource;

import dev.idempotent.claim.IdempotencyContext;
import dev.idempotent.kafka.GroupCommit;
import dev.idempotent.kafka.IdempotentListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.kafka.annotation.KafkaListener;
import org.springframework.kafka.support.KafkaHeaders;
import org.springframework.kafka.support.serializer.DeserializationException;
import org.springframework.kafka.test.EmbeddedKafkaBroker;
import org.springframework.kafka.test.context.EmbeddedKafka;
import org.springframework.messaging.handler.annotation.Payload;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.transaction.support.TransactionSynchronizationManager;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Group commit of an unchanged single-record listener on a real broker and a real database: the records of a poll
 * share a transaction, a record that always fails mid-group is dead-lettered alone (its key FAILED) while every other
 * key takes effect exactly once, in-group repeats and keys processed before are skipped without calling the method.
 * The listener opts in with {@code groupCommit = ENABLED}; {@code idempotent.group-commit.enabled} stays off.
 */
@SpringBootTest(classes = { ItApplication.class, AbstractGroupCommitIT.Listeners.class },
		properties = "idempotent.group-commit.max-records=50")
@EmbeddedKafka(partitions = 1, topics = { AbstractGroupCommitIT.TOPIC, AbstractGroupCommitIT.TOPIC + ".DLT",
		AbstractGroupCommitIT.LISTS_TOPIC, AbstractGroupCommitIT.LISTS_TOPIC + ".DLT", AbstractGroupCommitIT.COUNTS_TOPIC,
		AbstractGroupCommitIT.COUNTS_TOPIC + ".DLT" })
abstract class AbstractGroupCommitIT {

	static final String TOPIC = "group-commit.payments";

	static final String GROUP = "group-commit-" + UUID.randomUUID().toString().substring(0, 8);

	static final String LISTS_TOPIC = "group-commit.price-lists";

	static final String LISTS_GROUP = GROUP + "-lists";

	/** Records whose value is a 4-byte integer, read through spring-kafka's ErrorHandlingDeserializer. */
	static final String COUNTS_TOPIC = "group-commit.counts";

	static final String COUNTS_GROUP = GROUP + "-counts";

	@Autowired
	ItLedger ledger;

	@Autowired
	EmbeddedKafkaBroker broker;

	@Autowired
	JdbcTemplate jdbc;

	@Autowired
	GroupCommitListener listener;

	@Autowired
	ListPayloadListener listPayloads;

	@Autowired
	CountListener counts;

	@DynamicPropertySource
	static void group(DynamicPropertyRegistry registry) {
		registry.add("it.group-commit.group", () -> GROUP);
		registry.add("it.group-commit.lists-group", () -> LISTS_GROUP);
		registry.add("it.group-commit.counts-group", () -> COUNTS_GROUP);
	}

	@Test
	void aFailingRecordMidGroupIsDeadLetteredAloneAndEveryOtherKeyTakesEffectOnce() throws Exception {
		String run = UUID.randomUUID().toString().substring(0, 8);
		List<String> keys = new ArrayList<>();
		for (int i = 0; i < 30; i++) {
			keys.add(run + "-order-" + i);
		}
		String poison = run + "-poison";
		List<String> sent = new ArrayList<>(keys.subList(0, 12));
		sent.add(poison);
		sent.add(keys.get(3));
		sent.addAll(keys.subList(12, 30));
		sent.add(keys.get(20));
		try (KafkaTestSupport kafka = new KafkaTestSupport(this.broker.getBrokersAsString());
				DeadLetterReader deadLetters = new DeadLetterReader(this.broker.getBrokersAsString(), TOPIC + ".DLT")) {
			kafka.sendAll(TOPIC, sent);
			await().atMost(KafkaTestSupport.timeout()).until(() -> kafka.lag(GROUP, TOPIC) == 0);
			List<ConsumerRecord<String, String>> dead = deadLetters.readToEnd();
			assertThat(dead).extracting(ConsumerRecord::value)
				.filteredOn((value) -> value.contains(run))
				.containsExactly("payload-" + poison);
		}
		for (String key : keys) {
			assertThat(this.ledger.rows(GROUP, key)).as(key).isOne();
		}
		assertThat(this.ledger.rows(GROUP, poison)).isZero();
		assertThat(this.ledger.doubleCredits(GROUP)).isEmpty();
		assertThat(new ClaimTable(this.jdbc).status(GROUP, poison)).as("FAILED").isEqualTo(2);
		// the records before the poison ran in the group that failed, then in the smaller group that committed; the repeat
		// of key 3 (after the poison) is a hit, and the in-group repeat of key 20 is skipped
		assertThat(this.listener.calls(keys.get(3))).as("a repeat does not call the method")
			.isEqualTo(this.listener.calls(keys.get(0)));
		assertThat(this.listener.calls(keys.get(20))).as("an in-group repeat does not call the method").isOne();
		assertThat(this.listener.calls(poison)).as("retried, then dead-lettered").isGreaterThan(1);
		assertThat(this.listener.largestTransaction())
			.as("several records committed in one transaction: group commit is in effect")
			.isGreaterThan(1);
	}

	@Test
	void aReplayOfProcessedKeysIsSkippedWithoutCallingTheMethod() throws Exception {
		String run = UUID.randomUUID().toString().substring(0, 8);
		List<String> keys = new ArrayList<>();
		for (int i = 0; i < 20; i++) {
			keys.add(run + "-replayed-" + i);
		}
		try (KafkaTestSupport kafka = new KafkaTestSupport(this.broker.getBrokersAsString())) {
			kafka.sendAll(TOPIC, keys);
			await().atMost(KafkaTestSupport.timeout()).until(() -> kafka.lag(GROUP, TOPIC) == 0);
			kafka.sendAll(TOPIC, keys);
			await().atMost(KafkaTestSupport.timeout()).until(() -> kafka.lag(GROUP, TOPIC) == 0);
		}
		for (String key : keys) {
			assertThat(this.ledger.rows(GROUP, key)).as(key).isOne();
			assertThat(this.listener.calls(key)).as(key).isOne();
		}
	}

	@Test
	void aRecordMethodWhosePayloadIsAListRunsOncePerRecordNotAsABatchOfThePoll() throws Exception {
		// each record's value converts to a List of two lines; the method is a single-record one in a group commit
		String run = UUID.randomUUID().toString().substring(0, 8);
		List<String> keys = new ArrayList<>();
		for (int i = 0; i < 40; i++) {
			keys.add(run + "-prices-" + i);
		}
		try (KafkaTestSupport kafka = new KafkaTestSupport(this.broker.getBrokersAsString());
				DeadLetterReader deadLetters = new DeadLetterReader(this.broker.getBrokersAsString(),
						LISTS_TOPIC + ".DLT")) {
			kafka.sendAll(LISTS_TOPIC, keys, (key) -> key + "-open," + key + "-close");
			await().atMost(KafkaTestSupport.timeout()).until(() -> kafka.lag(LISTS_GROUP, LISTS_TOPIC) == 0);
			assertThat(deadLetters.readToEnd()).extracting(ConsumerRecord::value)
				.filteredOn((value) -> value.contains(run))
				.isEmpty();
		}
		for (String key : keys) {
			assertThat(this.ledger.rows(LISTS_GROUP, key)).as(key).isOne();
			assertThat(this.listPayloads.lines(key)).as(key).containsExactly(key + "-open", key + "-close");
		}
		assertThat(this.ledger.doubleCredits(LISTS_GROUP)).isEmpty();
	}

	@Test
	void aRerunGroupConvertsEachRecordAgainSoAMethodDoesNotSeeItsOwnChanges() throws Exception {
		// the poison fails the group; the records before it run again, in a smaller group, with fresh arguments
		String run = UUID.randomUUID().toString().substring(0, 8);
		List<String> keys = List.of(run + "-mutated-1", run + "-mutated-2", run + "-mutated-poison");
		try (KafkaTestSupport kafka = new KafkaTestSupport(this.broker.getBrokersAsString());
				DeadLetterReader deadLetters = new DeadLetterReader(this.broker.getBrokersAsString(),
						LISTS_TOPIC + ".DLT")) {
			kafka.sendAll(LISTS_TOPIC, keys, (key) -> key + "-open," + key + "-close");
			deadLetters.awaitValue(keys.get(2) + "-open," + keys.get(2) + "-close");
			await().atMost(KafkaTestSupport.timeout()).until(() -> kafka.lag(LISTS_GROUP, LISTS_TOPIC) == 0);
		}
		for (String key : keys.subList(0, 2)) {
			assertThat(this.listPayloads.lines(key)).as(key + ": its own lines, converted for this run")
				.containsExactly(key + "-open", key + "-close", "seen");
		}
	}

	@Test
	void aRecordTheDeserializerCouldNotReadIsDeadLetteredAtOnceAndTheOthersTakeEffect() throws Exception {
		String run = UUID.randomUUID().toString().substring(0, 8);
		try (KafkaTestSupport kafka = new KafkaTestSupport(this.broker.getBrokersAsString());
				DeadLetterReader deadLetters = new DeadLetterReader(this.broker.getBrokersAsString(),
						COUNTS_TOPIC + ".DLT")) {
			// a 4-byte value reads as an Integer; three bytes cannot
			kafka.sendAll(COUNTS_TOPIC, List.of(run + "-count-1", run + "-unreadable", run + "-count-2"),
					(key) -> key.endsWith("unreadable") ? "bad" : "1234");
			ConsumerRecord<String, String> dead = deadLetters.awaitValue("bad");
			assertThat(DeadLetterReader.header(dead, KafkaHeaders.DLT_EXCEPTION_FQCN))
				.isEqualTo(DeserializationException.class.getName());
			await().atMost(KafkaTestSupport.timeout()).until(() -> kafka.lag(COUNTS_GROUP, COUNTS_TOPIC) == 0);
		}
		assertThat(this.ledger.rows(COUNTS_GROUP, run + "-count-1")).isOne();
		assertThat(this.ledger.rows(COUNTS_GROUP, run + "-count-2")).isOne();
		assertThat(this.ledger.rows(COUNTS_GROUP, run + "-unreadable")).as("never reached the method").isZero();
		assertThat(this.counts.attempts(run + "-unreadable")).isZero();
	}

	/** A single-record listener whose payload parameter is a {@code List} (a record's value holding several items). */
	static class ListPayloadListener {

		private final ItLedger ledger;

		private final Map<String, List<String>> lines = new ConcurrentHashMap<>();

		ListPayloadListener(ItLedger ledger) {
			this.ledger = ledger;
		}

		@KafkaListener(topics = LISTS_TOPIC, groupId = "${it.group-commit.lists-group}")
		@IdempotentListener(groupCommit = GroupCommit.ENABLED)
		public void onPrices(@Payload List<String> prices) {
			String key = IdempotencyContext.currentKey();
			if (key.contains("mutated")) {
				prices.add("seen"); // a method that changes its argument
			}
			this.lines.put(key, List.copyOf(prices));
			this.ledger.credit(LISTS_GROUP, key, String.join("|", prices));
			if (key.contains("mutated-poison")) {
				throw new IllegalStateException("cannot take " + key);
			}
		}

		List<String> lines(String key) {
			return this.lines.getOrDefault(key, List.of());
		}

	}

	/** A single-record listener of integer values, read through spring-kafka's ErrorHandlingDeserializer. */
	static class CountListener {

		private final ItLedger ledger;

		private final Map<String, AtomicInteger> attempts = new ConcurrentHashMap<>();

		CountListener(ItLedger ledger) {
			this.ledger = ledger;
		}

		@KafkaListener(topics = COUNTS_TOPIC, groupId = "${it.group-commit.counts-group}",
				properties = { "value.deserializer=org.springframework.kafka.support.serializer.ErrorHandlingDeserializer",
						"spring.deserializer.value.delegate.class=org.apache.kafka.common.serialization.IntegerDeserializer" })
		@IdempotentListener(groupCommit = GroupCommit.ENABLED)
		public void onCount(ConsumerRecord<String, Integer> record) {
			this.attempts.computeIfAbsent(record.key(), (key) -> new AtomicInteger()).incrementAndGet();
			this.ledger.credit(COUNTS_GROUP, record.key(), String.valueOf(record.value()));
		}

		int attempts(String key) {
			AtomicInteger count = this.attempts.get(key);
			return (count != null) ? count.get() : 0;
		}

	}

	/**
	 * An ordinary single-record listener: it credits the ledger, and throws for a key containing "poison". It records
	 * how many records each transaction (the connection holder bound to it) processed.
	 */
	static class GroupCommitListener {

		private final ItLedger ledger;

		private final DataSource dataSource;

		private final Map<String, AtomicInteger> calls = new ConcurrentHashMap<>();

		private final Map<Object, AtomicInteger> perTransaction = new ConcurrentHashMap<>();

		GroupCommitListener(ItLedger ledger, DataSource dataSource) {
			this.ledger = ledger;
			this.dataSource = dataSource;
		}

		@KafkaListener(topics = TOPIC, groupId = "${it.group-commit.group}")
		@IdempotentListener(groupCommit = GroupCommit.ENABLED)
		public void credit(ConsumerRecord<String, String> record) {
			String key = IdempotencyContext.currentKey();
			this.calls.computeIfAbsent(key, (k) -> new AtomicInteger()).incrementAndGet();
			Object transaction = TransactionSynchronizationManager.getResource(this.dataSource);
			this.perTransaction.computeIfAbsent(System.identityHashCode(transaction), (k) -> new AtomicInteger())
				.incrementAndGet();
			this.ledger.credit(GROUP, key, record.value());
			if (key.contains("poison")) {
				throw new IllegalStateException("poison record " + key);
			}
		}

		int calls(String key) {
			AtomicInteger count = this.calls.get(key);
			return (count != null) ? count.get() : 0;
		}

		int largestTransaction() {
			Collection<AtomicInteger> counts = this.perTransaction.values();
			return counts.stream().mapToInt(AtomicInteger::get).max().orElse(0);
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class Listeners {

		@Bean
		GroupCommitListener groupCommitListener(ItLedger ledger, DataSource dataSource) {
			return new GroupCommitListener(ledger, dataSource);
		}

		@Bean
		ListPayloadListener listPayloadListener(ItLedger ledger) {
			return new ListPayloadListener(ledger);
		}

		@Bean
		CountListener countListener(ItLedger ledger) {
			return new CountListener(ledger);
		}

	}

}
