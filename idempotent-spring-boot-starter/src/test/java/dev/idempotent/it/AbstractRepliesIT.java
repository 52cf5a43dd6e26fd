package dev.idempotent.it;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import ch.qos.logback.classic.Level;
import dev.idempotent.kafka.IdempotencyHeaders;
import dev.idempotent.kafka.IdempotentListener;
import dev.idempotent.kafka.ListenerReplies;
import dev.idempotent.testsupport.TestDatabases;
import io.micrometer.core.instrument.MeterRegistry;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.kafka.annotation.KafkaListener;
import org.springframework.kafka.core.DefaultKafkaConsumerFactory;
import org.springframework.kafka.test.EmbeddedKafkaBroker;
import org.springframework.kafka.test.context.EmbeddedKafka;
import org.springframework.kafka.test.utils.KafkaTestUtils;
import org.springframework.messaging.handler.annotation.Header;
import org.springframework.messaging.handler.annotation.SendTo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A {@code @SendTo} listener accepted with {@code idempotent.replies=warn}, end to end (issue 11, bug 7): the first
 * delivery of a request is processed once and replied to; the WARN at startup says what a hit does, and a
 * redelivered request is a hit that sends no reply (until outputs are stored with the claim).
 */
@EmbeddedKafka(partitions = 1)
abstract class AbstractRepliesIT {

	static final String RUN = UUID.randomUUID().toString().substring(0, 8);

	static final String TABLE = "replies_" + RUN.replace('-', '_');

	abstract ItDatabase database();

	@AfterEach
	void dropTable() {
		TestDatabases.drop(database().dataSource(), TABLE);
	}

	@Test
	void inWarnModeTheFirstDeliveryIsProcessedOnceAndRepliedTo(EmbeddedKafkaBroker broker) throws Exception {
		String group = RUN + "-replies";
		ApplicationContextRunner runner = new ApplicationContextRunner()
			.withUserConfiguration(ItApplication.class, ReplyingListener.class)
			.withPropertyValues(database().properties().toArray(String[]::new))
			.withPropertyValues("spring.kafka.consumer.auto-offset-reset=earliest", "spring.flyway.enabled=false",
					"idempotent.table-name=" + TABLE, "idempotent.jdbc.initialize-schema=always",
					"spring.kafka.bootstrap-servers=" + broker.getBrokersAsString(), "it.group=" + group,
					"idempotent.replies=warn");
		try (KafkaTestSupport kafka = new KafkaTestSupport(broker.getBrokersAsString());
				Consumer<String, String> replies = consumer(broker, group + "-reader");
				LogCapture log = new LogCapture(ListenerReplies.class.getName())) {
			kafka.createTopics(1, group + ".requests", group + ".replies");
			kafka.send(group + ".requests", "request-1", "hello");
			runner.run((context) -> {
				assertThat(context).hasNotFailed();
				assertThat(log.messages(Level.WARN)).singleElement()
					.asString()
					.contains(ReplyingListener.Listener.class.getName() + ".onRequest(java.lang.String,java.lang.String)"
							+ " replies (@SendTo), but a hit does not call the method");
				ItLedger ledger = context.getBean(ItLedger.class);
				replies.subscribe(List.of(group + ".replies"));
				List<ConsumerRecord<String, String>> received = new ArrayList<>();
				await().atMost(KafkaTestSupport.timeout()).until(() -> {
					KafkaTestUtils.getRecords(replies, Duration.ofMillis(200)).forEach(received::add);
					return !received.isEmpty();
				});
				assertThat(received).singleElement().extracting(ConsumerRecord::value).isEqualTo("reply to hello");
				assertThat(ledger.rows(group, "request-1")).isOne();

				kafka.send(group + ".requests", "request-1", "hello");
				MeterRegistry meters = context.getBean(MeterRegistry.class);
				await().atMost(KafkaTestSupport.timeout()).until(() -> ClaimMeters.hits(meters, group) == 1);
				await().atMost(KafkaTestSupport.timeout()).until(() -> kafka.lag(group, group + ".requests") == 0);
				KafkaTestUtils.getRecords(replies, Duration.ofMillis(500)).forEach(received::add);
				assertThat(received).as("a hit sends no reply").hasSize(1);
				assertThat(ledger.rows(group, "request-1")).isOne();
			});
		}
	}

	private static Consumer<String, String> consumer(EmbeddedKafkaBroker broker, String group) {
		Map<String, Object> props = KafkaTestUtils.consumerProps(broker.getBrokersAsString(), group, false);
		props.put("auto.offset.reset", "earliest");
		return new DefaultKafkaConsumerFactory<>(props, new StringDeserializer(), new StringDeserializer())
			.createConsumer();
	}

	@Configuration(proxyBeanMethods = false)
	static class ReplyingListener {

		@Bean
		Listener replyingListener(ItLedger ledger, @Value("${it.group}") String group) {
			return new Listener(ledger, group);
		}

		static class Listener {

			private final ItLedger ledger;

			private final String group;

			Listener(ItLedger ledger, String group) {
				this.ledger = ledger;
				this.group = group;
			}

			@KafkaListener(topics = "${it.group}.requests", groupId = "${it.group}")
			@SendTo("${it.group}.replies")
			@IdempotentListener
			public String onRequest(String payload, @Header(IdempotencyHeaders.KEY) String key) {
				this.ledger.credit(this.group, key, payload);
				return "reply to " + payload;
			}

		}

	}

}
