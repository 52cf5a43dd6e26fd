package dev.idempotent.it;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import ch.qos.logback.classic.Level;
import dev.idempotent.key.KeyMasker;
import dev.idempotent.claim.HitLog;
import dev.idempotent.kafka.IdempotencyHeaders;
import dev.idempotent.kafka.IdempotentListener;
import dev.idempotent.metrics.MicrometerClaimListener;
import io.micrometer.core.instrument.MeterRegistry;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.kafka.annotation.KafkaListener;
import org.springframework.kafka.core.DefaultKafkaConsumerFactory;
import org.springframework.kafka.support.KafkaHeaders;
import org.springframework.kafka.test.context.EmbeddedKafka;
import org.springframework.kafka.test.utils.KafkaTestUtils;
import org.springframework.messaging.handler.annotation.Header;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import static dev.idempotent.testsupport.BootLine.kafkaBootstrapServers;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Single-record listeners on a real broker and MariaDB: duplicates are hits, bad keys are dead-lettered, and
 * two consumer groups each process every key once.
 */
@SpringBootTest(classes = { ItApplication.class, SingleRecordListenerIT.Listeners.class })
@EmbeddedKafka(partitions = 2, topics = { SingleRecordListenerIT.PAYMENTS, SingleRecordListenerIT.PAYMENTS + ".DLT",
		SingleRecordListenerIT.SPEL, SingleRecordListenerIT.SPEL + ".DLT", SingleRecordListenerIT.SHARED })
class SingleRecordListenerIT {

	static final String PAYMENTS = "it.payments";

	static final String SPEL = "it.spel";

	static final String SHARED = "it.shared";

	/** Makes groups (and so scopes) unique per run: MariaDB keeps rows between runs. */
	static final String RUN = UUID.randomUUID().toString().substring(0, 8);

	static final String LEDGER_GROUP = RUN + "-ledger";

	static final String SPEL_GROUP = RUN + "-spel";

	static final String GROUP_A = RUN + "-a";

	static final String GROUP_B = RUN + "-b";

	/** Attached per test: Spring Boot resets logging when it starts the context, after any @BeforeAll. */
	LogCapture hitLog;

	LogCapture rootLog;

	@Autowired
	ItLedger ledger;

	@Autowired
	MeterRegistry meters;

	@Autowired
	BeanFactory beans;

	@DynamicPropertySource
	static void groups(DynamicPropertyRegistry registry) {
		registry.add("it.run", () -> RUN);
	}

	@BeforeEach
	void captureLogs() {
		this.hitLog = new LogCapture(HitLog.LOGGER_NAME);
		this.rootLog = new LogCapture(org.slf4j.Logger.ROOT_LOGGER_NAME);
	}

	@AfterEach
	void releaseLogs() {
		this.hitLog.close();
		this.rootLog.close();
	}

	@Test
	void theSameKeyDeliveredThreeTimesTakesEffectOnce() throws Exception {
		long hitsBefore = hits(LEDGER_GROUP);
		long claimsBefore = count(LEDGER_GROUP, MicrometerClaimListener.CLAIMED);
		try (KafkaTestSupport kafka = new KafkaTestSupport(bootstrapServers())) {
			for (int i = 0; i < 3; i++) {
				kafka.send(PAYMENTS, "order-3x", "credit 100");
			}
			await().atMost(KafkaTestSupport.timeout()).until(() -> hits(LEDGER_GROUP) - hitsBefore == 2);
			await().atMost(KafkaTestSupport.timeout()).until(() -> kafka.lag(LEDGER_GROUP, PAYMENTS) == 0);

			assertThat(this.ledger.rows(LEDGER_GROUP, "order-3x")).isOne();
			assertThat(count(LEDGER_GROUP, MicrometerClaimListener.CLAIMED) - claimsBefore).isOne();
			assertThat(this.hitLog.messages(Level.INFO)).filteredOn((m) -> m.contains("key=" + KeyMasker.MASKED.mask("order-3x") + " "))
				.hasSize(2)
				.allSatisfy((m) -> assertThat(m).contains("scope=" + LEDGER_GROUP)
					.contains("source=" + PAYMENTS + "-")
					.contains("status=SUCCEEDED")
					.containsPattern("first_processed_at=\\d{4}-"));
			assertThat(this.rootLog.messages(Level.ERROR)).isEmpty();
		}
	}

	@Test
	void badKeysGoToTheDeadLetterTopicWithTheReasonAndLaterRecordsFlow() throws Exception {
		try (KafkaTestSupport kafka = new KafkaTestSupport(bootstrapServers());
				Consumer<String, String> dlt = deadLetterConsumer()) {
			dlt.subscribe(List.of(PAYMENTS + ".DLT", SPEL + ".DLT"));
			kafka.send(PAYMENTS, null, "no key header");
			kafka.send(PAYMENTS, "   ", "blank key");
			kafka.send(PAYMENTS, "k".repeat(129), "key too long");
			kafka.send(SPEL, null, "broken-no-colon");
			kafka.send(PAYMENTS, "order-after-bad", "good one");
			kafka.send(SPEL, null, "order:after-bad");

			Map<String, String> reasons = new HashMap<>();
			List<ConsumerRecord<String, String>> dead = new ArrayList<>();
			await().atMost(KafkaTestSupport.timeout()).until(() -> {
				KafkaTestUtils.getRecords(dlt, Duration.ofMillis(200)).forEach(dead::add);
				return dead.size() >= 4;
			});
			for (ConsumerRecord<String, String> record : dead) {
				reasons.put(record.value(), header(record, IdempotencyHeaders.REJECTION_REASON) + " | "
						+ header(record, IdempotencyHeaders.REJECTION_MESSAGE));
			}
			assertThat(reasons).containsOnlyKeys("no key header", "blank key", "key too long", "broken-no-colon");
			assertThat(reasons.get("no key header")).isEqualTo(
					"NULL | Idempotency key from header 'idempotency-key' is null");
			assertThat(reasons.get("blank key")).isEqualTo("BLANK | Idempotency key from header 'idempotency-key' is blank");
			assertThat(reasons.get("key too long")).isEqualTo(
					"TOO_LONG | Idempotency key from header 'idempotency-key' has 129 characters; the maximum is 128");
			assertThat(reasons.get("broken-no-colon")).startsWith("EXPRESSION_FAILED | Key expression ")
				.contains("failed for " + SPEL + "-");

			await().atMost(KafkaTestSupport.timeout())
				.until(() -> this.ledger.rows(LEDGER_GROUP, "order-after-bad") == 1
						&& this.ledger.rows(SPEL_GROUP, "pay:after-bad") == 1);
			await().atMost(KafkaTestSupport.timeout())
				.until(() -> kafka.lag(LEDGER_GROUP, PAYMENTS) == 0 && kafka.lag(SPEL_GROUP, SPEL) == 0);
			assertThat(count(LEDGER_GROUP, MicrometerClaimListener.REJECTED)).isEqualTo(3);
			assertThat(count(SPEL_GROUP, MicrometerClaimListener.REJECTED)).isEqualTo(1);
		}
	}

	@Test
	void twoConsumerGroupsEachProcessEveryKeyOnce() throws Exception {
		List<String> keys = new ArrayList<>();
		for (int i = 0; i < 50; i++) {
			keys.add("shared-" + i);
		}
		List<String> withDuplicates = new ArrayList<>(keys);
		withDuplicates.addAll(keys.subList(0, 20));
		try (KafkaTestSupport kafka = new KafkaTestSupport(bootstrapServers())) {
			kafka.sendAll(SHARED, withDuplicates);
			await().atMost(KafkaTestSupport.timeout())
				.until(() -> kafka.lag(GROUP_A, SHARED) == 0 && kafka.lag(GROUP_B, SHARED) == 0
						&& hits(GROUP_A) == 20 && hits(GROUP_B) == 20);
		}
		for (String group : List.of(GROUP_A, GROUP_B)) {
			assertThat(this.ledger.rows(group)).as(group).isEqualTo(50);
			assertThat(this.ledger.distinctKeys(group)).as(group).isEqualTo(50);
		}
	}

	private long hits(String scope) {
		return count(scope, MicrometerClaimListener.HIT);
	}

	private long count(String scope, String outcome) {
		return ClaimMeters.count(this.meters, scope, outcome);
	}

	private String bootstrapServers() {
		return kafkaBootstrapServers(this.beans);
	}

	private Consumer<String, String> deadLetterConsumer() {
		Map<String, Object> props = KafkaTestSupport.consumerProps(bootstrapServers(), RUN + "-dlt-reader");
		props.put("auto.offset.reset", "earliest");
		return new DefaultKafkaConsumerFactory<>(props, new StringDeserializer(), new StringDeserializer()).createConsumer();
	}

	private static String header(ConsumerRecord<?, ?> record, String name) {
		org.apache.kafka.common.header.Header header = record.headers().lastHeader(name);
		return (header != null) ? new String(header.value(), StandardCharsets.UTF_8) : "<none>";
	}

	@Configuration(proxyBeanMethods = false)
	static class Listeners {

		@Bean
		HeaderKeyListener headerKeyListener(ItLedger ledger) {
			return new HeaderKeyListener(ledger);
		}

		@Bean
		ExpressionKeyListener expressionKeyListener(ItLedger ledger) {
			return new ExpressionKeyListener(ledger);
		}

		@Bean
		TwoGroupsListener twoGroupsListener(ItLedger ledger) {
			return new TwoGroupsListener(ledger);
		}

	}

	/** Key from the default {@code idempotency-key} header. */
	static class HeaderKeyListener {

		private final ItLedger ledger;

		HeaderKeyListener(ItLedger ledger) {
			this.ledger = ledger;
		}

		@KafkaListener(topics = PAYMENTS, groupId = "${it.run}-ledger")
		@IdempotentListener
		public void onPayment(String payload, @Header(name = IdempotencyHeaders.KEY, required = false) String key) {
			this.ledger.credit(LEDGER_GROUP, key, payload);
		}

	}

	/** Key from an expression over a method argument by its name: "order:123" gives "pay:123". */
	static class ExpressionKeyListener {

		private final ItLedger ledger;

		ExpressionKeyListener(ItLedger ledger) {
			this.ledger = ledger;
		}

		@KafkaListener(topics = SPEL, groupId = "${it.run}-spel")
		@IdempotentListener(key = "#event.split(':')[1]", prefix = "pay:")
		public void onEvent(String event) {
			this.ledger.credit(SPEL_GROUP, "pay:" + event.split(":")[1], event);
		}

	}

	/** One topic, two consumer groups; the scope defaults to each group id. */
	static class TwoGroupsListener {

		private final ItLedger ledger;

		TwoGroupsListener(ItLedger ledger) {
			this.ledger = ledger;
		}

		@KafkaListener(topics = SHARED, groupId = "${it.run}-a")
		@IdempotentListener
		public void groupA(ConsumerRecord<String, String> record) {
			this.ledger.credit(GROUP_A, record.key(), record.value());
		}

		@KafkaListener(topics = SHARED, groupId = "${it.run}-b")
		@IdempotentListener(key = "#record.key()")
		public void groupB(ConsumerRecord<String, String> record) {
			this.ledger.credit(GROUP_B, record.key(), record.value());
		}

	}

}
