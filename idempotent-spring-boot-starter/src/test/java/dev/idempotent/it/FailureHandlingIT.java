package dev.idempotent.it;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import javax.sql.DataSource;

import dev.idempotent.kafka.IdempotencyHeaders;
import dev.idempotent.kafka.IdempotentListener;
import dev.idempotent.kafka.error.TransientFailures;
import dev.idempotent.testsupport.TestDatabases;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.kafka.annotation.KafkaListener;
import org.springframework.kafka.core.DefaultKafkaConsumerFactory;
import org.springframework.kafka.listener.DefaultErrorHandler;
import org.springframework.kafka.listener.RetryListener;
import org.springframework.kafka.test.EmbeddedKafkaBroker;
import org.springframework.kafka.test.context.EmbeddedKafka;
import org.springframework.kafka.test.utils.KafkaTestUtils;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;
import static org.awaitility.Awaitility.await;

/**
 * Failures on a real broker and MariaDB: a listener that keeps failing is dead-lettered with its key and marked
 * FAILED, and its replay is processed once; a commit that fails never lets the offset be committed; the database
 * going down mid-stream stalls the partition until it is back, and nothing takes effect twice or is lost.
 */
@SpringBootTest(classes = { ItApplication.class, FailureHandlingIT.Listeners.class },
		properties = { "idempotent.retry.max-retries=3", "idempotent.retry.transient-max-interval=1s",
				"spring.datasource.hikari.connection-timeout=1000", "spring.datasource.hikari.validation-timeout=500" })
@EmbeddedKafka(partitions = 1, topics = { FailureHandlingIT.POISON, FailureHandlingIT.POISON + ".DLT",
		FailureHandlingIT.COMMIT, FailureHandlingIT.COMMIT + ".DLT", FailureHandlingIT.RESTART,
		FailureHandlingIT.RESTART + ".DLT" })
class FailureHandlingIT {

	@org.springframework.test.context.DynamicPropertySource
	static void run(org.springframework.test.context.DynamicPropertyRegistry registry) {
		registry.add("it.run", () -> RUN);
	}

	static final String POISON = "fail.poison";

	static final String COMMIT = "fail.commit";

	static final String RESTART = "fail.restart";

	static final String RUN = UUID.randomUUID().toString().substring(0, 8);

	static final AtomicBoolean ledgerClosed = new AtomicBoolean(true);

	static final AtomicInteger poisonCalls = new AtomicInteger();

	static final AtomicInteger transientFailures = new AtomicInteger();

	@Autowired
	ItLedger ledger;

	@Autowired
	EmbeddedKafkaBroker broker;

	@Autowired
	JdbcTemplate jdbc;

	@Test
	void aRecordThatKeepsFailingIsDeadLetteredMarkedFailedAndProcessedOnceWhenReplayed() throws Exception {
		String group = RUN + "-poison";
		try (KafkaTestSupport kafka = new KafkaTestSupport(this.broker.getBrokersAsString());
				Consumer<String, String> dlt = consumer(POISON + ".DLT")) {
			kafka.send(POISON, "order-poison", "credit 100");
			List<ConsumerRecord<String, String>> dead = new ArrayList<>();
			await().atMost(KafkaTestSupport.timeout()).until(() -> {
				KafkaTestUtils.getRecords(dlt, Duration.ofMillis(200)).forEach(dead::add);
				return !dead.isEmpty();
			});
			ConsumerRecord<String, String> deadLetter = dead.get(0);
			assertThat(header(deadLetter, IdempotencyHeaders.DEAD_LETTER_KEY)).isEqualTo("order-poison");
			assertThat(header(deadLetter, IdempotencyHeaders.DEAD_LETTER_SCOPE)).isEqualTo(group);
			assertThat(header(deadLetter, "kafka_dlt-exception-fqcn")).isNotNull();
			assertThat(header(deadLetter, "kafka_dlt-exception-message")).contains("ledger closed");
			assertThat(poisonCalls).as("1 delivery + 3 retries").hasValue(4);
			assertThat(this.ledger.rows(group, "order-poison")).as("rolled back every time").isZero();
			await().atMost(KafkaTestSupport.timeout()).untilAsserted(() -> assertThat(claimRow(group, "order-poison"))
				.containsEntry("status", 2)
				.containsEntry("attempts", 4)
				.hasEntrySatisfying("last_error", (error) -> assertThat((String) error)
					.isEqualTo("java.lang.IllegalStateException: ledger closed for order-poison")));

			ledgerClosed.set(false);
			republish(deadLetter, POISON);
			await().atMost(KafkaTestSupport.timeout()).until(() -> this.ledger.rows(group, "order-poison") == 1);
			await().atMost(KafkaTestSupport.timeout()).until(() -> kafka.lag(group, POISON) == 0);
			assertThat(claimRow(group, "order-poison")).containsEntry("status", 1).containsEntry("attempts", 5);
		}
	}

	@Test
	void aFailedCommitNeverLetsTheOffsetBeCommitted() throws Exception {
		String group = RUN + "-commit";
		try (KafkaTestSupport kafka = new KafkaTestSupport(this.broker.getBrokersAsString())) {
			kafka.send(COMMIT, "order-before", "credit 1");
			await().atMost(KafkaTestSupport.timeout()).until(() -> kafka.lag(group, COMMIT) == 0);
			CommitFaults.failing.set(true);
			try {
				kafka.send(COMMIT, "order-commit-fails", "credit 2");
				await().atMost(KafkaTestSupport.timeout()).until(() -> CommitFaults.failedCommits.get() >= 3);
				assertThat(kafka.committedOffset(group, new TopicPartition(COMMIT, 0))).as("still at the failing record")
					.isEqualTo(1);
				assertThat(this.ledger.rows(group, "order-commit-fails")).isZero();
			}
			finally {
				CommitFaults.failing.set(false);
			}
			await().atMost(KafkaTestSupport.timeout()).until(() -> kafka.lag(group, COMMIT) == 0);
		}
		assertThat(this.ledger.rows(group, "order-commit-fails")).isOne();
		assertThat(endOffset(COMMIT + ".DLT")).as("never dead-lettered").isZero();
	}

	@Test
	void theDatabaseGoingDownMidStreamStallsThePartitionUntilItIsBack() throws Exception {
		assumeThat(Files.isExecutable(Path.of("/usr/sbin/mariadbd")) && TestDatabases.MARIADB.url().contains("127.0.0.1"))
			.as("restarts the local MariaDB daemon (/usr/sbin/mariadbd on 127.0.0.1)")
			.isTrue();
		String group = RUN + "-restart";
		List<String> keys = new ArrayList<>();
		for (int i = 0; i < 300; i++) {
			keys.add(group + "-order-" + i);
		}
		try (KafkaTestSupport kafka = new KafkaTestSupport(this.broker.getBrokersAsString())) {
			// half the records before the database goes down, half while it is down: a consumer quick enough to have
			// processed every record before the shutdown would otherwise meet no failure
			kafka.sendAll(RESTART, keys.subList(0, 150));
			await().atMost(KafkaTestSupport.timeout()).until(() -> this.ledger.rows(group) >= 50);
			int failuresBefore = transientFailures.get();
			try {
				run("mariadb-admin", "-uroot", "shutdown");
				kafka.sendAll(RESTART, keys.subList(150, keys.size()));
				await().atMost(KafkaTestSupport.timeout()).until(() -> transientFailures.get() >= failuresBefore + 3);
			}
			finally {
				// the pid file tells this server from other mariadbd processes (a Galera cluster of other tests)
				run("start-stop-daemon", "--start", "--oknodo", "--background", "--pidfile", "/run/mysqld/mysqld.pid",
						"--exec", "/usr/sbin/mariadbd");
				await().atMost(KafkaTestSupport.timeout()).ignoreExceptions().until(() -> this.ledger.rows(group) >= 0);
			}
			await().atMost(KafkaTestSupport.timeout()).until(() -> kafka.lag(group, RESTART) == 0);
		}
		assertThat(this.ledger.doubleCredits(group)).isEmpty();
		assertThat(this.ledger.distinctKeys(group)).isEqualTo(300);
		assertThat(this.ledger.rows(group)).isEqualTo(300);
		assertThat(endOffset(RESTART + ".DLT")).as("never dead-lettered").isZero();
	}

	private Map<String, Object> claimRow(String scope, String key) {
		Map<String, Object> row = this.jdbc.queryForMap(
				"SELECT status, attempts, last_error FROM idempotent_claim WHERE scope = ? AND idempotency_key = ?", scope,
				key);
		row.replaceAll((column, value) -> (value instanceof Number number) ? number.intValue() : value);
		return row;
	}

	private void republish(ConsumerRecord<String, String> deadLetter, String topic) throws Exception {
		try (KafkaProducer<String, String> producer = new KafkaProducer<>(
				KafkaTestUtils.producerProps(this.broker.getBrokersAsString()), new StringSerializer(),
				new StringSerializer())) {
			ProducerRecord<String, String> record = new ProducerRecord<>(topic, deadLetter.key(), deadLetter.value());
			deadLetter.headers().forEach((header) -> record.headers().add(header));
			producer.send(record).get(30, TimeUnit.SECONDS);
		}
	}

	private long endOffset(String topic) {
		try (Consumer<String, String> consumer = consumer(topic)) {
			TopicPartition partition = new TopicPartition(topic, 0);
			return consumer.endOffsets(List.of(partition)).get(partition);
		}
	}

	private Consumer<String, String> consumer(String topic) {
		Map<String, Object> props = KafkaTestSupport.consumerProps(this.broker.getBrokersAsString(),
				RUN + "-reader-" + UUID.randomUUID());
		props.put("auto.offset.reset", "earliest");
		Consumer<String, String> consumer = new DefaultKafkaConsumerFactory<>(props, new StringDeserializer(),
				new StringDeserializer()).createConsumer();
		consumer.subscribe(List.of(topic));
		return consumer;
	}

	private static String header(ConsumerRecord<?, ?> record, String name) {
		org.apache.kafka.common.header.Header header = record.headers().lastHeader(name);
		return (header != null) ? new String(header.value(), StandardCharsets.UTF_8) : null;
	}

	private static void run(String... command) throws Exception {
		Process process = new ProcessBuilder(command).inheritIO().start();
		assertThat(process.waitFor(60, TimeUnit.SECONDS)).as(String.join(" ", command)).isTrue();
	}

	@Configuration(proxyBeanMethods = false)
	static class Listeners {

		@Bean
		static BeanPostProcessor commitFaults() {
			return new BeanPostProcessor() {
				@Override
				public Object postProcessAfterInitialization(Object bean, String beanName) {
					if (bean instanceof DataSource dataSource && !(bean instanceof CommitFaults)) {
						return new CommitFaults(dataSource);
					}
					if (bean instanceof DefaultErrorHandler handler) {
						handler.setRetryListeners(new RetryListener() {
							@Override
							public void failedDelivery(ConsumerRecord<?, ?> record, Exception ex, int deliveryAttempt) {
								if (TransientFailures.isTransient(ex)) {
									transientFailures.incrementAndGet();
								}
							}
						});
					}
					return bean;
				}
			};
		}

		@Bean
		FailingListeners failingListeners(ItLedger ledger) {
			return new FailingListeners(ledger);
		}

	}

	static class FailingListeners {

		private final ItLedger ledger;

		FailingListeners(ItLedger ledger) {
			this.ledger = ledger;
		}

		@KafkaListener(topics = POISON, groupId = "${it.run}-poison")
		@IdempotentListener
		public void poison(ConsumerRecord<String, String> record) {
			this.ledger.credit(RUN + "-poison", record.key(), record.value());
			poisonCalls.incrementAndGet();
			if (ledgerClosed.get()) {
				throw new IllegalStateException("ledger closed for " + record.key());
			}
		}

		@KafkaListener(topics = COMMIT, groupId = "${it.run}-commit")
		@IdempotentListener
		public void commit(ConsumerRecord<String, String> record) {
			this.ledger.credit(RUN + "-commit", record.key(), record.value());
			CommitFaults.armIfFailing();
		}

		@KafkaListener(topics = RESTART, groupId = "${it.run}-restart")
		@IdempotentListener
		public void restart(ConsumerRecord<String, String> record) {
			this.ledger.credit(RUN + "-restart", record.key(), record.value());
		}

	}

}
