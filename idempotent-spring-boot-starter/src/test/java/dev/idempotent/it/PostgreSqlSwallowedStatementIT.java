package dev.idempotent.it;

import java.util.UUID;

import dev.idempotent.kafka.IdempotentListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.dao.DuplicateKeyException;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.kafka.annotation.KafkaListener;
import org.springframework.kafka.test.EmbeddedKafkaBroker;
import org.springframework.kafka.test.context.EmbeddedKafka;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.test.context.TestPropertySource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A listener that catches the failure of one of its own statements ("the customer is already known, fine") and
 * returns normally, on PostgreSQL, where that failure aborted the whole transaction, claim included, and the COMMIT
 * silently rolls back. Before the fix the record passed for processed: its offset was committed with no claim row
 * and nothing dead-lettered (lost). Now the claim fails, the record is retried and then dead-lettered. PostgreSQL
 * only: on MariaDB and MySQL a failed statement leaves the transaction usable, and the same listener is correct.
 */
@SpringBootTest(classes = { ItApplication.class, PostgreSqlSwallowedStatementIT.Listeners.class })
@EmbeddedKafka(partitions = 1, topics = { PostgreSqlSwallowedStatementIT.TOPIC, PostgreSqlSwallowedStatementIT.TOPIC + ".DLT" })
@PostgreSqlDataSource
@TestPropertySource(properties = { "idempotent.retry.max-retries=1",
		"idempotent.retry.interval=50ms" })
class PostgreSqlSwallowedStatementIT {

	static final String TOPIC = "swallowed.orders";

	static final String RUN = UUID.randomUUID().toString().substring(0, 8);

	static final String GROUP = RUN + "-swallowed";

	static final String CUSTOMERS = "it_customers_" + RUN.replace("-", "");

	@Autowired
	EmbeddedKafkaBroker broker;

	@Autowired
	JdbcTemplate jdbc;

	@DynamicPropertySource
	static void run(DynamicPropertyRegistry registry) {
		registry.add("it.run", () -> RUN);
	}

	@Test
	void aRecordWhoseListenerSwallowedAFailedStatementIsDeadLetteredNotLost() throws Exception {
		String key = GROUP + "-1";
		try (KafkaTestSupport kafka = new KafkaTestSupport(this.broker.getBrokersAsString());
				DeadLetterReader dlt = new DeadLetterReader(this.broker.getBrokersAsString(), TOPIC + ".DLT")) {
			kafka.send(TOPIC, key, "payload-" + key);

			ConsumerRecord<String, String> dead = dlt.awaitValue("payload-" + key);

			assertThat(DeadLetterReader.header(dead, "kafka_dlt-exception-message")).contains("can only roll back");
			await().atMost(KafkaTestSupport.timeout()).until(() -> kafka.lag(GROUP, TOPIC) == 0);
		}
		assertThat(this.jdbc.queryForObject("SELECT status FROM idempotent_claim WHERE scope = ? AND idempotency_key = ?",
				Integer.class, GROUP, key)).as("FAILED, claimable again by a replay").isEqualTo(2);
	}

	@Configuration(proxyBeanMethods = false)
	static class Listeners {

		@Bean
		CustomerListener customerListener(JdbcTemplate jdbc) {
			jdbc.execute("CREATE TABLE IF NOT EXISTS " + CUSTOMERS + " (id VARCHAR(64) PRIMARY KEY)");
			jdbc.update("INSERT INTO " + CUSTOMERS + " VALUES ('known') ON CONFLICT DO NOTHING");
			return new CustomerListener(jdbc);
		}

	}

	static class CustomerListener {

		private final JdbcTemplate jdbc;

		CustomerListener(JdbcTemplate jdbc) {
			this.jdbc = jdbc;
		}

		@KafkaListener(topics = TOPIC, groupId = "${it.run}-swallowed")
		@IdempotentListener
		public void on(ConsumerRecord<String, String> record) {
			try {
				this.jdbc.update("INSERT INTO " + CUSTOMERS + " (id) VALUES ('known')");
			}
			catch (DuplicateKeyException alreadyKnown) {
				// "already known, fine": PostgreSQL has aborted the transaction
			}
		}

	}

}
