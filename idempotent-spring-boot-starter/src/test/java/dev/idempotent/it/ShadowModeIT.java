package dev.idempotent.it;

import java.util.UUID;

import ch.qos.logback.classic.Level;
import dev.idempotent.claim.HitLog;
import io.micrometer.core.instrument.MeterRegistry;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.kafka.test.EmbeddedKafkaBroker;
import org.springframework.kafka.test.context.EmbeddedKafka;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Shadow mode ({@code idempotent.shadow=true}) end to end: a re-sent record is claimed, counted as a hit and logged
 * as one, and processed again, as it would be without the library; its key's claim row is written once.
 */
@SpringBootTest(classes = { ItApplication.class, ShadowModeIT.Listeners.class },
		properties = "idempotent.shadow=true")
@EmbeddedKafka(partitions = 1, topics = ShadowModeIT.TOPIC)
class ShadowModeIT {

	static final String TOPIC = "shadow.payments";

	static final String GROUP = UUID.randomUUID().toString().substring(0, 8) + "-shadow";

	@Autowired
	ItLedger ledger;

	@Autowired
	EmbeddedKafkaBroker broker;

	@Autowired
	MeterRegistry meters;

	@Autowired
	JdbcTemplate jdbc;

	@DynamicPropertySource
	static void group(DynamicPropertyRegistry registry) {
		registry.add("it.group", () -> GROUP);
		registry.add("it.topic", () -> TOPIC);
	}

	@Test
	void aDuplicateIsCountedAndLoggedAsAHitAndStillProcessed() throws Exception {
		try (LogCapture hits = new LogCapture(HitLog.LOGGER_NAME);
				KafkaTestSupport kafka = new KafkaTestSupport(this.broker.getBrokersAsString())) {
			kafka.send(TOPIC, "order-1", "credit 1");
			kafka.send(TOPIC, "order-2", "credit 2");
			kafka.send(TOPIC, "order-1", "credit 1 again");
			await().atMost(KafkaTestSupport.timeout()).until(() -> kafka.lag(GROUP, TOPIC) == 0);

			assertThat(hits.messages(Level.INFO)).singleElement()
				.satisfies((line) -> assertThat(line).contains("scope=" + GROUP).endsWith("processed (shadow mode)"));
		}
		assertThat(this.ledger.rows(GROUP, "order-1")).as("processed twice, as without the library").isEqualTo(2);
		assertThat(this.ledger.rows(GROUP, "order-2")).isOne();
		assertThat(ClaimMeters.hits(this.meters, GROUP)).as("the duplicate rate a team measures").isOne();
		assertThat(ClaimMeters.count(this.meters, GROUP, "claimed")).isEqualTo(2);
		assertThat(this.jdbc.queryForObject("SELECT COUNT(*) FROM idempotent_claim WHERE scope = ?", Integer.class,
				GROUP)).as("each key claimed once, ready for skipping").isEqualTo(2);
	}

	@Configuration(proxyBeanMethods = false)
	static class Listeners {

		@Bean
		HeaderKeyedListener paymentListener(ItLedger ledger, @Value("${it.group}") String group) {
			return new HeaderKeyedListener(ledger, group);
		}

	}

}
