package dev.idempotent.it;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;

import ch.qos.logback.classic.Level;
import dev.idempotent.capture.ClaimOutputs;
import dev.idempotent.metrics.OutputMeters;
import dev.idempotent.output.OutputRejectedException;
import dev.idempotent.claim.ClaimMode;
import dev.idempotent.claim.IdempotencyContext;
import dev.idempotent.jdbc.TableName;
import dev.idempotent.kafka.GroupCommit;
import dev.idempotent.kafka.IdempotencyHeaders;
import dev.idempotent.kafka.IdempotentListener;
import dev.idempotent.testsupport.TestDatabases;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.kafka.KafkaException;
import org.springframework.kafka.annotation.KafkaListener;
import org.springframework.kafka.config.KafkaListenerEndpointRegistry;
import org.springframework.kafka.core.KafkaTemplate;
import org.springframework.kafka.support.KafkaHeaders;
import org.springframework.kafka.test.EmbeddedKafkaBroker;
import org.springframework.kafka.test.context.EmbeddedKafka;
import org.springframework.messaging.handler.annotation.Header;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Outputs of claims end to end, record listeners without Kafka transactions: what the method sends through
 * the application's {@code KafkaTemplate} is stored with its claim, awaited, and sent again, in order and with its
 * headers, when a redelivery is a hit; LEASED mode stores the outputs in its completion step; a listener that opted
 * out stores nothing and warns once; an output over the size limit dead-letters the record with the reason and
 * rolls its claim back, even when the method catches the exception; a send the producer refuses at once and the
 * method catches (too large for the producer, no such partition) is not stored, so later hits do not fail on it;
 * a group commit stores each member's outputs in the group's transaction and sends a member's
 * stored outputs again when it is a hit. One broker and one application for the class, with the producer interceptor
 * that gives records without an idempotency key a random one ({@code idempotent.producer.add-key-header}): an output
 * keeps the key the starter gives it.
 */
@SpringBootTest(classes = { ItApplication.class, AbstractOutputsIT.Listeners.class },
		properties = { "idempotent.outputs.max-bytes=" + AbstractOutputsIT.MAX_BYTES + "B",
				"idempotent.outputs.replay-buffer=" + AbstractOutputsIT.REPLAY_BUFFER + "B",
				"spring.kafka.producer.properties.max.block.ms=3000", "idempotent.retry.max-retries=1",
				"idempotent.retry.interval=50ms", "idempotent.producer.add-key-header=true" })
@EmbeddedKafka(partitions = 1, topics = { AbstractOutputsIT.IN, AbstractOutputsIT.LEASED_IN, AbstractOutputsIT.OPTED_OUT_IN,
		AbstractOutputsIT.GROUP_IN, AbstractOutputsIT.OUT, AbstractOutputsIT.IN + ".DLT", AbstractOutputsIT.BATCH_IN,
		AbstractOutputsIT.MANY_IN, AbstractOutputsIT.SAME_IN })
abstract class AbstractOutputsIT {

	static final String IN = "outputs.in";

	static final String LEASED_IN = "outputs.leased-in";

	static final String OPTED_OUT_IN = "outputs.opted-out-in";

	static final String GROUP_IN = "outputs.group-in";

	static final String OUT = "outputs.out";

	static final String BATCH_IN = "outputs.batch-in";

	static final String MANY_IN = "outputs.many-in";

	static final String SAME_IN = "outputs.same-in";

	/** Outputs each record of {@link #MANY_IN} sends: a batch of three sends more than max-count (100) in one call. */
	static final int MANY = 40;

	/** Above the producer's {@code max.request.size} (1 MiB): a value may pass the limit and the producer refuse it. */
	static final int MAX_BYTES = 1_200_000;

	/** The most bytes of stored outputs a replay may read at once: less than a fan-out's outputs. */
	static final int REPLAY_BUFFER = 3_000_000;

	/** A fan-out sends this many outputs of {@link #FAN_OUT_BYTES}: 6 MB. */
	static final int FAN_OUT = 12;

	static final int FAN_OUT_BYTES = 500_000;

	static final String RUN = UUID.randomUUID().toString().substring(0, 8);

	static final String TABLE = "outputs_" + RUN.replace('-', '_');

	@Autowired
	EmbeddedKafkaBroker broker;

	@Autowired
	ItLedger ledger;

	@Autowired
	MeterRegistry meters;

	@Autowired
	JdbcTemplate jdbc;

	@Autowired
	KafkaListenerEndpointRegistry registry;

	abstract ItDatabase database();

	@DynamicPropertySource
	static void run(DynamicPropertyRegistry registry) {
		registry.add("it.run", () -> RUN);
		registry.add("idempotent.table-name", () -> TABLE);
	}

	@AfterAll
	static void dropTables() {
		for (ItDatabase database : ItDatabase.values()) {
			TestDatabases.drop(database.dataSource(), new TableName(TABLE).outputs().value());
			TestDatabases.drop(database.dataSource(), TABLE);
		}
	}

	@Test
	void outputsAreStoredWithTheClaimAndSentAgainInOrderOnAHit() throws Exception {
		String key = RUN + "-order-1";
		try (KafkaTestSupport kafka = new KafkaTestSupport(this.broker.getBrokersAsString());
				DeadLetterReader out = new DeadLetterReader(this.broker.getBrokersAsString(), OUT)) {
			kafka.send(IN, key, "credit");
			List<ConsumerRecord<String, String>> first = awaitOutputs(out, key, 2);
			assertThat(first).extracting(ConsumerRecord::value).containsExactly(key + ":credited", key + ":notified");
			assertThat(this.jdbc.queryForObject("SELECT COUNT(*) FROM " + new TableName(TABLE).outputs()
					+ " WHERE idempotency_key = ?", Long.class, key)).isEqualTo(2);

			kafka.send(IN, key, "credit");

			List<ConsumerRecord<String, String>> all = awaitOutputs(out, key, 4);
			assertThat(all).extracting(ConsumerRecord::value)
				.containsExactly(key + ":credited", key + ":notified", key + ":credited", key + ":notified");
			assertThat(all).extracting(ConsumerRecord::key).containsExactly(key, key, key, key);
			assertThat(all).extracting((r) -> DeadLetterReader.header(r, "trace"))
				.containsExactly("t-1", "t-2", "t-1", "t-2");
			assertThat(all.get(2).headers().lastHeader(IdempotencyHeaders.KEY).value())
				.as("the re-send carries the key of the first send").isEqualTo(all.get(0).headers().lastHeader(IdempotencyHeaders.KEY).value());
			assertThat(all.get(0).headers().lastHeader(IdempotencyHeaders.KEY).value())
				.isNotEqualTo(all.get(1).headers().lastHeader(IdempotencyHeaders.KEY).value());
			assertThat(this.ledger.rows(RUN, key)).as("the hit did not run the method").isOne();
			String scope = RUN + "-outputs";
			await().atMost(KafkaTestSupport.timeout()).until(() -> kafka.lag(scope, IN) == 0);
			assertThat(count(OutputMeters.STORED, scope)).isEqualTo(2);
			assertThat(count(OutputMeters.REPLAYED, scope)).isEqualTo(2);
		}
	}

	@Test
	void aHitReadsItsStoredOutputsNoMoreThanTheReplayBufferAtATime() throws Exception {
		String key = RUN + "-fan-out-1";
		try (KafkaTestSupport kafka = new KafkaTestSupport(this.broker.getBrokersAsString());
				DeadLetterReader out = new DeadLetterReader(this.broker.getBrokersAsString(), OUT)) {
			kafka.send(IN, key, "fan-out");
			awaitOutputs(out, key, FAN_OUT);
			ReadOutputs.largestRead.set(0);

			kafka.send(IN, key, "fan-out");

			List<ConsumerRecord<String, String>> sent = awaitOutputs(out, key, 2 * FAN_OUT);
			assertThat(sent.subList(FAN_OUT, 2 * FAN_OUT)).extracting(ConsumerRecord::value)
				.as("sent again in order")
				.containsExactlyElementsOf(sent.subList(0, FAN_OUT).stream().map(ConsumerRecord::value).toList());
			assertThat(ReadOutputs.largestRead.get()).as("the most bytes one read returned")
				.isPositive()
				.isLessThanOrEqualTo(REPLAY_BUFFER);
		}
	}

	@Test
	void aLeasedListenerStoresItsOutputsInTheCompletionStep() throws Exception {
		String key = RUN + "-leased-1";
		try (KafkaTestSupport kafka = new KafkaTestSupport(this.broker.getBrokersAsString());
				DeadLetterReader out = new DeadLetterReader(this.broker.getBrokersAsString(), OUT)) {
			kafka.send(LEASED_IN, key, "call");
			awaitOutputs(out, key, 1);
			kafka.send(LEASED_IN, key, "call");
			assertThat(awaitOutputs(out, key, 2)).extracting(ConsumerRecord::value)
				.containsExactly(key + ":called", key + ":called");
			assertThat(this.ledger.rows(RUN + "-leased", key)).isOne();
		}
	}

	@Test
	void aListenerThatOptedOutStoresNothingAndWarnsOnce() throws Exception {
		try (KafkaTestSupport kafka = new KafkaTestSupport(this.broker.getBrokersAsString());
				DeadLetterReader out = new DeadLetterReader(this.broker.getBrokersAsString(), OUT);
				LogCapture log = new LogCapture(ClaimOutputs.class.getName())) {
			kafka.send(OPTED_OUT_IN, RUN + "-quiet-1", "x");
			kafka.send(OPTED_OUT_IN, RUN + "-quiet-2", "x");
			awaitOutputs(out, RUN + "-quiet-2", 1);
			kafka.send(OPTED_OUT_IN, RUN + "-quiet-1", "x");
			String scope = RUN + "-opted-out";
			await().atMost(KafkaTestSupport.timeout()).until(() -> ClaimMeters.hits(this.meters, scope) == 1);
			assertThat(out.readToEnd()).filteredOn((r) -> r.key().startsWith(RUN + "-quiet")).hasSize(2);
			assertThat(log.messages(Level.WARN)).singleElement()
				.asString()
				.contains("OptedOutListener.onEvent", "sent a record to " + OUT,
						"@IdempotentListener(outputs = false)", "does not send it again");
		}
	}

	@Test
	void anOutputOverTheSizeLimitDeadLettersTheRecordWithTheReasonAndRollsItsClaimBack() throws Exception {
		String key = RUN + "-big-1";
		try (KafkaTestSupport kafka = new KafkaTestSupport(this.broker.getBrokersAsString());
				DeadLetterReader dlt = new DeadLetterReader(this.broker.getBrokersAsString(), IN + ".DLT")) {
			kafka.send(IN, key, "big");
			ConsumerRecord<String, String> dead = dlt.awaitValue("big");
			assertThat(DeadLetterReader.header(dead, KafkaHeaders.DLT_EXCEPTION_MESSAGE))
				.contains("more than idempotent.outputs.max-bytes=" + MAX_BYTES);
			assertThat(this.ledger.rows(RUN, key)).as("the claim rolled back with the business write").isZero();
		}
	}

	@Test
	void aBatchsOutputsKeepTheirKeysWhenTheBatchFallsBackToOneRecordAtATime() throws Exception {
		List<String> keys = List.of(RUN + "-batch-1", RUN + "-batch-2", RUN + "-batch-3-flaky");
		try (KafkaTestSupport kafka = new KafkaTestSupport(this.broker.getBrokersAsString());
				DeadLetterReader out = new DeadLetterReader(this.broker.getBrokersAsString(), OUT);
				LogCapture log = new LogCapture("dev.idempotent.kafka.listener.BatchDelivery")) {
			kafka.sendAll(BATCH_IN, keys);
			this.registry.getListenerContainer(RUN + "-batch").start(); // after the records: they come in one poll

			// the batch sends the first two outputs, fails at the third record and rolls back; then each record
			// runs alone and sends its output again
			for (String key : keys.subList(0, 2)) {
				List<ConsumerRecord<String, String>> sent = awaitOutputs(out, key, 2);
				assertThat(sent).extracting((r) -> DeadLetterReader.header(r, IdempotencyHeaders.KEY))
					.as("both sends of " + key + " carry one key").containsOnly(DeadLetterReader.header(sent.get(0),
							IdempotencyHeaders.KEY));
			}
			awaitOutputs(out, keys.get(2), 1);
			assertThat(out.readToEnd().stream()
				.filter((r) -> keys.contains(r.key()))
				.map((r) -> DeadLetterReader.header(r, IdempotencyHeaders.KEY))
				.distinct()).as("three outputs, three keys").hasSize(3);
			assertThat(log.messages(Level.INFO)).anySatisfy((message) -> assertThat(message)
				.contains("The batch of 3 records of", "failed as one transaction", "one at a time"));
		}
	}

	@Test
	void aBatchsOutputKeepsItsKeyWhenItsRecordIsDeliveredAgainInAnotherBatch() throws Exception {
		// the batch sends the three outputs and fails; one at a time, the second record fails again, and the error
		// handler delivers the second and third records again, as a batch of two: the third output is sent twice,
		// by batches of different records, under one key
		List<String> keys = List.of(RUN + "-again-1", RUN + "-again-2-twice", RUN + "-again-3");
		try (KafkaTestSupport kafka = new KafkaTestSupport(this.broker.getBrokersAsString());
				DeadLetterReader out = new DeadLetterReader(this.broker.getBrokersAsString(), OUT)) {
			kafka.sendAll(SAME_IN, keys);
			this.registry.getListenerContainer(RUN + "-same").start();

			await().atMost(KafkaTestSupport.timeout()).until(() -> kafka.lag(RUN + "-same", SAME_IN) == 0);
			for (String key : keys) {
				List<ConsumerRecord<String, String>> sent = awaitOutputs(out, key, 2);
				assertThat(sent.stream().map((r) -> DeadLetterReader.header(r, IdempotencyHeaders.KEY)).distinct())
					.as("every send of the output of " + key + " carries one key").hasSize(1);
				assertThat(this.ledger.rows(RUN + "-same", key)).isOne();
			}
		}
	}

	@Test
	void aBatchMaySendMaxCountOutputsPerRecord() throws Exception {
		List<String> keys = List.of(RUN + "-many-1", RUN + "-many-2", RUN + "-many-3");
		try (KafkaTestSupport kafka = new KafkaTestSupport(this.broker.getBrokersAsString());
				DeadLetterReader out = new DeadLetterReader(this.broker.getBrokersAsString(), OUT);
				LogCapture log = new LogCapture("dev.idempotent.kafka.listener.BatchDelivery")) {
			kafka.sendAll(MANY_IN, keys);
			this.registry.getListenerContainer(RUN + "-many").start();

			for (String key : keys) {
				awaitOutputs(out, key, MANY);
			}
			await().atMost(KafkaTestSupport.timeout()).until(() -> kafka.lag(RUN + "-many", MANY_IN) == 0);
			assertThat(out.readToEnd()).filteredOn((r) -> keys.contains(r.key())).hasSize(3 * MANY);
			assertThat(log.messages(Level.INFO)).noneSatisfy((message) -> assertThat(message).contains("-many"));
		}
	}

	@Test
	void anOutputOverTheSizeLimitRollsTheClaimBackEvenWhenTheMethodCatchesTheException() throws Exception {
		String key = RUN + "-big-caught-1";
		try (KafkaTestSupport kafka = new KafkaTestSupport(this.broker.getBrokersAsString());
				DeadLetterReader dlt = new DeadLetterReader(this.broker.getBrokersAsString(), IN + ".DLT")) {
			kafka.send(IN, key, "big-caught");
			ConsumerRecord<String, String> dead = dlt.awaitValue("big-caught");
			assertThat(DeadLetterReader.header(dead, KafkaHeaders.DLT_EXCEPTION_MESSAGE))
				.contains("more than idempotent.outputs.max-bytes=" + MAX_BYTES);
			assertThat(this.ledger.rows(RUN, key)).as("the claim rolled back with the business write").isZero();
		}
	}

	@Test
	void aSendTheProducerRefusesAtOnceForACauseThatMayPassRollsTheClaimBackEvenWhenTheMethodCatchesIt()
			throws Exception {
		String key = RUN + "-no-partition-caught";
		try (KafkaTestSupport kafka = new KafkaTestSupport(this.broker.getBrokersAsString());
				DeadLetterReader dlt = new DeadLetterReader(this.broker.getBrokersAsString(), IN + ".DLT")) {
			kafka.send(IN, key, "no-partition-caught");
			// no metadata for the partition within max.block.ms: a timeout, which may pass; retried, then dead-lettered
			ConsumerRecord<String, String> dead = dlt.awaitValue("no-partition-caught");
			assertThat(DeadLetterReader.header(dead, KafkaHeaders.DLT_EXCEPTION_MESSAGE))
				.contains("could not send a record to " + OUT, "TimeoutException", "the claim rolls back");
			assertThat(this.ledger.rows(RUN, key)).as("the claim rolled back with the business write").isZero();
		}
	}

	@Test
	void aSendTheProducerRefusesAtOnceForGoodAndTheMethodCatchesIsNotStoredAndDoesNotPoisonTheKey() throws Exception {
		List<String> payloads = List.of("too-large-caught");
		String scope = RUN + "-outputs";
		try (KafkaTestSupport kafka = new KafkaTestSupport(this.broker.getBrokersAsString());
				DeadLetterReader dlt = new DeadLetterReader(this.broker.getBrokersAsString(), IN + ".DLT")) {
			long hits = ClaimMeters.hits(this.meters, scope);
			for (String payload : payloads) {
				kafka.send(IN, RUN + "-" + payload, payload);
			}
			for (String payload : payloads) {
				String key = RUN + "-" + payload;
				await().atMost(KafkaTestSupport.timeout()).until(() -> this.ledger.rows(RUN, key) == 1);
				kafka.send(IN, key, payload);
			}
			await().atMost(KafkaTestSupport.timeout())
				.until(() -> ClaimMeters.hits(this.meters, scope) >= hits + payloads.size() && kafka.lag(scope, IN) == 0);
			for (String payload : payloads) {
				String key = RUN + "-" + payload;
				assertThat(this.ledger.rows(RUN, key)).as("processed once: " + payload).isOne();
				assertThat(this.jdbc.queryForObject("SELECT COUNT(*) FROM " + new TableName(TABLE).outputs()
						+ " WHERE idempotency_key = ?", Long.class, key)).as("nothing stored: " + payload).isZero();
			}
			assertThat(dlt.readToEnd()).extracting(ConsumerRecord::value)
				.as("neither the first delivery nor the hit is dead-lettered")
				.doesNotContainAnyElementsOf(payloads);
		}
	}

	@Test
	void groupCommitStoresEachMembersOutputsAndSendsThemAgainOnAHit() throws Exception {
		List<String> keys = List.of(RUN + "-group-1", RUN + "-group-2", RUN + "-group-3");
		String scope = RUN + "-group";
		try (KafkaTestSupport kafka = new KafkaTestSupport(this.broker.getBrokersAsString());
				DeadLetterReader out = new DeadLetterReader(this.broker.getBrokersAsString(), OUT)) {
			for (String key : keys) {
				kafka.send(GROUP_IN, key, "credit");
			}
			kafka.send(GROUP_IN, keys.get(0), "credit");
			for (String key : keys) {
				awaitOutputs(out, key, 1);
			}
			assertThat(awaitOutputs(out, keys.get(0), 2)).extracting(ConsumerRecord::value)
				.as("the repeat of a key (in its group or later) sends the stored output again")
				.containsExactly(keys.get(0) + ":grouped", keys.get(0) + ":grouped");
			assertThat(this.jdbc.queryForObject("SELECT COUNT(*) FROM " + new TableName(TABLE).outputs()
					+ " WHERE scope = ?", Long.class, scope)).isEqualTo(3);

			kafka.send(GROUP_IN, keys.get(1), "credit");

			List<ConsumerRecord<String, String>> again = awaitOutputs(out, keys.get(1), 2);
			assertThat(again.get(1).headers().lastHeader(IdempotencyHeaders.KEY).value())
				.isEqualTo(again.get(0).headers().lastHeader(IdempotencyHeaders.KEY).value());
			for (String key : keys) {
				assertThat(this.ledger.rows(RUN + "-group", key)).as("processed once: " + key).isOne();
			}
			await().atMost(KafkaTestSupport.timeout()).until(() -> kafka.lag(scope, GROUP_IN) == 0);
			assertThat(count(OutputMeters.STORED, scope)).isEqualTo(3);
			assertThat(count(OutputMeters.REPLAYED, scope)).isEqualTo(2);
		}
	}

	private static List<ConsumerRecord<String, String>> awaitOutputs(DeadLetterReader out, String key, int count) {
		await().atMost(KafkaTestSupport.timeout())
			.until(() -> out.readToEnd().stream().filter((r) -> key.equals(r.key())).count() >= count);
		return out.readToEnd().stream().filter((r) -> key.equals(r.key())).toList();
	}

	private long count(String meter, String scope) {
		Counter counter = this.meters.find(meter).tag("scope", scope).counter();
		return (counter != null) ? (long) counter.count() : 0;
	}

	@Configuration(proxyBeanMethods = false)
	@Import(BatchContainerFactory.class)
	static class Listeners {

		@Bean
		static BeanPostProcessor readOutputs() {
			return ReadOutputs.installer();
		}

		@Bean
		CreditListener outputsCreditListener(ItLedger ledger, KafkaTemplate<String, String> template,
				@Value("${it.run}") String run) {
			return new CreditListener(ledger, template, run);
		}

		@Bean
		LeasedListener outputsLeasedListener(ItLedger ledger, KafkaTemplate<String, String> template,
				@Value("${it.run}") String run) {
			return new LeasedListener(ledger, template, run);
		}

		@Bean
		GroupListener outputsGroupListener(ItLedger ledger, KafkaTemplate<String, String> template,
				@Value("${it.run}") String run) {
			return new GroupListener(ledger, template, run);
		}

		@Bean
		BatchListener outputsBatchListener(ItLedger ledger, KafkaTemplate<String, String> template,
				@Value("${it.run}") String run) {
			return new BatchListener(ledger, template, run);
		}

		@Bean
		OptedOutListener outputsOptedOutListener(KafkaTemplate<String, String> template) {
			return new OptedOutListener(template);
		}

	}

	static class CreditListener {

		private final ItLedger ledger;

		private final KafkaTemplate<String, String> template;

		private final String run;

		CreditListener(ItLedger ledger, KafkaTemplate<String, String> template, String run) {
			this.ledger = ledger;
			this.template = template;
			this.run = run;
		}

		@KafkaListener(topics = IN, groupId = "${it.run}-outputs")
		@IdempotentListener
		public void onCredit(String payload, @Header(IdempotencyHeaders.KEY) String key) {
			this.ledger.credit(this.run, key, payload);
			switch (payload) {
				case "big" -> this.template.send(OUT, key, "x".repeat(MAX_BYTES + 1));
				case "big-caught" -> sendQuietly(new ProducerRecord<>(OUT, key, "x".repeat(MAX_BYTES + 1)));
				case "too-large-caught" -> sendQuietly(new ProducerRecord<>(OUT, key, "x".repeat(1_100_000)));
				case "no-partition-caught" -> sendQuietly(new ProducerRecord<>(OUT, 7, key, key + ":lost"));
				case "fan-out" -> {
					for (int i = 0; i < FAN_OUT; i++) {
						this.template.send(OUT, key, i + ":" + "x".repeat(FAN_OUT_BYTES));
					}
				}
				default -> sendCreditedAndNotified(key);
			}
		}

		/** A best-effort send, as services write them: a failure to send is logged, not thrown. */
		private void sendQuietly(ProducerRecord<String, String> record) {
			try {
				this.template.send(record);
			}
			catch (KafkaException | OutputRejectedException ex) {
				LoggerFactory.getLogger(CreditListener.class).warn("Not sent: {}", ex.toString());
			}
		}

		private void sendCreditedAndNotified(String key) {
			ProducerRecord<String, String> credited = new ProducerRecord<>(OUT, 0, key, key + ":credited");
			credited.headers().add("trace", "t-1".getBytes(StandardCharsets.UTF_8));
			this.template.send(credited);
			ProducerRecord<String, String> notified = new ProducerRecord<>(OUT, key, key + ":notified");
			notified.headers().add("trace", "t-2".getBytes(StandardCharsets.UTF_8));
			this.template.send(notified);
		}

	}

	static class LeasedListener {

		private final ItLedger ledger;

		private final KafkaTemplate<String, String> template;

		private final String run;

		LeasedListener(ItLedger ledger, KafkaTemplate<String, String> template, String run) {
			this.ledger = ledger;
			this.template = template;
			this.run = run;
		}

		@KafkaListener(topics = LEASED_IN, groupId = "${it.run}-leased")
		@IdempotentListener(mode = ClaimMode.LEASED)
		public void onCall(String payload) {
			String key = IdempotencyContext.currentKey();
			this.ledger.credit(this.run + "-leased", key, payload);
			this.template.send(OUT, key, key + ":called");
		}

	}

	static class GroupListener {

		private final ItLedger ledger;

		private final KafkaTemplate<String, String> template;

		private final String run;

		GroupListener(ItLedger ledger, KafkaTemplate<String, String> template, String run) {
			this.ledger = ledger;
			this.template = template;
			this.run = run;
		}

		@KafkaListener(topics = GROUP_IN, groupId = "${it.run}-group")
		@IdempotentListener(groupCommit = GroupCommit.ENABLED)
		public void onCredit(String payload, @Header(IdempotencyHeaders.KEY) String key) {
			this.ledger.credit(this.run + "-group", key, payload);
			this.template.send(OUT, key, key + ":grouped");
		}

	}

	static class BatchListener {

		private final ItLedger ledger;

		private final KafkaTemplate<String, String> template;

		private final String run;

		private final Set<String> failedOnce = ConcurrentHashMap.newKeySet();

		private final Map<String, Integer> failures = new ConcurrentHashMap<>();

		BatchListener(ItLedger ledger, KafkaTemplate<String, String> template, String run) {
			this.ledger = ledger;
			this.template = template;
			this.run = run;
		}

		@KafkaListener(id = "${it.run}-batch", topics = BATCH_IN, groupId = "${it.run}-batch",
				containerFactory = "batchFactory", autoStartup = "false")
		@IdempotentListener
		public void onCredits(List<ConsumerRecord<String, String>> records) {
			for (ConsumerRecord<String, String> record : records) {
				this.ledger.credit(this.run + "-batch", record.key(), record.value());
				if (record.key().endsWith("flaky") && this.failedOnce.add(record.key())) {
					throw new IllegalStateException("first attempt of " + record.key());
				}
				this.template.send(OUT, record.key(), record.key() + ":batched");
			}
		}

		@KafkaListener(id = "${it.run}-same", topics = SAME_IN, groupId = "${it.run}-same",
				containerFactory = "batchFactory", autoStartup = "false")
		@IdempotentListener
		public void onAgain(List<ConsumerRecord<String, String>> records) {
			for (ConsumerRecord<String, String> record : records) {
				this.ledger.credit(this.run + "-same", record.key(), record.value());
				this.template.send(OUT, record.key(), record.key() + ":again");
			}
			for (ConsumerRecord<String, String> record : records) {
				// after every output was sent: the first two calls with this record fail
				if (record.key().endsWith("twice") && this.failures.merge(record.key(), 1, Integer::sum) <= 2) {
					throw new IllegalStateException("attempt " + this.failures.get(record.key()) + " of " + record.key());
				}
			}
		}

		@KafkaListener(id = "${it.run}-many", topics = MANY_IN, groupId = "${it.run}-many",
				containerFactory = "batchFactory", autoStartup = "false")
		@IdempotentListener
		public void onMany(List<ConsumerRecord<String, String>> records) {
			for (ConsumerRecord<String, String> record : records) {
				for (int i = 0; i < MANY; i++) {
					this.template.send(OUT, record.key(), record.key() + ":" + i);
				}
			}
		}

	}

	static class OptedOutListener {

		private final KafkaTemplate<String, String> template;

		OptedOutListener(KafkaTemplate<String, String> template) {
			this.template = template;
		}

		@KafkaListener(topics = OPTED_OUT_IN, groupId = "${it.run}-opted-out")
		@IdempotentListener(outputs = false)
		public void onEvent(String payload, @Header(IdempotencyHeaders.KEY) String key) {
			this.template.send(OUT, key, payload);
		}

	}

}
