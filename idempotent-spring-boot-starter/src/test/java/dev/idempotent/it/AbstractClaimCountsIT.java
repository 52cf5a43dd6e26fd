package dev.idempotent.it;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;

import dev.idempotent.kafka.IdempotentListener;
import dev.idempotent.metrics.MicrometerClaimListener;
import io.micrometer.core.instrument.MeterRegistry;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.kafka.annotation.KafkaListener;
import org.springframework.kafka.test.EmbeddedKafkaBroker;
import org.springframework.kafka.test.context.EmbeddedKafka;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Claim counts are per record, not per attempt: a record that fails once and then succeeds counts one claim, and a
 * batch whose transaction fails and is processed again record by record counts each record (and each hit) once.
 */
@SpringBootTest(classes = { ItApplication.class, AbstractClaimCountsIT.Listeners.class })
@EmbeddedKafka(partitions = 1, topics = { AbstractClaimCountsIT.SINGLE, AbstractClaimCountsIT.BATCH })
abstract class AbstractClaimCountsIT {

	static final String SINGLE = "counts.single";

	static final String BATCH = "counts.batch";

	static final String FLAKY = "-flaky";

	@Autowired
	ItLedger ledger;

	@Autowired
	MeterRegistry meters;

	@Autowired
	EmbeddedKafkaBroker broker;

	@Autowired
	FlakyListeners listeners;

	@Value("${it.run}")
	String run;

	@DynamicPropertySource
	static void run(DynamicPropertyRegistry registry) {
		String run = UUID.randomUUID().toString().substring(0, 8);
		registry.add("it.run", () -> run);
	}

	@Test
	void aRecordThatFailsOnceAndThenSucceedsCountsOneClaim() throws Exception {
		String scope = this.run + "-single";
		try (KafkaTestSupport kafka = new KafkaTestSupport(this.broker.getBrokersAsString())) {
			kafka.sendAll(SINGLE, List.of(scope + "-a", scope + FLAKY, scope + "-b", scope + "-a"));
			await().atMost(KafkaTestSupport.timeout()).until(() -> kafka.lag(scope, SINGLE) == 0);
		}

		assertThat(this.listeners.failed()).as("the flaky record failed once").contains(scope + FLAKY);
		assertThat(this.ledger.rows(scope)).isEqualTo(3);
		assertThat(count(scope, MicrometerClaimListener.CLAIMED)).isEqualTo(3);
		assertThat(count(scope, MicrometerClaimListener.RECLAIMED)).isZero();
		assertThat(count(scope, MicrometerClaimListener.HIT)).isEqualTo(1);
	}

	@Test
	void aBatchThatFallsBackToRecordByRecordCountsEachRecordOnce() throws Exception {
		String scope = this.run + "-batch";
		List<String> keys = new ArrayList<>();
		for (int i = 0; i < 20; i++) {
			keys.add(scope + "-order-" + i);
		}
		List<String> sent = new ArrayList<>(keys);
		sent.add(10, scope + FLAKY);
		sent.addAll(5, keys.subList(0, 4));
		try (KafkaTestSupport kafka = new KafkaTestSupport(this.broker.getBrokersAsString())) {
			kafka.sendAll(BATCH, sent);
			await().atMost(KafkaTestSupport.timeout()).until(() -> kafka.lag(scope, BATCH) == 0);
		}

		assertThat(this.listeners.failed()).as("the batch holding the flaky record failed once").contains(scope + FLAKY);
		assertThat(this.ledger.rows(scope)).isEqualTo(21);
		assertThat(this.ledger.doubleCredits(scope)).isEmpty();
		assertThat(count(scope, MicrometerClaimListener.CLAIMED)).isEqualTo(21);
		assertThat(count(scope, MicrometerClaimListener.HIT)).isEqualTo(4);
	}

	private double count(String scope, String outcome) {
		return this.meters.counter(MicrometerClaimListener.CLAIMS, "scope", scope, "outcome", outcome).count();
	}

	@Configuration(proxyBeanMethods = false)
	@Import(BatchContainerFactory.class)
	static class Listeners {

		@Bean
		FlakyListeners flakyListeners(ItLedger ledger, @Value("${it.run}") String run) {
			return new FlakyListeners(ledger, run);
		}

	}

	/** Listeners that fail the first delivery of a record whose key ends with {@value #FLAKY}. */
	static class FlakyListeners {

		final Set<String> failed = ConcurrentHashMap.newKeySet();

		private final ItLedger ledger;

		private final String run;

		FlakyListeners(ItLedger ledger, String run) {
			this.ledger = ledger;
			this.run = run;
		}

		/** The keys that failed once (a method: the bean is a proxy). */
		public Set<String> failed() {
			return this.failed;
		}

		@KafkaListener(topics = SINGLE, groupId = "${it.run}-single")
		@IdempotentListener(scope = "${it.run}-single")
		public void onRecord(ConsumerRecord<String, String> record) {
			credit(this.run + "-single", record);
		}

		@KafkaListener(topics = BATCH, groupId = "${it.run}-batch", containerFactory = "batchFactory",
				properties = "max.poll.records=50")
		@IdempotentListener(scope = "${it.run}-batch")
		public void onBatch(List<ConsumerRecord<String, String>> records) {
			records.forEach((record) -> credit(this.run + "-batch", record));
		}

		private void credit(String scope, ConsumerRecord<String, String> record) {
			if (record.key().endsWith(FLAKY) && this.failed.add(record.key())) {
				throw new IllegalStateException("first delivery of " + record.key() + " fails");
			}
			this.ledger.credit(scope, record.key(), record.value());
		}

	}

}
