package dev.idempotent.it;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

import javax.sql.DataSource;

import ch.qos.logback.classic.Level;
import dev.idempotent.claim.IdempotencyContext;
import dev.idempotent.claim.TransactionalClaimExecutor;
import dev.idempotent.kafka.GroupCommit;
import dev.idempotent.kafka.IdempotencyHeaders;
import dev.idempotent.kafka.IdempotentListener;
import dev.idempotent.testsupport.GaleraCluster;
import dev.idempotent.testsupport.TestDatabases;
import org.apache.kafka.clients.consumer.ConsumerInterceptor;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.kafka.annotation.KafkaListener;
import org.springframework.kafka.test.EmbeddedKafkaBroker;
import org.springframework.kafka.test.condition.EmbeddedKafkaCondition;
import org.springframework.kafka.test.context.EmbeddedKafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Two application instances in one consumer group, each on its own partition of a topic and connected to its own
 * node of a three-node MariaDB Galera cluster (mariadb-java-client, default settings), process records of which every
 * fifth key is sent to both partitions at the same position: both nodes claim those keys at about the same time, and
 * the transactions that lose are rolled back at COMMIT or by a brute-force abort in their middle, also during the
 * listener's bulk INSERTs, where MariaDB answers the INSERT with success. For batch listeners, single-record listeners
 * and group commit: every key takes effect exactly once, readable on every node, and no offset is committed before the
 * effects of the records before it are readable on the cluster (checked by a consumer interceptor at each commit).
 * The same run on a single MariaDB server passes too.
 */
@EmbeddedKafka(partitions = 2)
class GaleraListenersIT {

	/** Keys per partition; every fifth is one of the shared keys. */
	private static final int RECORDS = 2_000;

	/** Runs of one shape on the cluster at most, until one met an abort hidden by a bulk INSERT. */
	private static final int MAX_RUNS = 3;

	/** Outbox lines per record: the listener's bulk INSERT, long enough for an abort to land in it. */
	private static final int LINES = 40;

	/** Offsets committed before the effects of the records below them were readable: must stay empty. */
	static final List<String> EARLY_COMMITS = new CopyOnWriteArrayList<>();

	/** The keys of each partition, by offset, for the interceptor's check. */
	static final Map<TopicPartition, List<String>> KEYS = new ConcurrentHashMap<>();

	/** Where the interceptor reads the effects, with wsrep_sync_wait on a cluster. */
	static volatile JdbcTemplate checks;

	/** The listener shapes under test. */
	enum Shape {

		BATCH, RECORD, GROUP_COMMIT

	}

	@ParameterizedTest
	@EnumSource(Shape.class)
	void onGaleraEveryKeyTakesEffectOnceAndNoOffsetIsCommittedBeforeItsEffects(Shape shape) throws Exception {
		GaleraCluster cluster = GaleraCluster.shared();
		// the conflicts are timing: a run that met no abort hidden by a bulk INSERT proves nothing about them, so
		// another run follows, each checked in full, until one met such an abort
		List<String> warnings = List.of();
		for (int runs = 0; runs < MAX_RUNS && !metHiddenAbort(warnings); runs++) {
			warnings = run(shape, List.of(cluster.url(0), cluster.url(1)), List.of(cluster.checkingDataSource(2),
					cluster.checkingDataSource(0), cluster.checkingDataSource(1)));
		}
		assertThat(metHiddenAbort(warnings)).as("one of " + MAX_RUNS + " runs met aborts hidden by bulk INSERTs").isTrue();
	}

	private static boolean metHiddenAbort(List<String> warnings) {
		return warnings.stream().anyMatch((line) -> line.contains("without an error reaching the application"));
	}

	@ParameterizedTest
	@EnumSource(Shape.class)
	void onASingleMariaDbServerTheSameRunPasses(Shape shape) throws Exception {
		String url = TestDatabases.MARIADB.url().replaceFirst("^jdbc:mysql:", "jdbc:mariadb:");
		run(shape, List.of(url, url), List.of(TestDatabases.mariadb()));
	}

	/** Run the two instances on the records; return the WARN lines of the claim executor while they ran. */
	private List<String> run(Shape shape, List<String> urls, List<DataSource> nodes) throws Exception {
		EmbeddedKafkaBroker broker = EmbeddedKafkaCondition.getBroker();
		String run = UUID.randomUUID().toString().substring(0, 8);
		String topic = "galera-" + shape.name().toLowerCase() + "-" + run;
		String group = "galera-" + run;
		checks = new JdbcTemplate(nodes.get(0));
		checks.execute(GaleraLedger.DDL);
		checks.execute(GaleraLedger.OUTBOX_DDL);
		checks.execute(GaleraLedger.BALANCE_DDL);
		checks.update("INSERT INTO galera_balance (run_id, credited) VALUES (?, 0)", run);
		EARLY_COMMITS.clear();
		KEYS.clear();
		List<String> warnings;
		try (KafkaTestSupport kafka = new KafkaTestSupport(broker.getBrokersAsString())) {
			kafka.createTopics(2, topic);
			List<ConfigurableApplicationContext> instances = new ArrayList<>();
			try {
				for (int partition = 0; partition < 2; partition++) {
					instances.add(start(shape, broker.getBrokersAsString(), urls.get(partition), topic, group, partition));
				}
				// attached once the instances started: starting an application configures logging anew
				try (LogCapture executor = new LogCapture(TransactionalClaimExecutor.class.getName())) {
					// both instances already poll their partition: they read the shared keys at about the same time
					send(broker.getBrokersAsString(), topic, run);
					await().atMost(KafkaTestSupport.timeout().multipliedBy(3)).until(() -> kafka.lag(group, topic) == 0);
					warnings = executor.messages(Level.WARN);
				}
			}
			finally {
				instances.forEach(ConfigurableApplicationContext::close);
			}
		}
		assertThat(EARLY_COMMITS).as("offsets committed before the effects of the records below them").isEmpty();
		for (DataSource node : nodes) {
			JdbcTemplate jdbc = new JdbcTemplate(node);
			assertThat(jdbc.queryForList("SELECT order_key FROM galera_ledger WHERE run_id = ? GROUP BY order_key"
					+ " HAVING COUNT(*) > 1", String.class, run)).as("keys credited twice").isEmpty();
			List<String> expected = new ArrayList<>();
			KEYS.values().forEach(expected::addAll);
			assertThat(jdbc.queryForList("SELECT DISTINCT order_key FROM galera_ledger WHERE run_id = ?", String.class,
					run)).as("every key credited").containsExactlyInAnyOrderElementsOf(expected.stream().distinct().toList());
			assertThat(jdbc.queryForObject("SELECT COUNT(*) FROM galera_outbox WHERE run_id = ?", Integer.class, run))
				.as("the outbox lines of each key once")
				.isEqualTo(expected.stream().distinct().count() * LINES);
			assertThat(jdbc.queryForObject("SELECT credited FROM galera_balance WHERE run_id = ?", Long.class, run))
				.as("the balance credited once per key")
				.isEqualTo(expected.stream().distinct().count());
		}
		return warnings;
	}

	/** Partition p gets its own keys, and at every fifth position a key shared with the other partition. */
	private static void send(String bootstrapServers, String topic, String run) throws Exception {
		Properties properties = new Properties();
		properties.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
		properties.put(ProducerConfig.ACKS_CONFIG, "all");
		properties.put(ProducerConfig.LINGER_MS_CONFIG, 20);
		try (KafkaProducer<String, String> producer = new KafkaProducer<>(properties, new StringSerializer(),
				new StringSerializer())) {
			for (int partition = 0; partition < 2; partition++) {
				List<String> keys = new ArrayList<>();
				for (int i = 0; i < RECORDS; i++) {
					keys.add(run + ((i % 5 == 0) ? "-shared-" + i : "-p" + partition + "-" + i));
				}
				// the offsets of a new topic's partition start at 0: known before the records are read
				KEYS.put(new TopicPartition(topic, partition), keys);
			}
			for (int i = 0; i < RECORDS; i++) {
				for (int partition = 0; partition < 2; partition++) {
					String key = KEYS.get(new TopicPartition(topic, partition)).get(i);
					ProducerRecord<String, String> record = new ProducerRecord<>(topic, partition, key, run);
					record.headers().add(IdempotencyHeaders.KEY, key.getBytes(StandardCharsets.UTF_8));
					producer.send(record);
				}
			}
			producer.flush();
		}
	}

	private static ConfigurableApplicationContext start(Shape shape, String bootstrapServers, String url, String topic,
			String group, int partition) {
		return new SpringApplicationBuilder(ItApplication.class, Listeners.class).web(WebApplicationType.NONE)
			.run("--spring.main.banner-mode=off", "--spring.jmx.enabled=false", "--spring.datasource.url=" + url,
					"--spring.datasource.username=root", "--spring.datasource.password=",
					"--spring.kafka.bootstrap-servers=" + bootstrapServers, "--it.galera.shape=" + shape,
					"--it.galera.topic=" + topic, "--it.galera.group=" + group, "--it.galera.partition=" + partition,
					"--spring.kafka.consumer.max-poll-records=200",
					"--spring.kafka.consumer.properties.interceptor.classes=" + CommitAudit.class.getName(),
					"--idempotent.group-commit.max-records=100");
	}

	/** The listeners, one shape per instance, each writing a ledger row and {@value #LINES} outbox lines per record. */
	@Configuration(proxyBeanMethods = false)
	@Import(BatchContainerFactory.class)
	static class Listeners {

		@Bean
		GaleraLedger galeraLedger(JdbcTemplate jdbc) {
			return new GaleraLedger(jdbc);
		}

		@Bean
		@ConditionalOnProperty(name = "it.galera.shape", havingValue = "BATCH")
		BatchListener batchListener(GaleraLedger ledger) {
			return new BatchListener(ledger);
		}

		@Bean
		@ConditionalOnProperty(name = "it.galera.shape", havingValue = "RECORD")
		RecordListener recordListener(GaleraLedger ledger) {
			return new RecordListener(ledger);
		}

		@Bean
		@ConditionalOnProperty(name = "it.galera.shape", havingValue = "GROUP_COMMIT")
		GroupCommitListener groupCommitListener(GaleraLedger ledger) {
			return new GroupCommitListener(ledger);
		}

	}

	static class BatchListener {

		private final GaleraLedger ledger;

		BatchListener(GaleraLedger ledger) {
			this.ledger = ledger;
		}

		@KafkaListener(groupId = "${it.galera.group}", containerFactory = "batchFactory", topicPartitions =
				@org.springframework.kafka.annotation.TopicPartition(topic = "${it.galera.topic}", partitions = "${it.galera.partition}"))
		@IdempotentListener
		public void credit(List<ConsumerRecord<String, String>> records) {
			this.ledger.credit(records.stream().map((record) -> Map.entry(new String(record.headers()
				.lastHeader(IdempotencyHeaders.KEY).value(), StandardCharsets.UTF_8), record.value())).toList());
		}

	}

	static class RecordListener {

		private final GaleraLedger ledger;

		RecordListener(GaleraLedger ledger) {
			this.ledger = ledger;
		}

		@KafkaListener(groupId = "${it.galera.group}", topicPartitions =
				@org.springframework.kafka.annotation.TopicPartition(topic = "${it.galera.topic}", partitions = "${it.galera.partition}"))
		@IdempotentListener
		public void credit(ConsumerRecord<String, String> record) {
			this.ledger.credit(List.of(Map.entry(IdempotencyContext.currentKey(), record.value())));
		}

	}

	static class GroupCommitListener {

		private final GaleraLedger ledger;

		GroupCommitListener(GaleraLedger ledger) {
			this.ledger = ledger;
		}

		@KafkaListener(groupId = "${it.galera.group}", topicPartitions =
				@org.springframework.kafka.annotation.TopicPartition(topic = "${it.galera.topic}", partitions = "${it.galera.partition}"))
		@IdempotentListener(groupCommit = GroupCommit.ENABLED)
		public void credit(ConsumerRecord<String, String> record) {
			this.ledger.credit(List.of(Map.entry(IdempotencyContext.currentKey(), record.value())));
		}

	}

	/**
	 * The business write: the run's balance (one row both instances update, as two consumers credit one account: their
	 * concurrent transactions conflict on it), then a ledger row per record and {@value #LINES} outbox lines, each as
	 * one batched INSERT.
	 */
	static class GaleraLedger {

		static final String BALANCE_DDL = "CREATE TABLE IF NOT EXISTS galera_balance (run_id VARCHAR(16) PRIMARY KEY,"
				+ " credited BIGINT NOT NULL)";

		static final String DDL = "CREATE TABLE IF NOT EXISTS galera_ledger (id BIGINT AUTO_INCREMENT PRIMARY KEY,"
				+ " run_id VARCHAR(16) NOT NULL, order_key VARCHAR(64) NOT NULL, KEY (run_id, order_key))";

		static final String OUTBOX_DDL = "CREATE TABLE IF NOT EXISTS galera_outbox (id BIGINT AUTO_INCREMENT PRIMARY KEY,"
				+ " run_id VARCHAR(16) NOT NULL, order_key VARCHAR(64) NOT NULL, line INT NOT NULL)";

		private final JdbcTemplate jdbc;

		GaleraLedger(JdbcTemplate jdbc) {
			this.jdbc = jdbc;
		}

		/** Credit records given as (key, run id). */
		void credit(List<Map.Entry<String, String>> records) {
			this.jdbc.update("UPDATE galera_balance SET credited = credited + ? WHERE run_id = ?", records.size(),
					records.get(0).getValue());
			this.jdbc.batchUpdate("INSERT INTO galera_ledger (run_id, order_key) VALUES (?, ?)",
					records.stream().map((record) -> new Object[] { record.getValue(), record.getKey() }).toList());
			List<Object[]> lines = new ArrayList<>();
			for (Map.Entry<String, String> record : records) {
				for (int line = 0; line < LINES; line++) {
					lines.add(new Object[] { record.getValue(), record.getKey(), line });
				}
			}
			this.jdbc.batchUpdate("INSERT INTO galera_outbox (run_id, order_key, line) VALUES (?, ?, ?)", lines);
		}

	}

	/**
	 * At every offset commit of the instances, on the consumer thread once the commit returned: the records of the
	 * partition below the committed offset must have their effects readable on the cluster (read with wsrep_sync_wait,
	 * so a write any node committed before is seen). One the listener lost would never be, since its offset is behind.
	 */
	public static class CommitAudit implements ConsumerInterceptor<Object, Object> {

		@Override
		public ConsumerRecords<Object, Object> onConsume(ConsumerRecords<Object, Object> records) {
			return records;
		}

		@Override
		public void onCommit(Map<TopicPartition, OffsetAndMetadata> offsets) {
			offsets.forEach((partition, offset) -> {
				List<String> keys = KEYS.get(partition);
				if (keys == null) {
					return;
				}
				List<String> below = keys.subList(0, (int) Math.min(keys.size(), offset.offset()));
				Map<String, Boolean> credited = new HashMap<>();
				for (int from = 0; from < below.size(); from += 500) {
					List<String> chunk = below.subList(from, Math.min(below.size(), from + 500));
					checks.queryForList("SELECT DISTINCT order_key FROM galera_ledger WHERE order_key IN ("
							+ String.join(",", chunk.stream().map((key) -> "?").toList()) + ")", String.class,
							chunk.toArray()).forEach((key) -> credited.put(key, true));
				}
				below.stream().filter((key) -> !credited.containsKey(key)).findFirst().ifPresent((missing) ->
						EARLY_COMMITS.add(partition + "@" + offset.offset() + ": " + missing + " has no effect"));
			});
		}

		@Override
		public void close() {
		}

		@Override
		public void configure(Map<String, ?> configs) {
		}

	}

}
