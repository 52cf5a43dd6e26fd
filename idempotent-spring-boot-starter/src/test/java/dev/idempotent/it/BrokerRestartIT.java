package dev.idempotent.it;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.jdbc.core.JdbcTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The only Kafka broker is killed with SIGKILL mid-stream and started again: the consumer reconnects, replays
 * what was processed but not committed as hits, and every key takes effect exactly once.
 */
class BrokerRestartIT {

	private final ItLedger ledger = new ItLedger(new JdbcTemplate(ItDatabase.MARIADB.dataSource()));

	@Test
	void everyKeyTakesEffectOnceAcrossABrokerRestart(@TempDir Path directory) throws Exception {
		String group = UUID.randomUUID().toString().substring(0, 8) + "-broker";
		String topic = "broker.restart";
		List<String> records = new ArrayList<>();
		for (int i = 0; i < 600; i++) {
			records.add(group + "-order-" + i);
		}
		records.addAll(records.subList(0, 100));
		try (BrokerProcess broker = BrokerProcess.start(directory);
				KafkaTestSupport kafka = new KafkaTestSupport(broker.bootstrapServers())) {
			kafka.createTopics(2, topic);
			kafka.sendAll(topic, records);
			try (ConfigurableApplicationContext consumer = start(broker, topic, group)) {
				await().atMost(KafkaTestSupport.timeout()).until(() -> this.ledger.rows(group) >= 100);
				broker.kill();
				assertThat(this.ledger.rows(group)).as("killed mid-stream").isLessThan(600);
				broker.restart();
				await().atMost(KafkaTestSupport.timeout().multipliedBy(2))
					.ignoreExceptions()
					.until(() -> kafka.lag(group, topic) == 0 && this.ledger.rows(group) == 600);
			}
		}
		assertThat(this.ledger.doubleCredits(group)).isEmpty();
		assertThat(this.ledger.distinctKeys(group)).isEqualTo(600);
		assertThat(this.ledger.rows(group)).isEqualTo(600);
	}

	private static ConfigurableApplicationContext start(BrokerProcess broker, String topic, String group) {
		List<String> arguments = new ArrayList<>(ItDatabase.MARIADB.arguments());
		arguments.addAll(List.of("--spring.main.banner-mode=off", "--spring.kafka.bootstrap-servers=" + broker.bootstrapServers(),
				"--it.topic=" + topic, "--it.group=" + group, "--spring.kafka.consumer.max-poll-records=20",
				"--spring.jmx.enabled=false"));
		return new SpringApplicationBuilder(ItApplication.class, ChildConsumer.Main.class).web(WebApplicationType.NONE)
			.run(arguments.toArray(String[]::new));
	}

}
