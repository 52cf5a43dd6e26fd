package dev.idempotent.it;

import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;

import dev.idempotent.kafka.IdempotencyHeaders;
import dev.idempotent.kafka.IdempotentListener;
import dev.idempotent.testsupport.TestDatabases;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.kafka.annotation.KafkaListener;
import org.springframework.kafka.annotation.RetryableTopic;
import org.springframework.kafka.test.EmbeddedKafkaBroker;
import org.springframework.kafka.test.context.EmbeddedKafka;
import org.springframework.messaging.handler.annotation.Header;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A {@code @RetryableTopic} listener, end to end: Spring Kafka runs the method on the retry topic
 * in the group {@code <group>-retry}. With the group id as implicit scope a record that failed once on the main
 * topic was claimed and processed in {@code <group>-retry}, and a duplicate of it on the main topic was claimed again
 * in {@code <group>} and processed twice. Now the implicit scope is refused at startup; with the declared scope the
 * duplicate is a hit.
 */
@EmbeddedKafka(partitions = 1)
abstract class AbstractRetryTopicScopesIT {

	static final String RUN = UUID.randomUUID().toString().substring(0, 8);

	static final String TABLE = "retry_scopes_" + RUN.replace('-', '_');

	abstract ItDatabase database();

	private ApplicationContextRunner runner(EmbeddedKafkaBroker broker, String group, Class<?> listeners) {
		return new ApplicationContextRunner().withUserConfiguration(ItApplication.class, listeners)
			.withPropertyValues(database().properties().toArray(String[]::new))
			.withPropertyValues("spring.kafka.consumer.auto-offset-reset=earliest", "spring.flyway.enabled=false",
					"idempotent.table-name=" + TABLE, "idempotent.jdbc.initialize-schema=always",
					"spring.kafka.bootstrap-servers=" + broker.getBrokersAsString(), "it.group=" + group);
	}

	@AfterEach
	void dropTable() {
		TestDatabases.drop(database().dataSource(), TABLE);
	}

	@Test
	void anImplicitScopeOfARetryableTopicListenerIsRefusedAtStartup(EmbeddedKafkaBroker broker) {
		String group = RUN + "-implicit";
		runner(broker, group, ImplicitScope.class).run((context) -> {
			assertThat(context).hasFailed();
			assertThat(context).getFailure()
				.hasMessageContaining(ImplicitScope.Listener.class.getName() + ".onOrder(")
				.hasMessageContaining("has retry topics")
				.hasMessageContaining("@IdempotentListener(scope = \"" + group + "\")");
		});
	}

	@Test
	void withTheDeclaredScopeADuplicateOfARecordProcessedOnTheRetryTopicIsAHit(EmbeddedKafkaBroker broker)
			throws Exception {
		String group = RUN + "-explicit";
		try (KafkaTestSupport kafka = new KafkaTestSupport(broker.getBrokersAsString())) {
			kafka.createTopics(1, group + ".orders");
			runner(broker, group, ExplicitScope.class).run((context) -> {
				assertThat(context).hasNotFailed();
				ItLedger ledger = context.getBean(ItLedger.class);
				kafka.send(group + ".orders", "order-9", "flaky");
				await().atMost(KafkaTestSupport.timeout())
					.until(() -> ledger.rows(group, "order-9") == 1);

				kafka.send(group + ".orders", "order-9", "flaky"); // a producer's duplicate
				await().atMost(KafkaTestSupport.timeout()).until(() -> kafka.lag(group, group + ".orders") == 0);
				assertThat(ledger.rows(group, "order-9")).isOne();
			});
		}
	}

	/** Fails the first attempt of each record, so that it is processed on the retry topic. */
	abstract static class FlakyListener {

		final ItLedger ledger;

		final String group;

		final AtomicInteger attempts = new AtomicInteger();

		FlakyListener(ItLedger ledger, String group) {
			this.ledger = ledger;
			this.group = group;
		}

		void process(String payload, String key) {
			if (this.attempts.incrementAndGet() == 1) {
				throw new IllegalStateException("first attempt of " + key + " fails");
			}
			this.ledger.credit(this.group, key, payload);
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class ImplicitScope {

		@Bean
		Listener implicitRetryListener(ItLedger ledger, @Value("${it.group}") String group) {
			return new Listener(ledger, group);
		}

		static class Listener extends FlakyListener {

			Listener(ItLedger ledger, String group) {
				super(ledger, group);
			}

			@RetryableTopic(attempts = "2")
			@KafkaListener(topics = "${it.group}.orders", groupId = "${it.group}")
			@IdempotentListener
			public void onOrder(String payload, @Header(IdempotencyHeaders.KEY) String key) {
				process(payload, key);
			}

		}

	}

	@Configuration(proxyBeanMethods = false)
	static class ExplicitScope {

		@Bean
		Listener explicitRetryListener(ItLedger ledger, @Value("${it.group}") String group) {
			return new Listener(ledger, group);
		}

		static class Listener extends FlakyListener {

			Listener(ItLedger ledger, String group) {
				super(ledger, group);
			}

			@RetryableTopic(attempts = "2")
			@KafkaListener(topics = "${it.group}.orders", groupId = "${it.group}")
			@IdempotentListener(scope = "${it.group}")
			public void onOrder(String payload, @Header(IdempotencyHeaders.KEY) String key) {
				process(payload, key);
			}

		}

	}

}
