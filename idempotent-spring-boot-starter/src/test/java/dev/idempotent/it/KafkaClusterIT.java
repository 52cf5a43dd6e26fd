package dev.idempotent.it;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.jdbc.core.JdbcTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A three-broker KRaft cluster, each broker also a controller, started as three JVMs on loopback
 * ({@link BrokerProcess#startCluster}); the topic has 3 partitions replicated to 3 brokers with
 * {@code min.insync.replicas=2}, the producer sends with {@code acks=all}. One broker is killed with SIGKILL while the
 * application consumes and the producer sends, and started again later: every key is credited once and none is
 * missing, with offsets in Kafka only and with offsets stored in the claims' transactions.
 */
class KafkaClusterIT {

	private static final int RECORDS = 1500;

	private final ItLedger ledger = new ItLedger(new JdbcTemplate(ItDatabase.MARIADB.dataSource()));

	@ParameterizedTest(name = "offsets stored with the claims: {0}")
	@ValueSource(booleans = { false, true })
	void aBrokerKilledUnderLoadLosesAndDoublesNothing(boolean storedOffsets, @TempDir Path directory) throws Exception {
		String group = UUID.randomUUID().toString().substring(0, 8) + "-cluster";
		String topic = "cluster.payments";
		List<BrokerProcess> brokers = BrokerProcess.startCluster(directory, 3);
		String bootstrapServers = brokers.stream().map(BrokerProcess::bootstrapServers).collect(Collectors.joining(","));
		try (KafkaTestSupport kafka = new KafkaTestSupport(bootstrapServers)) {
			kafka.createTopics(3, (short) 3, topic);
			try (ConfigurableApplicationContext consumer = start(bootstrapServers, topic, group, storedOffsets)) {
				kafka.sendAll(topic, keys(group, 0, RECORDS / 3));
				await().atMost(KafkaTestSupport.timeout()).until(() -> this.ledger.rows(group) >= 100);
				brokers.get(0).kill();
				assertThat(this.ledger.rows(group)).as("killed mid-stream").isLessThan(RECORDS / 3);
				kafka.sendAll(topic, keys(group, RECORDS / 3, 2 * RECORDS / 3));
				await().atMost(KafkaTestSupport.timeout()).until(() -> this.ledger.rows(group) >= RECORDS / 2);
				brokers.get(0).restart();
				kafka.sendAll(topic, keys(group, 2 * RECORDS / 3, RECORDS));
				await().atMost(KafkaTestSupport.timeout().multipliedBy(2))
					.ignoreExceptions()
					.until(() -> kafka.lag(group, topic) == 0 && this.ledger.distinctKeys(group) == RECORDS);
			}
		}
		finally {
			for (BrokerProcess broker : brokers) {
				broker.close();
			}
		}
		assertThat(this.ledger.doubleCredits(group)).isEmpty();
		assertThat(this.ledger.rows(group)).isEqualTo(RECORDS);
	}

	private static List<String> keys(String group, int from, int to) {
		return IntStream.range(from, to).mapToObj((i) -> group + "-order-" + i).toList();
	}

	private static ConfigurableApplicationContext start(String bootstrapServers, String topic, String group,
			boolean storedOffsets) {
		List<String> arguments = new ArrayList<>(ItDatabase.MARIADB.arguments());
		arguments.addAll(List.of("--spring.main.banner-mode=off", "--spring.kafka.bootstrap-servers=" + bootstrapServers,
				"--it.topic=" + topic, "--it.group=" + group, "--spring.kafka.consumer.max-poll-records=20",
				"--spring.kafka.listener.concurrency=3", "--spring.jmx.enabled=false",
				"--idempotent.jdbc.initialize-schema=always", "--idempotent.offsets.enabled=" + storedOffsets));
		return new SpringApplicationBuilder(ItApplication.class, ChildConsumer.Main.class).web(WebApplicationType.NONE)
			.run(arguments.toArray(String[]::new));
	}

}
