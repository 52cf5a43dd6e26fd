package dev.idempotent.it;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.stream.IntStream;

import dev.idempotent.testsupport.PostgreSqlStandbyCluster;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.kafka.test.EmbeddedKafkaBroker;
import org.springframework.kafka.test.condition.EmbeddedKafkaCondition;
import org.springframework.kafka.test.context.EmbeddedKafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A PostgreSQL 15 primary with a streaming standby on loopback ({@link PostgreSqlStandbyCluster}), failed over by
 * promoting the standby while an application consumes; the application reaches the database the way users do, through
 * the multi-host JDBC URL with {@code targetServerType=primary}, HikariCP replacing the broken connections.
 * <ul>
 * <li>An asynchronous standby that lacks the primary's last commits (it stopped receiving them; the primary went on
 * committing records while the consumer processed a thousand, then died): with offsets stored in the claims'
 * transactions the consumer, still running, reads the records the promoted standby lacks again and every key is
 * credited once; without, the records whose Kafka offsets were committed are lost, which is why a ledger stores its
 * offsets with its claims or replicates synchronously.</li>
 * <li>A synchronous standby, the primary killed under load with offsets in Kafka only: nothing is lost, nothing
 * doubled.</li>
 * </ul>
 */
@EmbeddedKafka(partitions = 1)
class PostgreSqlFailoverIT {

	@ParameterizedTest(name = "offsets stored with the claims: {0}")
	@ValueSource(booleans = { true, false })
	void aFailoverUnderLoadToAnAsynchronousStandbyThatLostTheLastCommits(boolean storedOffsets) throws Exception {
		EmbeddedKafkaBroker broker = EmbeddedKafkaCondition.getBroker();
		String run = UUID.randomUUID().toString().substring(0, 8);
		String topic = "failover-async-" + run;
		String group = "failover-" + run;
		try (PostgreSqlStandbyCluster cluster = PostgreSqlStandbyCluster.start(false);
				KafkaTestSupport kafka = new KafkaTestSupport(broker.getBrokersAsString())) {
			kafka.createTopics(1, topic);
			try (ConfigurableApplicationContext application = start(cluster, broker, topic, group, storedOffsets)) {
				kafka.sendAll(topic, keys(0, 20));
				awaitCredited(cluster, kafka, group, topic, 20);

				// the standby stops receiving; the primary goes on committing records and their offsets, and dies
				// while the consumer processes them
				cluster.stopStandby();
				kafka.sendAll(topic, keys(20, 1020));
				await().atMost(KafkaTestSupport.timeout()).until(() -> credited(cluster, group).size() >= 120);
				cluster.killPrimary();
				cluster.promoteStandby();
				assertThat(credited(cluster, group)).as("the promoted standby lacks every commit after it stopped")
					.isEqualTo(keys(0, 20));

				kafka.sendAll(topic, keys(1020, 1320));
				if (storedOffsets) {
					awaitCredited(cluster, kafka, group, topic, 1320);
				}
				else {
					await().atMost(KafkaTestSupport.timeout().multipliedBy(2)).untilAsserted(() -> {
						assertThat(kafka.lag(group, topic)).isZero();
						assertThat(credited(cluster, group)).containsAll(keys(1020, 1320));
					});
					List<String> credited = credited(cluster, group);
					assertThat(credited).as("each key at most once").doesNotHaveDuplicates();
					List<String> missing = keys(20, 1020).stream().filter((key) -> !credited.contains(key)).toList();
					assertThat(missing).as("offsets in Kafka only: records committed before the failover are lost")
						.isNotEmpty();
				}
			}
		}
	}

	@Test
	void aFailoverToASynchronousStandbyUnderLoadLosesNothing() throws Exception {
		EmbeddedKafkaBroker broker = EmbeddedKafkaCondition.getBroker();
		String run = UUID.randomUUID().toString().substring(0, 8);
		String topic = "failover-sync-" + run;
		String group = "failover-" + run;
		try (PostgreSqlStandbyCluster cluster = PostgreSqlStandbyCluster.start(true);
				KafkaTestSupport kafka = new KafkaTestSupport(broker.getBrokersAsString())) {
			kafka.createTopics(1, topic);
			try (ConfigurableApplicationContext application = start(cluster, broker, topic, group, false)) {
				kafka.sendAll(topic, keys(0, 3000));
				await().atMost(KafkaTestSupport.timeout()).until(() -> credited(cluster, group).size() >= 200);
				int before = credited(cluster, group).size();
				cluster.killPrimary();
				cluster.promoteStandby();
				assertThat(before).as("killed while records were being processed").isLessThan(3000);
				await().atMost(KafkaTestSupport.timeout().multipliedBy(2))
					.untilAsserted(() -> {
						assertThat(kafka.lag(group, topic)).isZero();
						assertThat(credited(cluster, group)).isEqualTo(keys(0, 3000));
					});
			}
		}
	}

	/** Wait until the first {@code count} keys are credited once each and their offsets committed. */
	private static void awaitCredited(PostgreSqlStandbyCluster cluster, KafkaTestSupport kafka, String group,
			String topic, int count) {
		await().atMost(KafkaTestSupport.timeout()).untilAsserted(() -> {
			assertThat(credited(cluster, group)).isEqualTo(keys(0, count));
			assertThat(kafka.lag(group, topic)).isZero();
		});
	}

	/** The keys credited in the group on the current primary, one entry per ledger row, sorted by key number. */
	private static List<String> credited(PostgreSqlStandbyCluster cluster, String group) throws Exception {
		List<String> keys = new ArrayList<>();
		try (Connection connection = cluster.primaryConnection(); Statement statement = connection.createStatement();
				ResultSet rs = statement.executeQuery("SELECT idem_key FROM it_ledger WHERE grp = '" + group
						+ "' ORDER BY CAST(SUBSTRING(idem_key FROM 3) AS INTEGER)")) {
			while (rs.next()) {
				keys.add(rs.getString(1));
			}
		}
		return keys;
	}

	private static List<String> keys(int from, int to) {
		return IntStream.range(from, to).mapToObj((i) -> "k-" + i).toList();
	}

	private static ConfigurableApplicationContext start(PostgreSqlStandbyCluster cluster, EmbeddedKafkaBroker broker,
			String topic, String group, boolean storedOffsets) {
		return new SpringApplicationBuilder(ItApplication.class, Listeners.class).web(WebApplicationType.NONE)
			.run("--spring.main.banner-mode=off", "--spring.jmx.enabled=false",
					"--spring.datasource.url=" + cluster.url(), "--spring.datasource.username=postgres",
					"--spring.datasource.password=", "--spring.datasource.hikari.connection-timeout=3000",
					"--spring.datasource.hikari.validation-timeout=1000",
					"--spring.kafka.bootstrap-servers=" + broker.getBrokersAsString(), "--it.topic=" + topic,
					"--it.group=" + group, "--idempotent.jdbc.initialize-schema=always",
					"--idempotent.offsets.enabled=" + storedOffsets, "--idempotent.retry.interval=200ms",
					"--idempotent.retry.transient-max-interval=1s", "--spring.kafka.consumer.max-poll-records=20");
	}

	@Configuration(proxyBeanMethods = false)
	static class Listeners {

		@Bean
		HeaderKeyedListener paymentListener(ItLedger ledger, @Value("${it.group}") String group) {
			return new HeaderKeyedListener(ledger, group);
		}

	}

}
