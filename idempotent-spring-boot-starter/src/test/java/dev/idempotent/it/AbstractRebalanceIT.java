package dev.idempotent.it;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.UUID;

import org.junit.jupiter.api.Test;

import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.kafka.test.EmbeddedKafkaBroker;
import org.springframework.kafka.test.context.EmbeddedKafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Two consumer instances in one group, with a rebalance when the second joins mid-stream and another when the
 * first leaves: 5,000 records with duplicates, and the ledger ends with exactly one row per distinct key.
 */
@EmbeddedKafka(partitions = 4, topics = AbstractRebalanceIT.TOPIC)
abstract class AbstractRebalanceIT {

	static final String TOPIC = "rebalance.payments";

	private final ItDatabase database;

	private final ItLedger ledger;

	AbstractRebalanceIT(ItDatabase database) {
		this.database = database;
		this.ledger = new ItLedger(new JdbcTemplate(database.dataSource()));
	}

	@Test
	void ledgerRowsEqualDistinctKeysAcrossRebalances(EmbeddedKafkaBroker broker) throws Exception {
		String group = UUID.randomUUID().toString().substring(0, 8) + "-rebalance";
		List<String> records = recordsWithDuplicates(group, 4_000, 1_000);
		try (KafkaTestSupport kafka = new KafkaTestSupport(broker.getBrokersAsString())) {
			kafka.sendAll(TOPIC, records);
			ConfigurableApplicationContext first = start(kafka, group);
			try (ConfigurableApplicationContext second = awaitThenStart(kafka, group, 800)) {
				await().atMost(KafkaTestSupport.timeout()).until(() -> this.ledger.rows(group) >= 2_500);
				first.close();
				await().atMost(KafkaTestSupport.timeout()).until(() -> kafka.lag(group, TOPIC) == 0);
			}
			finally {
				first.close();
			}
		}
		assertThat(this.ledger.doubleCredits(group)).isEmpty();
		assertThat(this.ledger.distinctKeys(group)).isEqualTo(4_000);
		assertThat(this.ledger.rows(group)).isEqualTo(4_000);
	}

	private ConfigurableApplicationContext awaitThenStart(KafkaTestSupport kafka, String group, long rows) {
		await().atMost(KafkaTestSupport.timeout()).until(() -> this.ledger.rows(group) >= rows);
		return start(kafka, group);
	}

	private ConfigurableApplicationContext start(KafkaTestSupport kafka, String group) {
		// command-line arguments: they take precedence over the test application.yml (MariaDB)
		List<String> arguments = new ArrayList<>(this.database.arguments());
		arguments.addAll(List.of("--spring.main.banner-mode=off", "--spring.kafka.bootstrap-servers=" + kafka.bootstrapServers(),
				"--it.topic=" + TOPIC, "--it.group=" + group, "--spring.kafka.consumer.max-poll-records=50",
				"--spring.jmx.enabled=false"));
		return new SpringApplicationBuilder(ItApplication.class, ChildConsumer.Main.class).web(WebApplicationType.NONE)
			.run(arguments.toArray(String[]::new));
	}

	/** {@code distinct} keys, then {@code duplicates} re-sends of random earlier ones, shuffled in blocks. */
	private static List<String> recordsWithDuplicates(String group, int distinct, int duplicates) {
		Random random = new Random(7);
		List<String> records = new ArrayList<>(distinct + duplicates);
		for (int i = 0; i < distinct; i++) {
			records.add(group + "-order-" + i);
			if (i > 0 && i % 4 == 0 && records.size() - i - 1 < duplicates) {
				records.add(group + "-order-" + random.nextInt(i));
			}
		}
		while (records.size() < distinct + duplicates) {
			records.add(group + "-order-" + random.nextInt(distinct));
		}
		Collections.shuffle(records.subList(distinct / 2, records.size()), random);
		return records;
	}

}
