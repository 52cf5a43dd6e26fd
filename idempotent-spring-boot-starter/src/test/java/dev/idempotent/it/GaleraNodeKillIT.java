package dev.idempotent.it;

import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.stream.IntStream;

import javax.sql.DataSource;

import dev.idempotent.testsupport.GaleraCluster;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.kafka.test.EmbeddedKafkaBroker;
import org.springframework.kafka.test.condition.EmbeddedKafkaCondition;
import org.springframework.kafka.test.context.EmbeddedKafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Two application instances in one consumer group, each connected to a different node of a three-node MariaDB Galera
 * cluster ({@link GaleraCluster}) through mariadb-java-client's sequential failover URL, the way an application lists
 * the cluster's nodes; one node is killed with SIGKILL while they process records, and its instance's connections go
 * to the next node of its URL: every key credited once, none missing, readable on every node once the killed node is
 * back.
 */
@EmbeddedKafka(partitions = 2)
class GaleraNodeKillIT {

	private static final int RECORDS = 2000;

	private static final String BULK_OFF = "?useBulkStmts=false&useBulkStmtsForInserts=false";

	@Test
	void aNodeKilledUnderLoadLosesAndDoublesNothing() throws Exception {
		GaleraCluster cluster = GaleraCluster.shared();
		EmbeddedKafkaBroker broker = EmbeddedKafkaCondition.getBroker();
		String run = UUID.randomUUID().toString().substring(0, 8);
		String topic = "galera-kill-" + run;
		String group = "galera-kill-" + run;
		ItLedger ledger = new ItLedger(new JdbcTemplate(cluster.checkingDataSource(1)));
		List<String> keys = IntStream.range(0, RECORDS).mapToObj((i) -> run + "-order-" + i).toList();
		try (KafkaTestSupport kafka = new KafkaTestSupport(broker.getBrokersAsString())) {
			kafka.createTopics(2, topic);
			List<ConfigurableApplicationContext> instances = new ArrayList<>();
			try {
				instances.add(start(broker, cluster.failoverUrl(0, 2) + BULK_OFF, topic, group));
				instances.add(start(broker, cluster.failoverUrl(1, 2) + BULK_OFF, topic, group));
				kafka.sendAll(topic, keys);
				await().atMost(KafkaTestSupport.timeout()).until(() -> ledger.rows(group) >= RECORDS / 5);
				cluster.kill(0);
				assertThat(ledger.rows(group)).as("killed mid-stream").isLessThan(RECORDS);
				await().atMost(KafkaTestSupport.timeout().multipliedBy(3))
					.ignoreExceptions()
					.until(() -> kafka.lag(group, topic) == 0 && ledger.distinctKeys(group) == RECORDS);
				Integer port = new JdbcTemplate(instances.get(0).getBean(DataSource.class))
					.queryForObject("SELECT @@port", Integer.class);
				assertThat(cluster.url(2)).as("the first instance failed over to the next node of its URL")
					.contains("127.0.0.1:" + port + "/");
			}
			finally {
				instances.forEach(ConfigurableApplicationContext::close);
				cluster.restart(0);
			}
		}
		assertThat(ledger.doubleCredits(group)).isEmpty();
		assertThat(ledger.rows(group)).isEqualTo(RECORDS);
		ItLedger rejoined = new ItLedger(new JdbcTemplate(cluster.checkingDataSource(0)));
		assertThat(rejoined.rows(group)).as("on the node that was killed, once back").isEqualTo(RECORDS);
	}

	private static ConfigurableApplicationContext start(EmbeddedKafkaBroker broker, String url, String topic,
			String group) {
		return new SpringApplicationBuilder(ItApplication.class, Listeners.class).web(WebApplicationType.NONE)
			.run("--spring.main.banner-mode=off", "--spring.jmx.enabled=false", "--spring.datasource.url=" + url,
					"--spring.datasource.username=root", "--spring.datasource.password=",
					"--spring.datasource.hikari.connection-timeout=5000",
					"--spring.kafka.bootstrap-servers=" + broker.getBrokersAsString(), "--it.topic=" + topic,
					"--it.group=" + group, "--idempotent.jdbc.initialize-schema=always",
					"--idempotent.retry.interval=200ms", "--idempotent.retry.transient-max-interval=1s",
					"--spring.kafka.consumer.max-poll-records=50");
	}

	@Configuration(proxyBeanMethods = false)
	static class Listeners {

		@Bean
		HeaderKeyedListener paymentListener(ItLedger ledger, @Value("${it.group}") String group) {
			return new HeaderKeyedListener(ledger, group);
		}

	}

}
