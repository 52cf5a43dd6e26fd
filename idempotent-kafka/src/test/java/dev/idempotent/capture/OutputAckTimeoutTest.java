package dev.idempotent.capture;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import dev.idempotent.claim.ClaimRequest;
import dev.idempotent.metrics.OutputMeters;
import dev.idempotent.output.OutputDeliveryException;
import dev.idempotent.output.OutputSettings;
import dev.idempotent.output.OutputStore;
import org.apache.kafka.clients.producer.MockProducer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.serialization.Serializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;

import org.springframework.kafka.core.DefaultKafkaProducerFactory;
import org.springframework.kafka.core.KafkaTemplate;
import org.springframework.kafka.core.ProducerPostProcessor;

import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.mockito.Mockito.mock;

/**
 * {@code idempotent.outputs.ack-timeout} bounds the wait for a claim's outputs even when the producer cannot deliver
 * them: its {@code flush()} waits for every record it holds (a slow or unreachable broker: up to
 * {@code delivery.timeout.ms}, two minutes by default), and the record's wait must end at the timeout all the same.
 * The producer is kafka-clients' {@link MockProducer}, made to behave as one whose broker never answers; everything
 * around it is the starter's and spring-kafka's.
 */
class OutputAckTimeoutTest {

	@Test
	void anOutputTheBrokerNeverAcknowledgesFailsTheRecordAtTheAckTimeoutNotWhenTheProducerGivesUp() throws Exception {
		CountDownLatch brokerAnswers = new CountDownLatch(1);
		DefaultKafkaProducerFactory<String, String> factory = new DefaultKafkaProducerFactory<>(
				Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, "127.0.0.1:9"), new StringSerializer(),
				new StringSerializer()) {

			@Override
			protected Producer<String, String> createRawProducer(Map<String, Object> configs) {
				Producer<String, String> producer = new UnansweredProducer(getKeySerializerSupplier().get(),
						getValueSerializerSupplier().get(), brokerAnswers);
				for (ProducerPostProcessor<String, String> postProcessor : getPostProcessors()) {
					producer = postProcessor.apply(producer); // as the factory does with the producers it creates
				}
				return producer;
			}

		};
		new ProducerCaptureInstaller(1_000_000).postProcessAfterInitialization(factory, "producerFactory");
		KafkaTemplate<String, String> template = new KafkaTemplate<>(factory);
		ClaimOutputs outputs = new ClaimOutputs(mock(OutputStore.class),
				new OutputSettings(true, 1_000_000, 100, Duration.ofMillis(300), "idempotency-key"), () -> null,
				OutputMeters.NONE);
		try (Capture capture = outputs.begin(new ClaimRequest("ledger", "order-1", null), true, "listener")) {
			template.send("ledger.out", "order-1", "credited");
			capture.store();

			assertTimeoutPreemptively(Duration.ofSeconds(10),
					() -> assertThatThrownBy(capture::awaitSent).isInstanceOf(OutputDeliveryException.class)
						.hasMessageContaining("was not acknowledged within PT0.3S (idempotent.outputs.ack-timeout)"));
		}
		finally {
			brokerAnswers.countDown();
			factory.destroy();
		}
	}

	/**
	 * A producer whose broker never answers: its records stay unacknowledged, and {@link #flush()} waits for them as
	 * {@code KafkaProducer}'s does, here until the test ends (at most a minute).
	 */
	static final class UnansweredProducer extends MockProducer<String, String> {

		private final CountDownLatch brokerAnswers;

		UnansweredProducer(Serializer<String> keys, Serializer<String> values, CountDownLatch brokerAnswers) {
			super(false, null, keys, values);
			this.brokerAnswers = brokerAnswers;
		}

		@Override
		public void flush() {
			try {
				this.brokerAnswers.await(1, TimeUnit.MINUTES);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
		}

	}

}
