package dev.idempotent.it;

import java.util.List;
import java.util.UUID;

import dev.idempotent.kafka.GroupCommit;
import dev.idempotent.kafka.IdempotencyHeaders;
import dev.idempotent.kafka.IdempotentListener;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.kafka.annotation.KafkaListener;
import org.springframework.kafka.config.KafkaListenerEndpointRegistry;
import org.springframework.kafka.listener.CommonErrorHandler;
import org.springframework.kafka.listener.CommonLoggingErrorHandler;
import org.springframework.kafka.listener.MessageListenerContainer;
import org.springframework.kafka.test.EmbeddedKafkaBroker;
import org.springframework.kafka.test.context.EmbeddedKafka;
import org.springframework.messaging.handler.annotation.Header;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Group commit with an application error handler that handles records only (spring-kafka's
 * {@code CommonLoggingErrorHandler}, as a bean): a group fails as a batch naming its failing member, and such a handler
 * would let the container commit past the records after it. A listener that group commit serves by default
 * ({@code idempotent.group-commit.enabled=true}) therefore runs record by record: the records after a failing one in
 * the same poll are processed. One that insists ({@code groupCommit = ENABLED}) stops the application with the fix.
 */
@SpringBootTest(classes = { ItApplication.class, AbstractRecordErrorHandlerGroupCommitIT.Listeners.class },
		properties = "idempotent.group-commit.enabled=true")
@EmbeddedKafka(partitions = 1, topics = AbstractRecordErrorHandlerGroupCommitIT.TOPIC)
abstract class AbstractRecordErrorHandlerGroupCommitIT {

	static final String TOPIC = "logging-handler.payments";

	static final String RUN = UUID.randomUUID().toString().substring(0, 8);

	static final String GROUP = RUN + "-logging-handler";

	@Autowired
	ItLedger ledger;

	@Autowired
	EmbeddedKafkaBroker broker;

	@Autowired
	KafkaListenerEndpointRegistry registry;

	abstract ItDatabase database();

	@DynamicPropertySource
	static void group(DynamicPropertyRegistry registry) {
		registry.add("it.group", () -> GROUP);
	}

	@Test
	void theRecordsAfterAFailingOneInItsPollAreProcessed() throws Exception {
		List<String> keys = List.of(RUN + "-1", RUN + "-2-fails", RUN + "-3", RUN + "-4");
		try (KafkaTestSupport kafka = new KafkaTestSupport(this.broker.getBrokersAsString())) {
			kafka.sendAll(TOPIC, keys, (key) -> key.endsWith("fails") ? "fail" : "credit");
			MessageListenerContainer container = this.registry.getListenerContainer(GROUP);
			container.start(); // after the records are there: they come in one poll

			await().atMost(KafkaTestSupport.timeout()).until(() -> kafka.lag(GROUP, TOPIC) == 0);
			assertThat(keys).filteredOn((key) -> !key.endsWith("fails"))
				.allSatisfy((key) -> assertThat(this.ledger.rows(GROUP, key)).as("processed once: " + key).isOne());
			assertThat(this.ledger.rows(GROUP, RUN + "-2-fails")).isZero();
		}
	}

	@Test
	void aListenerThatInsistsOnGroupCommitStopsTheApplicationWithTheFix() {
		SpringApplicationBuilder application = new SpringApplicationBuilder(ItApplication.class, Insisting.class)
			.properties(database().properties().toArray(String[]::new))
			.properties("spring.kafka.bootstrap-servers=" + this.broker.getBrokersAsString(), "it.group=" + GROUP);
		assertThat(StartupFailure.rootCause(application)).isInstanceOf(IllegalStateException.class)
			.hasMessageContaining("groupCommit = ENABLED")
			.hasMessageContaining(CommonLoggingErrorHandler.class.getName())
			.hasMessageContaining("Use a DefaultErrorHandler");
	}

	@Configuration(proxyBeanMethods = false)
	static class Listeners {

		@Bean
		CommonErrorHandler loggingErrorHandler() {
			return new CommonLoggingErrorHandler();
		}

		@Bean
		CreditListener loggingHandlerListener(ItLedger ledger, @Value("${it.group}") String group) {
			return new CreditListener(ledger, group);
		}

	}

	static class CreditListener {

		private final ItLedger ledger;

		private final String group;

		CreditListener(ItLedger ledger, String group) {
			this.ledger = ledger;
			this.group = group;
		}

		@KafkaListener(id = "${it.group}", topics = TOPIC, groupId = "${it.group}", autoStartup = "false")
		@IdempotentListener
		public void onCredit(String payload, @Header(IdempotencyHeaders.KEY) String key) {
			this.ledger.credit(this.group, key, payload);
			if (payload.equals("fail")) {
				throw new IllegalStateException("cannot credit " + key);
			}
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class Insisting {

		@Bean
		CommonErrorHandler loggingErrorHandler() {
			return new CommonLoggingErrorHandler();
		}

		@Bean
		InsistingListener insistingListener() {
			return new InsistingListener();
		}

	}

	static class InsistingListener {

		@KafkaListener(topics = TOPIC, groupId = "${it.group}-insisting", autoStartup = "false")
		@IdempotentListener(groupCommit = GroupCommit.ENABLED)
		public void onCredit(String payload) {
		}

	}

}
