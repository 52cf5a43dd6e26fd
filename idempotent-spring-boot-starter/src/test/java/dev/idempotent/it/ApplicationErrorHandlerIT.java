package dev.idempotent.it;

import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;

import dev.idempotent.kafka.IdempotentListener;
import dev.idempotent.key.InvalidIdempotencyKeyException;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.kafka.annotation.KafkaListener;
import org.springframework.kafka.listener.CommonErrorHandler;
import org.springframework.kafka.listener.DefaultErrorHandler;
import org.springframework.kafka.test.EmbeddedKafkaBroker;
import org.springframework.kafka.test.context.EmbeddedKafka;
import org.springframework.util.backoff.FixedBackOff;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The application brings its own {@code DefaultErrorHandler}: the starter's steps aside, yet a bad key is still
 * not retried (the application's handler would otherwise retry it five times), and good records flow; startup names
 * the handler as built without the starter's {@code IdempotentErrorHandlers}.
 */
@SpringBootTest(classes = { ItApplication.class, ApplicationErrorHandlerIT.Listeners.class })
@EmbeddedKafka(partitions = 1, topics = ApplicationErrorHandlerIT.TOPIC)
@ExtendWith(OutputCaptureExtension.class)
class ApplicationErrorHandlerIT {

	static final String TOPIC = "own-handler.payments";

	static final String GROUP = UUID.randomUUID().toString().substring(0, 8) + "-own-handler";

	static final List<String> recovered = new CopyOnWriteArrayList<>();

	static final List<String> failedAttempts = new CopyOnWriteArrayList<>();

	@Autowired
	ItLedger ledger;

	@Autowired
	EmbeddedKafkaBroker broker;

	@Autowired
	CommonErrorHandler errorHandler;

	@org.springframework.test.context.DynamicPropertySource
	static void group(org.springframework.test.context.DynamicPropertyRegistry registry) {
		registry.add("it.group", () -> GROUP);
	}

	@Test
	void aHandlerBuiltWithoutTheStartersPiecesIsNamedAtStartup(CapturedOutput output) {
		assertThat(output.getAll()).contains("Container factory 'kafkaListenerContainerFactory' uses the application's"
				+ " error handler (" + OwnHandler.class.getName() + "), built without IdempotentErrorHandlers")
			.contains("docs/adopting.md");
	}

	@Test
	void withStoredOffsetsAHandlerBuiltWithoutTheStartersPiecesStopsTheApplication() {
		SpringApplicationBuilder application = new SpringApplicationBuilder(ItApplication.class, Listeners.class)
			.properties("spring.kafka.bootstrap-servers=" + this.broker.getBrokersAsString(), "it.group=" + GROUP,
					"idempotent.offsets.enabled=true", "idempotent.jdbc.initialize-schema=always",
					"spring.main.web-application-type=none");
		assertThat(StartupFailure.rootCause(application)).isInstanceOf(IllegalStateException.class)
			.hasMessageContaining("Container factory 'kafkaListenerContainerFactory' uses an error handler ("
					+ OwnHandler.class.getName() + ") not built with IdempotentErrorHandlers, which"
					+ " idempotent.offsets.enabled=true needs");
	}

	@Test
	void aBadKeyIsRecoveredAtOnceByTheApplicationsHandler() throws Exception {
		assertThat(this.errorHandler).isInstanceOf(OwnHandler.class);
		try (KafkaTestSupport kafka = new KafkaTestSupport(this.broker.getBrokersAsString())) {
			kafka.send(TOPIC, null, "no key");
			kafka.send(TOPIC, "order-1", "credit 1");
			await().atMost(KafkaTestSupport.timeout()).until(() -> kafka.lag(GROUP, TOPIC) == 0);
		}
		assertThat(recovered).containsExactly("no key");
		assertThat(failedAttempts).as("one attempt, no retries").containsExactly("no key");
		assertThat(this.ledger.rows(GROUP, "order-1")).isOne();
	}

	/** The application's own handler: five quick retries, then a recoverer that remembers the record. */
	static class OwnHandler extends DefaultErrorHandler {

		OwnHandler() {
			super((record, ex) -> recovered.add(String.valueOf(record.value())), new FixedBackOff(0, 5));
			setRetryListeners((record, ex, attempt) -> {
				if (ex.getCause() instanceof InvalidIdempotencyKeyException) {
					failedAttempts.add(String.valueOf(record.value()));
				}
			});
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class Listeners {

		@Bean
		OwnHandler ownErrorHandler() {
			return new OwnHandler();
		}

		@Bean
		HeaderListener headerListener(ItLedger ledger) {
			return new HeaderListener(ledger);
		}

	}

	static class HeaderListener {

		private final ItLedger ledger;

		HeaderListener(ItLedger ledger) {
			this.ledger = ledger;
		}

		@KafkaListener(topics = TOPIC, groupId = "${it.group}")
		@IdempotentListener
		public void onPayment(ConsumerRecord<String, String> record) {
			this.ledger.credit(GROUP, record.key(), record.value());
		}

	}

}
