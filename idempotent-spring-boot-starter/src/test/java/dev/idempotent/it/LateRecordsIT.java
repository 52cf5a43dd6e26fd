package dev.idempotent.it;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import ch.qos.logback.classic.Level;
import dev.idempotent.kafka.IdempotencyHeaders;
import dev.idempotent.kafka.IdempotentListener;
import dev.idempotent.key.KeyMasker;
import dev.idempotent.metrics.MicrometerRetentionListener;
import dev.idempotent.retention.LateRecordGuard;
import dev.idempotent.testsupport.TestDatabases;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import org.springframework.boot.test.context.runner.ApplicationContextRunner;
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

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Records older than the retention period, end to end on a real broker and MariaDB, for a single-record and a
 * batch listener: with {@code late-records=dead-letter} they go to the dead-letter topic at once with the reason
 * and are not claimed, while the records around them take effect; with {@code process} they are processed with a
 * WARN and counted. The producer sets the records' timestamps.
 */
@EmbeddedKafka(partitions = 1)
class LateRecordsIT {

	static final String RUN = UUID.randomUUID().toString().substring(0, 8);

	static final String TABLE = "late_" + RUN.replace('-', '_');

	static final Instant TWO_HOURS_AGO = Instant.now().minus(Duration.ofHours(2));

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withUserConfiguration(ItApplication.class, LateListeners.class)
		.withPropertyValues(ItDatabase.MARIADB.properties().toArray(String[]::new))
		.withPropertyValues("spring.kafka.consumer.auto-offset-reset=earliest", "spring.flyway.enabled=false",
				"idempotent.table-name=" + TABLE, "idempotent.jdbc.initialize-schema=always",
				"idempotent.retry.interval=100ms", "idempotent.retention.enabled=true",
				"idempotent.retention.period=1h", "idempotent.retention.initial-delay=1h");

	@AfterEach
	void dropTables() {
		TestDatabases.drop(ItDatabase.MARIADB.dataSource(), TABLE + "_archive");
		TestDatabases.drop(ItDatabase.MARIADB.dataSource(), TABLE);
	}

	@Test
	void lateRecordsAreDeadLetteredAtOnceWithTheReasonAndOthersFlow(EmbeddedKafkaBroker broker) throws Exception {
		String group = RUN + "-dl";
		try (KafkaTestSupport kafka = new KafkaTestSupport(broker.getBrokersAsString());
				Consumer<String, String> dlt = deadLetterConsumer(broker, group)) {
			String single = group + ".single";
			String batch = group + ".batch";
			kafka.createTopics(1, single, single + ".DLT", batch, batch + ".DLT");
			kafka.send(single, "late-1", "late single", TWO_HOURS_AGO);
			kafka.send(single, "fresh-1", "fresh single", Instant.now());
			kafka.send(batch, "fresh-a", "fresh a", Instant.now());
			kafka.send(batch, "late-b", "late b", TWO_HOURS_AGO);
			kafka.send(batch, "fresh-c", "fresh c", Instant.now());

			this.runner.withPropertyValues(properties(broker, group, "dead-letter")).run((context) -> {
				assertThat(context).hasNotFailed();
				ItLedger ledger = context.getBean(ItLedger.class);
				dlt.subscribe(List.of(single + ".DLT", batch + ".DLT"));
				List<ConsumerRecord<String, String>> dead = new ArrayList<>();
				await().atMost(KafkaTestSupport.timeout()).until(() -> {
					KafkaTestUtils.getRecords(dlt, Duration.ofMillis(200)).forEach(dead::add);
					return dead.size() >= 2;
				});
				await().atMost(KafkaTestSupport.timeout())
					.until(() -> kafka.lag(group + "-single", single) == 0 && kafka.lag(group + "-batch", batch) == 0);

				Map<String, String> reasons = new HashMap<>();
				dead.forEach((record) -> reasons.put(record.key(), header(record, IdempotencyHeaders.REJECTION_REASON)
						+ " | " + header(record, IdempotencyHeaders.REJECTION_MESSAGE)));
				assertThat(reasons).containsOnlyKeys("late-1", "late-b");
				assertThat(reasons.get("late-1")).startsWith("LATE_RECORD | Record " + single + "-0@0 (scope="
						+ group + "-single key=" + KeyMasker.MASKED.mask("late-1") + ") has timestamp ")
					.contains("older than the retention period PT1H")
					.endsWith("dead-lettered (idempotent.retention.late-records=dead-letter)");
				assertThat(reasons.get("late-b")).startsWith("LATE_RECORD | Record " + batch + "-0@1 ");
				assertThat(ledger.rows(group + "-single", "fresh-1")).isOne();
				assertThat(ledger.rows(group + "-single", "late-1")).isZero();
				assertThat(ledger.rows(group + "-batch", "fresh-a")).isOne();
				assertThat(ledger.rows(group + "-batch", "fresh-c")).isOne();
				assertThat(ledger.rows(group + "-batch", "late-b")).isZero();
				assertThat(claimedKeys(context.getBean(JdbcTemplate.class))).containsExactlyInAnyOrder("fresh-1",
						"fresh-a", "fresh-c");
				assertThat(lateRecords(context.getBean(MeterRegistry.class), "dead-letter")).isEqualTo(2);
			});
		}
	}

	@Test
	void lateRecordsAreProcessedWithAWarningWhenSoConfigured(EmbeddedKafkaBroker broker) throws Exception {
		String group = RUN + "-pr";
		try (KafkaTestSupport kafka = new KafkaTestSupport(broker.getBrokersAsString());
				LogCapture log = new LogCapture(LateRecordGuard.class.getName())) {
			String single = group + ".single";
			String batch = group + ".batch";
			kafka.createTopics(1, single, single + ".DLT", batch, batch + ".DLT");
			kafka.send(single, "late-p", "late single", TWO_HOURS_AGO);
			kafka.send(batch, "late-q", "late batch", TWO_HOURS_AGO);
			kafka.send(batch, "fresh-r", "fresh batch", Instant.now());

			this.runner.withPropertyValues(properties(broker, group, "process")).run((context) -> {
				assertThat(context).hasNotFailed();
				ItLedger ledger = context.getBean(ItLedger.class);
				await().atMost(KafkaTestSupport.timeout())
					.until(() -> kafka.lag(group + "-single", single) == 0 && kafka.lag(group + "-batch", batch) == 0);

				assertThat(ledger.rows(group + "-single", "late-p")).isOne();
				assertThat(ledger.rows(group + "-batch", "late-q")).isOne();
				assertThat(ledger.rows(group + "-batch", "fresh-r")).isOne();
				assertThat(claimedKeys(context.getBean(JdbcTemplate.class))).containsExactlyInAnyOrder("late-p",
						"late-q", "fresh-r");
				assertThat(lateRecords(context.getBean(MeterRegistry.class), "process")).isEqualTo(2);
				assertThat(log.messages(Level.WARN)).hasSize(2)
					.anySatisfy((line) -> assertThat(line)
						.startsWith("Record " + single + "-0@0 (scope=" + group + "-single key="
								+ KeyMasker.MASKED.mask("late-p") + ") has timestamp ")
						.endsWith("processing it (idempotent.retention.late-records=process)"));
			});
		}
	}

	private static String[] properties(EmbeddedKafkaBroker broker, String group, String policy) {
		return new String[] { "spring.kafka.bootstrap-servers=" + broker.getBrokersAsString(), "it.group=" + group,
				"idempotent.retention.late-records=" + policy };
	}

	private static List<String> claimedKeys(JdbcTemplate jdbc) {
		return jdbc.queryForList("SELECT idempotency_key FROM " + TABLE, String.class);
	}

	private static long lateRecords(MeterRegistry meters, String policy) {
		return (long) meters.find(MicrometerRetentionListener.LATE_RECORDS)
			.tag("policy", policy)
			.counters()
			.stream()
			.mapToDouble(Counter::count)
			.sum();
	}

	private static Consumer<String, String> deadLetterConsumer(EmbeddedKafkaBroker broker, String group) {
		Map<String, Object> props = KafkaTestSupport.consumerProps(broker.getBrokersAsString(), group + "-dlt-reader");
		props.put("auto.offset.reset", "earliest");
		return new DefaultKafkaConsumerFactory<>(props, new StringDeserializer(), new StringDeserializer())
			.createConsumer();
	}

	private static String header(ConsumerRecord<?, ?> record, String name) {
		org.apache.kafka.common.header.Header header = record.headers().lastHeader(name);
		return (header != null) ? new String(header.value(), StandardCharsets.UTF_8) : "<none>";
	}

	@Configuration(proxyBeanMethods = false)
	@Import(BatchContainerFactory.class)
	static class LateListeners {

		@Bean
		LateListener lateListener(ItLedger ledger) {
			return new LateListener(ledger);
		}

	}

	static class LateListener {

		private final ItLedger ledger;

		LateListener(ItLedger ledger) {
			this.ledger = ledger;
		}

		@KafkaListener(topics = "${it.group}.single", groupId = "${it.group}-single")
		@IdempotentListener
		public void single(ConsumerRecord<String, String> record) {
			this.ledger.credit(record.topic().replace(".single", "-single"), record.key(), record.value());
		}

		@KafkaListener(topics = "${it.group}.batch", groupId = "${it.group}-batch", containerFactory = "batchFactory")
		@IdempotentListener
		public void batch(List<ConsumerRecord<String, String>> records) {
			records.forEach((record) -> this.ledger.credit(record.topic().replace(".batch", "-batch"), record.key(),
					record.value()));
		}

	}

}
