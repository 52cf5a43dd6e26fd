package dev.idempotent.it;

import java.util.UUID;

import dev.idempotent.claim.TransactionalClaimExecutor;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.ApplicationContext;
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
 * The off switch ({@code idempotent.enabled=false}): no bean of the library exists, an {@code @IdempotentListener}
 * method runs as a plain listener (a re-sent record is processed again), and the idempotency table is neither
 * created nor checked.
 */
@SpringBootTest(classes = { ItApplication.class, LibraryOffIT.Listeners.class },
		properties = { "idempotent.enabled=false", "idempotent.table-name=" + LibraryOffIT.TABLE })
@EmbeddedKafka(partitions = 1, topics = LibraryOffIT.TOPIC)
class LibraryOffIT {

	static final String TOPIC = "off.payments";

	static final String TABLE = "idempotent_claim_never_created";

	static final String GROUP = UUID.randomUUID().toString().substring(0, 8) + "-off";

	@Autowired
	ItLedger ledger;

	@Autowired
	EmbeddedKafkaBroker broker;

	@Autowired
	ApplicationContext context;

	@Autowired
	JdbcTemplate jdbc;

	@DynamicPropertySource
	static void group(DynamicPropertyRegistry registry) {
		registry.add("it.group", () -> GROUP);
		registry.add("it.topic", () -> TOPIC);
	}

	@Test
	void theListenerRunsAsWithoutTheLibrary() throws Exception {
		assertThat(this.context.getBeanNamesForType(TransactionalClaimExecutor.class)).isEmpty();
		assertThat(this.context.getBeanDefinitionNames()).noneMatch((name) -> name.startsWith("idempotent"));
		try (KafkaTestSupport kafka = new KafkaTestSupport(this.broker.getBrokersAsString())) {
			kafka.send(TOPIC, "order-1", "credit 1");
			kafka.send(TOPIC, "order-1", "credit 1 again");
			await().atMost(KafkaTestSupport.timeout()).until(() -> kafka.lag(GROUP, TOPIC) == 0);
		}
		assertThat(this.ledger.rows(GROUP, "order-1")).as("processed twice: nothing is claimed").isEqualTo(2);
		assertThat(this.jdbc.queryForObject("SELECT COUNT(*) FROM information_schema.tables WHERE table_name = ?",
				Integer.class, TABLE)).as("the table is not created").isZero();
	}

	@Configuration(proxyBeanMethods = false)
	static class Listeners {

		@Bean
		HeaderKeyedListener paymentListener(ItLedger ledger, @Value("${it.group}") String group) {
			return new HeaderKeyedListener(ledger, group);
		}

	}

}
