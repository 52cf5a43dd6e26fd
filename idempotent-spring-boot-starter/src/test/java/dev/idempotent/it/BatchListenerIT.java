package dev.idempotent.it;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;

import dev.idempotent.kafka.IdempotencyHeaders;
import dev.idempotent.kafka.IdempotentListener;
import dev.idempotent.metrics.MicrometerClaimListener;
import io.micrometer.core.instrument.MeterRegistry;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.kafka.annotation.KafkaListener;
import org.springframework.kafka.core.ConsumerFactory;
import org.springframework.kafka.core.DefaultKafkaConsumerFactory;
import org.springframework.kafka.test.EmbeddedKafkaBroker;
import org.springframework.kafka.test.context.EmbeddedKafka;
import org.springframework.kafka.test.utils.KafkaTestUtils;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Batch listeners on a real broker and MariaDB: a list of records and a list of payloads each receive only the
 * newly claimed elements (repeats within a batch and across batches are hits), and a record that fails inside a
 * batch is the only one dead-lettered while every other record takes effect once.
 */
@SpringBootTest(classes = { ItApplication.class, BatchListenerIT.Listeners.class })
@EmbeddedKafka(partitions = 1, topics = { BatchListenerIT.RECORDS, BatchListenerIT.PAYLOADS, BatchListenerIT.POISON,
		BatchListenerIT.POISON + ".DLT", BatchListenerIT.REFUSED, BatchListenerIT.REFUSED + ".DLT" })
class BatchListenerIT {

	static final String RECORDS = "batch.records";

	static final String PAYLOADS = "batch.payloads";

	static final String POISON = "batch.poison";

	static final String REFUSED = "batch.refused";

	static final String RUN = UUID.randomUUID().toString().substring(0, 8);

	static final List<Integer> batchSizes = new CopyOnWriteArrayList<>();

	@Autowired
	ItLedger ledger;

	@Autowired
	MeterRegistry meters;

	@Autowired
	EmbeddedKafkaBroker broker;

	@Autowired
	JdbcTemplate jdbc;

	@DynamicPropertySource
	static void run(DynamicPropertyRegistry registry) {
		registry.add("it.run", () -> RUN);
	}

	@Test
	void aListOfRecordsReceivesOnlyNewlyClaimedRecords() throws Exception {
		String group = RUN + "-records";
		List<String> keys = keys(group, 300);
		List<String> sent = new ArrayList<>(keys);
		sent.addAll(keys.subList(0, 30));
		sent.addAll(30, keys.subList(100, 130));
		try (KafkaTestSupport kafka = new KafkaTestSupport(this.broker.getBrokersAsString())) {
			kafka.sendAll(RECORDS, sent);
			await().atMost(KafkaTestSupport.timeout()).until(() -> kafka.lag(group, RECORDS) == 0);
		}
		assertThat(this.ledger.doubleCredits(group)).isEmpty();
		assertThat(this.ledger.rows(group)).isEqualTo(300);
		assertThat(hits(group)).isEqualTo(60);
		assertThat(batchSizes).as("records arrive in batches").anyMatch((size) -> size > 1);
	}

	@Test
	void aListOfPayloadsReceivesOnlyNewlyClaimedPayloads() throws Exception {
		String group = RUN + "-payloads";
		List<String> keys = keys(group, 100);
		List<String> sent = new ArrayList<>(keys);
		sent.addAll(keys.subList(0, 20));
		try (KafkaTestSupport kafka = new KafkaTestSupport(this.broker.getBrokersAsString())) {
			kafka.sendAll(PAYLOADS, sent);
			await().atMost(KafkaTestSupport.timeout()).until(() -> kafka.lag(group, PAYLOADS) == 0);
		}
		assertThat(this.ledger.rows(group)).isEqualTo(100);
		assertThat(this.ledger.distinctKeys(group)).isEqualTo(100);
		assertThat(hits(group)).isEqualTo(20);
	}

	@Test
	void onlyTheFailingRecordOfABatchIsDeadLetteredAndTheOthersTakeEffectOnce() throws Exception {
		String group = RUN + "-poison";
		List<String> keys = keys(group, 50);
		String poison = keys.get(20);
		try (KafkaTestSupport kafka = new KafkaTestSupport(this.broker.getBrokersAsString());
				Consumer<String, String> dlt = deadLetters()) {
			kafka.sendAll(POISON, keys);
			await().atMost(KafkaTestSupport.timeout()).until(() -> kafka.lag(group, POISON) == 0);
			List<ConsumerRecord<String, String>> dead = new ArrayList<>();
			await().atMost(KafkaTestSupport.timeout()).until(() -> {
				KafkaTestUtils.getRecords(dlt, Duration.ofMillis(200)).forEach(dead::add);
				return !dead.isEmpty();
			});
			assertThat(dead).hasSize(1);
			assertThat(new String(dead.get(0).headers().lastHeader(IdempotencyHeaders.DEAD_LETTER_KEY).value(),
					StandardCharsets.UTF_8)).isEqualTo(poison);
		}
		assertThat(this.ledger.rows(group)).isEqualTo(49);
		assertThat(this.ledger.rows(group, poison)).isZero();
		assertThat(this.ledger.doubleCredits(group)).isEmpty();
		assertThat(this.jdbc.queryForObject("SELECT status FROM idempotent_claim WHERE scope = ? AND idempotency_key = ?",
				Integer.class, group, poison)).isEqualTo(2);
	}

	@Test
	void aClaimStatementThatFailsForAReasonTheLibraryDoesNotKnowFailsTheBatchAndNeverSkipsARecord() throws Exception {
		String group = RUN + "-refused";
		List<String> keys = keys(group, 50);
		String refused = group + "-order-20-refuse-me";
		keys.set(20, refused);
		// the server refuses the claim INSERT of one key with an error of no known class (1644, SQLState 45000)
		this.jdbc.execute("DROP TRIGGER IF EXISTS it_refuse_claims");
		this.jdbc.execute("CREATE TRIGGER it_refuse_claims BEFORE INSERT ON idempotent_claim FOR EACH ROW BEGIN"
				+ " IF NEW.idempotency_key LIKE '%-refuse-me' THEN SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT ="
				+ " 'claim refused by a trigger'; END IF; END");
		try (KafkaTestSupport kafka = new KafkaTestSupport(this.broker.getBrokersAsString());
				Consumer<String, String> dlt = deadLetters(REFUSED + ".DLT")) {
			kafka.sendAll(REFUSED, keys);
			await().atMost(KafkaTestSupport.timeout()).until(() -> kafka.lag(group, REFUSED) == 0);
			List<ConsumerRecord<String, String>> dead = new ArrayList<>();
			await().atMost(KafkaTestSupport.timeout()).until(() -> {
				KafkaTestUtils.getRecords(dlt, Duration.ofMillis(200)).forEach(dead::add);
				return !dead.isEmpty();
			});
			assertThat(dead).as("the record whose claim failed, dead-lettered with the reason").singleElement()
				.satisfies((record) -> {
					assertThat(new String(record.headers().lastHeader(IdempotencyHeaders.DEAD_LETTER_KEY).value(),
							StandardCharsets.UTF_8)).isEqualTo(refused);
					assertThat(new String(record.headers().lastHeader("kafka_dlt-exception-message").value(),
							StandardCharsets.UTF_8)).contains("claim refused by a trigger");
				});
		}
		finally {
			this.jdbc.execute("DROP TRIGGER IF EXISTS it_refuse_claims");
		}
		assertThat(this.ledger.rows(group)).as("every other record once").isEqualTo(49);
		assertThat(this.ledger.rows(group, refused)).isZero();
		assertThat(this.ledger.doubleCredits(group)).isEmpty();
	}

	private double hits(String scope) {
		return this.meters.counter(MicrometerClaimListener.CLAIMS, "scope", scope, "outcome", MicrometerClaimListener.HIT)
			.count();
	}

	private Consumer<String, String> deadLetters() {
		return deadLetters(POISON + ".DLT");
	}

	private Consumer<String, String> deadLetters(String topic) {
		Map<String, Object> props = KafkaTestSupport.consumerProps(this.broker.getBrokersAsString(), RUN + "-dlt");
		props.put("auto.offset.reset", "earliest");
		Consumer<String, String> consumer = new DefaultKafkaConsumerFactory<>(props, new StringDeserializer(),
				new StringDeserializer()).createConsumer();
		consumer.subscribe(List.of(topic));
		return consumer;
	}

	private static List<String> keys(String group, int count) {
		List<String> keys = new ArrayList<>();
		for (int i = 0; i < count; i++) {
			keys.add(group + "-order-" + i);
		}
		return keys;
	}

	@Configuration(proxyBeanMethods = false)
	@Import(BatchContainerFactory.class)
	static class Listeners {

		@Bean
		BatchListeners batchListeners(ItLedger ledger) {
			return new BatchListeners(ledger);
		}

	}

	static class BatchListeners {

		private final ItLedger ledger;

		BatchListeners(ItLedger ledger) {
			this.ledger = ledger;
		}

		@KafkaListener(topics = RECORDS, groupId = "${it.run}-records", containerFactory = "batchFactory",
				properties = "max.poll.records=50")
		@IdempotentListener
		public void onRecords(List<ConsumerRecord<String, String>> records) {
			batchSizes.add(records.size());
			records.forEach((record) -> this.ledger.credit(RUN + "-records", record.key(), record.value()));
		}

		@KafkaListener(topics = PAYLOADS, groupId = "${it.run}-payloads", containerFactory = "batchFactory",
				properties = "max.poll.records=40")
		@IdempotentListener(key = "#payload.substring(8)")
		public void onPayloads(List<String> payloads) {
			payloads.forEach((payload) -> this.ledger.credit(RUN + "-payloads", payload.substring(8), payload));
		}

		@KafkaListener(topics = REFUSED, groupId = "${it.run}-refused", containerFactory = "batchFactory",
				properties = "max.poll.records=50")
		@IdempotentListener
		public void onRefused(List<ConsumerRecord<String, String>> records) {
			records.forEach((record) -> this.ledger.credit(RUN + "-refused", record.key(), record.value()));
		}

		@KafkaListener(topics = POISON, groupId = "${it.run}-poison", containerFactory = "batchFactory",
				properties = "max.poll.records=50")
		@IdempotentListener
		public void onPoison(List<ConsumerRecord<String, String>> records) {
			for (ConsumerRecord<String, String> record : records) {
				if (record.key().endsWith("-order-20")) {
					throw new IllegalStateException("cannot credit " + record.key());
				}
				this.ledger.credit(RUN + "-poison", record.key(), record.value());
			}
		}

	}

}
