package dev.idempotent.it;

import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;

import dev.idempotent.kafka.IdempotentListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.kafka.annotation.KafkaListener;
import org.springframework.kafka.config.ConcurrentKafkaListenerContainerFactory;
import org.springframework.kafka.core.ConsumerFactory;
import org.springframework.kafka.listener.ContainerProperties.AckMode;
import org.springframework.kafka.support.Acknowledgment;
import org.springframework.kafka.test.EmbeddedKafkaBroker;
import org.springframework.kafka.test.context.EmbeddedKafka;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import static dev.idempotent.testsupport.BootLine.bootConfiguredFactory;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A listener that acknowledges by hand, in {@code MANUAL_IMMEDIATE} mode: its {@code acknowledge()} inside the
 * transaction does not commit the offset (that happens after the database commit), and hits, whose method does
 * not run, are acknowledged for it.
 */
@SpringBootTest(classes = { ItApplication.class, AcknowledgmentIT.Listeners.class })
@EmbeddedKafka(partitions = 1, topics = AcknowledgmentIT.TOPIC)
class AcknowledgmentIT {

	static final String TOPIC = "ack.payments";

	static final String RUN = UUID.randomUUID().toString().substring(0, 8);

	static final String GROUP = RUN + "-ack";

	/** The group's committed offset, as seen from inside the listener right after it acknowledged. */
	static final List<Long> committedInsideTheTransaction = new CopyOnWriteArrayList<>();

	static KafkaTestSupport kafka;

	@Autowired
	ItLedger ledger;

	@Autowired
	EmbeddedKafkaBroker broker;

	@DynamicPropertySource
	static void run(DynamicPropertyRegistry registry) {
		registry.add("it.run", () -> RUN);
	}

	@Test
	void theOffsetIsCommittedAfterTheTransactionAndHitsAreAcknowledgedToo() throws Exception {
		try (KafkaTestSupport support = new KafkaTestSupport(this.broker.getBrokersAsString())) {
			kafka = support;
			support.send(TOPIC, "order-1", "credit 1");
			support.send(TOPIC, "order-1", "credit 1 again");
			support.send(TOPIC, "order-2", "credit 2");
			await().atMost(KafkaTestSupport.timeout()).until(() -> support.lag(GROUP, TOPIC) == 0);
		}
		assertThat(committedInsideTheTransaction).as("nothing committed while the listener ran").containsExactly(-1L, 2L);
		assertThat(this.ledger.rows(GROUP)).isEqualTo(2);
	}

	@Configuration(proxyBeanMethods = false)
	static class Listeners {

		@Bean
		ConcurrentKafkaListenerContainerFactory<Object, Object> manualAckFactory(
				BeanFactory beans, ConsumerFactory<Object, Object> consumers) {
			ConcurrentKafkaListenerContainerFactory<Object, Object> factory = bootConfiguredFactory(beans, consumers);
			factory.getContainerProperties().setAckMode(AckMode.MANUAL_IMMEDIATE);
			return factory;
		}

		@Bean
		AcknowledgingListener acknowledgingListener(ItLedger ledger) {
			return new AcknowledgingListener(ledger);
		}

	}

	static class AcknowledgingListener {

		private final ItLedger ledger;

		AcknowledgingListener(ItLedger ledger) {
			this.ledger = ledger;
		}

		@KafkaListener(topics = TOPIC, groupId = "${it.run}-ack", containerFactory = "manualAckFactory")
		@IdempotentListener
		public void onPayment(ConsumerRecord<String, String> record, Acknowledgment acknowledgment) throws Exception {
			this.ledger.credit(GROUP, record.key(), record.value());
			acknowledgment.acknowledge();
			committedInsideTheTransaction.add(kafka.committedOffset(GROUP, new TopicPartition(TOPIC, 0)));
		}

	}

}
