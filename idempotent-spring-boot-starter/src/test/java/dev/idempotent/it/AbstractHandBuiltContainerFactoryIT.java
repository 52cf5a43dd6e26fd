package dev.idempotent.it;

import java.util.List;
import java.util.UUID;

import dev.idempotent.kafka.IdempotencyHeaders;
import dev.idempotent.kafka.IdempotentListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.kafka.annotation.KafkaListener;
import org.springframework.kafka.config.ConcurrentKafkaListenerContainerFactory;
import org.springframework.kafka.core.ConsumerFactory;
import org.springframework.kafka.listener.DefaultErrorHandler;
import org.springframework.kafka.test.context.EmbeddedKafka;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.test.context.TestPropertySource;

import static dev.idempotent.testsupport.BootLine.kafkaBootstrapServers;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Listeners on container factories the application builds itself, in the shape existing services write them
 * ({@code @Bean ConcurrentKafkaListenerContainerFactory<String, String> myFactory(ConsumerFactory cf)} and
 * {@code @KafkaListener(containerFactory = "myFactory")}): Spring Boot gives its error handler only to the
 * factory it builds, yet a bad key and a record that keeps failing are dead-lettered (FAILED row, reason and key
 * headers) from these factories too, single-record and batch; a factory with an error handler the starter cannot
 * vouch for stops the application, naming it.
 */
@SpringBootTest(
		classes = { ItApplication.class, ClaimTable.class, AbstractHandBuiltContainerFactoryIT.Listeners.class })
@EmbeddedKafka(partitions = 1, topics = { AbstractHandBuiltContainerFactoryIT.SINGLE,
		AbstractHandBuiltContainerFactoryIT.SINGLE + ".DLT", AbstractHandBuiltContainerFactoryIT.BATCH,
		AbstractHandBuiltContainerFactoryIT.BATCH + ".DLT" })
@TestPropertySource(properties = { "idempotent.retry.max-retries=2",
		"idempotent.retry.interval=50ms" })
abstract class AbstractHandBuiltContainerFactoryIT {

	static final String SINGLE = "hand-built.single";

	static final String BATCH = "hand-built.batch";

	static final String RUN = UUID.randomUUID().toString().substring(0, 8);

	static final String SINGLE_GROUP = RUN + "-hand-single";

	static final String BATCH_GROUP = RUN + "-hand-batch";

	@Autowired
	ItLedger ledger;

	@Autowired
	ClaimTable claims;

	@Autowired
	BeanFactory beans;

	@DynamicPropertySource
	static void run(DynamicPropertyRegistry registry) {
		registry.add("it.run", () -> RUN);
	}

	/** The database of this run, for the applications a test starts itself. */
	abstract ItDatabase database();

	@Test
	void aBadKeyIsDeadLetteredWithItsReasonAndLaterRecordsFlow() throws Exception {
		try (KafkaTestSupport kafka = new KafkaTestSupport(bootstrapServers());
				DeadLetterReader dlt = new DeadLetterReader(bootstrapServers(), SINGLE + ".DLT")) {
			kafka.send(SINGLE, null, "single: no key");
			kafka.send(SINGLE, "single-after-bad", "credit");

			ConsumerRecord<String, String> dead = dlt.awaitValue("single: no key");
			assertThat(DeadLetterReader.header(dead, IdempotencyHeaders.REJECTION_REASON)).isEqualTo("NULL");
			await().atMost(KafkaTestSupport.timeout()).until(() -> this.ledger.rows(SINGLE_GROUP, "single-after-bad") == 1);
			await().atMost(KafkaTestSupport.timeout()).until(() -> kafka.lag(SINGLE_GROUP, SINGLE) == 0);
		}
	}

	@Test
	void aRecordThatKeepsFailingIsDeadLetteredAndMarkedFailed() throws Exception {
		try (KafkaTestSupport kafka = new KafkaTestSupport(bootstrapServers());
				DeadLetterReader dlt = new DeadLetterReader(bootstrapServers(), SINGLE + ".DLT")) {
			kafka.send(SINGLE, "single-fails", "fail");
			kafka.send(SINGLE, "single-after-failure", "credit");

			ConsumerRecord<String, String> dead = dlt.awaitValue("fail");
			assertThat(DeadLetterReader.header(dead, IdempotencyHeaders.DEAD_LETTER_SCOPE)).isEqualTo(SINGLE_GROUP);
			assertThat(DeadLetterReader.header(dead, IdempotencyHeaders.DEAD_LETTER_KEY)).isEqualTo("single-fails");
			assertThat(DeadLetterReader.header(dead, "kafka_dlt-exception-fqcn")).contains("ListenerExecutionFailedException");
			await().atMost(KafkaTestSupport.timeout()).until(() -> this.claims.status(SINGLE_GROUP, "single-fails") == 2);
			assertThat(this.claims.attempts(SINGLE_GROUP, "single-fails")).as("first attempt and two retries").isEqualTo(3);
			await().atMost(KafkaTestSupport.timeout()).until(() -> this.ledger.rows(SINGLE_GROUP, "single-after-failure") == 1);
			await().atMost(KafkaTestSupport.timeout()).until(() -> kafka.lag(SINGLE_GROUP, SINGLE) == 0);
		}
	}

	@Test
	void aBadKeyInABatchOfAHandBuiltBatchFactoryIsDeadLetteredAlone() throws Exception {
		try (KafkaTestSupport kafka = new KafkaTestSupport(bootstrapServers());
				DeadLetterReader dlt = new DeadLetterReader(bootstrapServers(), BATCH + ".DLT")) {
			kafka.send(BATCH, "batch-1", "credit 1");
			kafka.send(BATCH, "  ", "batch: blank key");
			kafka.send(BATCH, "batch-2", "credit 2");

			ConsumerRecord<String, String> dead = dlt.awaitValue("batch: blank key");
			assertThat(DeadLetterReader.header(dead, IdempotencyHeaders.REJECTION_REASON)).isEqualTo("BLANK");
			await().atMost(KafkaTestSupport.timeout())
				.until(() -> this.ledger.rows(BATCH_GROUP, "batch-1") == 1 && this.ledger.rows(BATCH_GROUP, "batch-2") == 1);
			await().atMost(KafkaTestSupport.timeout()).until(() -> kafka.lag(BATCH_GROUP, BATCH) == 0);
		}
	}

	@Test
	void aFactoryWhoseErrorHandlerDropsRecordsStopsTheApplication() {
		SpringApplicationBuilder application = new SpringApplicationBuilder(ItApplication.class, Refused.class)
			.properties(database().properties().toArray(String[]::new))
			.properties("spring.kafka.bootstrap-servers=" + bootstrapServers(), "it.run=" + RUN);
		assertThat(StartupFailure.rootCause(application)).isInstanceOf(IllegalStateException.class)
			.hasMessageContaining("Container factory 'droppingFactory' has its own error handler")
			.hasMessageContaining(DefaultErrorHandler.class.getName())
			.hasMessageContaining("IdempotentErrorHandlers");
	}

	private String bootstrapServers() {
		return kafkaBootstrapServers(this.beans);
	}

	@Configuration(proxyBeanMethods = false)
	static class Listeners {

		@Bean
		ConcurrentKafkaListenerContainerFactory<String, String> myFactory(ConsumerFactory<String, String> consumerFactory) {
			ConcurrentKafkaListenerContainerFactory<String, String> factory = new ConcurrentKafkaListenerContainerFactory<>();
			factory.setConsumerFactory(consumerFactory);
			return factory;
		}

		@Bean
		ConcurrentKafkaListenerContainerFactory<String, String> myBatchFactory(
				ConsumerFactory<String, String> consumerFactory) {
			ConcurrentKafkaListenerContainerFactory<String, String> factory = new ConcurrentKafkaListenerContainerFactory<>();
			factory.setConsumerFactory(consumerFactory);
			factory.setBatchListener(true);
			return factory;
		}

		@Bean
		SingleListener handBuiltSingleListener(ItLedger ledger) {
			return new SingleListener(ledger);
		}

		@Bean
		BatchListener handBuiltBatchListener(ItLedger ledger) {
			return new BatchListener(ledger);
		}

	}

	static class SingleListener {

		private final ItLedger ledger;

		SingleListener(ItLedger ledger) {
			this.ledger = ledger;
		}

		@KafkaListener(topics = SINGLE, groupId = "${it.run}-hand-single", containerFactory = "myFactory")
		@IdempotentListener
		public void on(ConsumerRecord<String, String> record) {
			if ("fail".equals(record.value())) {
				throw new IllegalStateException("the business rejects this record");
			}
			this.ledger.credit(SINGLE_GROUP, record.key(), record.value());
		}

	}

	static class BatchListener {

		private final ItLedger ledger;

		BatchListener(ItLedger ledger) {
			this.ledger = ledger;
		}

		@KafkaListener(topics = BATCH, groupId = "${it.run}-hand-batch", containerFactory = "myBatchFactory")
		@IdempotentListener
		public void on(List<ConsumerRecord<String, String>> records) {
			for (ConsumerRecord<String, String> record : records) {
				this.ledger.credit(BATCH_GROUP, record.key(), record.value());
			}
		}

	}

	/** A factory with spring-kafka's logging recoverer: records would be dropped after their retries. */
	@Configuration(proxyBeanMethods = false)
	static class Refused {

		@Bean
		ConcurrentKafkaListenerContainerFactory<String, String> droppingFactory(
				ConsumerFactory<String, String> consumerFactory) {
			ConcurrentKafkaListenerContainerFactory<String, String> factory = new ConcurrentKafkaListenerContainerFactory<>();
			factory.setConsumerFactory(consumerFactory);
			factory.setCommonErrorHandler(new DefaultErrorHandler());
			return factory;
		}

		@Bean
		RefusedListener refusedListener() {
			return new RefusedListener();
		}

	}

	static class RefusedListener {

		@KafkaListener(topics = SINGLE, groupId = "${it.run}-refused", containerFactory = "droppingFactory")
		@IdempotentListener
		public void on(ConsumerRecord<String, String> record) {
		}

	}

}
