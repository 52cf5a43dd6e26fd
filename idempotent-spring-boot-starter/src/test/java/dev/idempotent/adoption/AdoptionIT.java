package dev.idempotent.adoption;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import javax.sql.DataSource;

import dev.idempotent.claim.ClaimStatus;
import dev.idempotent.it.KafkaTestSupport;
import dev.idempotent.kafka.IdempotencyHeaders;
import dev.idempotent.testsupport.TestDatabases;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.flywaydb.core.Flyway;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.kafka.test.EmbeddedKafkaBroker;
import org.springframework.kafka.test.context.EmbeddedKafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * docs/adopting.md followed on an existing service ({@link LedgerService}), on MariaDB and PostgreSQL: the service ran
 * before without the library (its Flyway migration V1, a ledger row written then); it adopts the starter with the
 * documented migrations (the shipped DDL as V2, the backfill of the keys it processed before as V3), keeps its own
 * container factory and error handler (built with {@code IdempotentErrorHandlers}), and starts with
 * {@code idempotent.jdbc.initialize-schema=never}. Then a replay of the record processed before the rollout is a hit,
 * a re-sent order is credited once, and a failing record reaches the service's own dead-letter topic with the key
 * headers and is marked FAILED; nothing warns about the error handler. Rolled back with
 * {@code idempotent.enabled=false}, the same service starts and processes every record.
 */
@EmbeddedKafka(partitions = 1, topics = { "payments", "ledger.failed-payments" })
@ExtendWith(OutputCaptureExtension.class)
class AdoptionIT {

	@Test
	@Tag("mariadb")
	void anExistingServiceOnMariaDbAdoptsTheStarter(EmbeddedKafkaBroker broker, CapturedOutput output) throws Exception {
		adopt(broker, output, TestDatabases.MARIADB, TestDatabases.mariadb(), "mariadb");
	}

	@Test
	@Tag("postgresql")
	void anExistingServiceOnPostgreSqlAdoptsTheStarter(EmbeddedKafkaBroker broker, CapturedOutput output)
			throws Exception {
		adopt(broker, output, TestDatabases.POSTGRESQL, TestDatabases.postgresql(), "postgresql");
	}

	private void adopt(EmbeddedKafkaBroker broker, CapturedOutput output, TestDatabases.Connection connection,
			DataSource dataSource, String database) throws Exception {
		String run = UUID.randomUUID().toString().substring(0, 8);
		String migrations = "classpath:adoption/db/" + database;
		JdbcTemplate jdbc = new JdbcTemplate(dataSource);
		// the service before the library: its schema at V1, an order it processed then
		jdbc.execute("DROP TABLE IF EXISTS ledger_entry");
		jdbc.execute("DROP TABLE IF EXISTS ledger_schema_history");
		Flyway.configure()
			.dataSource(connection.url(), connection.user(), connection.password())
			.locations(migrations)
			.table("ledger_schema_history")
			.baselineOnMigrate(true) // the shared test database holds other tests' tables
			.baselineVersion("0")
			.target("1")
			.load()
			.migrate();
		jdbc.update("INSERT INTO ledger_entry (order_id, amount) VALUES (?, 10.00)", run + "-old");

		try (ConfigurableApplicationContext service = start(broker, connection, migrations);
				KafkaTestSupport kafka = new KafkaTestSupport(broker.getBrokersAsString());
				KafkaConsumer<String, String> deadLetters = deadLetterConsumer(broker, run)) {
			kafka.send("payments", run + "-old", "10.00");
			kafka.send("payments", run + "-1", "5.00");
			kafka.send("payments", run + "-1", "5.00");
			kafka.send("payments", run + "-bad", "five euros");

			ConsumerRecord<String, String> dead = awaitDeadLetter(deadLetters, run + "-bad");
			assertThat(header(dead, IdempotencyHeaders.DEAD_LETTER_KEY)).isEqualTo("pay:" + run + "-bad");
			assertThat(header(dead, IdempotencyHeaders.DEAD_LETTER_SCOPE)).isEqualTo("ledger");
			await().atMost(KafkaTestSupport.timeout()).until(() -> kafka.lag("ledger", "payments") == 0);
			await().atMost(KafkaTestSupport.timeout())
				.until(() -> status(jdbc, "pay:" + run + "-bad") == ClaimStatus.FAILED.code());

			assertThat(credits(jdbc, run + "-old")).as("processed before the rollout, its key backfilled").isOne();
			assertThat(credits(jdbc, run + "-1")).as("re-sent, credited once").isOne();
			assertThat(credits(jdbc, run + "-bad")).isZero();
			assertThat(output.getAll()).as("the migrations ran; the service's error handler keeps the guarantees")
				.contains("now at version v3")
				.doesNotContain("built without IdempotentErrorHandlers");
		}

		// rolled back: the library off, the service's error handler falls back to a plain one, every record processed
		try (ConfigurableApplicationContext service = start(broker, connection, migrations, "--idempotent.enabled=false");
				KafkaTestSupport kafka = new KafkaTestSupport(broker.getBrokersAsString())) {
			kafka.send("payments", run + "-1", "5.00");
			await().atMost(KafkaTestSupport.timeout()).until(() -> credits(jdbc, run + "-1") == 2);
			await().atMost(KafkaTestSupport.timeout()).until(() -> kafka.lag("ledger", "payments") == 0);
		}
	}

	private static ConfigurableApplicationContext start(EmbeddedKafkaBroker broker, TestDatabases.Connection connection,
			String migrations, String... more) {
		List<String> arguments = new ArrayList<>(List.of("--spring.datasource.url=" + connection.url(),
				"--spring.datasource.username=" + connection.user(),
				"--spring.datasource.password=" + connection.password(),
				"--spring.kafka.bootstrap-servers=" + broker.getBrokersAsString(),
				"--spring.config.additional-location=classpath:adoption/application.yml",
				"--spring.flyway.locations=" + migrations, "--spring.flyway.table=ledger_schema_history"));
		arguments.addAll(List.of(more));
		return new SpringApplicationBuilder(LedgerService.class).run(arguments.toArray(String[]::new));
	}

	private static KafkaConsumer<String, String> deadLetterConsumer(EmbeddedKafkaBroker broker, String run) {
		Map<String, Object> props = KafkaTestSupport.consumerProps(broker.getBrokersAsString(), "dead-letters-" + run);
		props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class);
		KafkaConsumer<String, String> consumer = new KafkaConsumer<>(props);
		consumer.subscribe(List.of("ledger.failed-payments"));
		return consumer;
	}

	/** The dead letter of that record key; the topic also holds the other database's run's. */
	private static ConsumerRecord<String, String> awaitDeadLetter(KafkaConsumer<String, String> consumer, String key) {
		List<ConsumerRecord<String, String>> found = new ArrayList<>();
		await().atMost(KafkaTestSupport.timeout()).until(() -> {
			consumer.poll(Duration.ofMillis(200)).forEach((record) -> {
				if (key.equals(record.key())) {
					found.add(record);
				}
			});
			return !found.isEmpty();
		});
		assertThat(found).as("dead-lettered once").hasSize(1);
		return found.get(0);
	}

	private static String header(ConsumerRecord<?, ?> record, String name) {
		return new String(record.headers().lastHeader(name).value(), StandardCharsets.UTF_8);
	}

	private static int credits(JdbcTemplate jdbc, String orderId) {
		return jdbc.queryForObject("SELECT COUNT(*) FROM ledger_entry WHERE order_id = ?", Integer.class, orderId);
	}

	private static int status(JdbcTemplate jdbc, String key) {
		return jdbc.query("SELECT status FROM idempotent_claim WHERE scope = 'ledger' AND idempotency_key = ?",
				(rs) -> rs.next() ? rs.getInt(1) : -1, key);
	}

}
