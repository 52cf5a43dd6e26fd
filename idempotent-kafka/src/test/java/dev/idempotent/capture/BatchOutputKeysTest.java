package dev.idempotent.capture;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import dev.idempotent.claim.ClaimRequest;
import dev.idempotent.metrics.OutputMeters;
import dev.idempotent.output.OutputDeliveryException;
import dev.idempotent.output.OutputSettings;
import dev.idempotent.output.OutputStore;
import org.apache.kafka.clients.producer.BufferExhaustedException;
import org.apache.kafka.clients.producer.Callback;
import org.apache.kafka.clients.producer.MockProducer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.Serializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;

import org.springframework.kafka.KafkaException;
import org.springframework.kafka.core.DefaultKafkaProducerFactory;
import org.springframework.kafka.core.KafkaTemplate;
import org.springframework.kafka.core.ProducerPostProcessor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.mockito.Mockito.mock;

/**
 * The keys a batch listener's outputs take from their content, through spring-kafka's {@code KafkaTemplate} and the
 * starter's capture: a send the producer refuses at once, for a cause that may pass (a full buffer), rolls the claim
 * back and does not use up its key, so the output the method sends again in its place, and the same output in the
 * retry, carry one key. The producer is kafka-clients' {@link MockProducer}, made to refuse its first send after
 * serializing it, as {@code KafkaProducer} does when its buffer is full, or before, as it does when the topic's
 * metadata does not come.
 */
class BatchOutputKeysTest {

	private static final String KEY_HEADER = "idempotency-key";

	private final AtomicReference<RefusingProducer> created = new AtomicReference<>();

	private final ClaimOutputs outputs = new ClaimOutputs(mock(OutputStore.class),
			new OutputSettings(true, 1_000_000, 100, Duration.ofSeconds(5), KEY_HEADER), () -> null, OutputMeters.NONE);

	private final ClaimRequest claim = new ClaimRequest("ledger", "order-1", null);

	private final BatchOutputKeys keys = new BatchOutputKeys("ledger");

	@Test
	void anOutputSentAgainAfterARefusalTakesTheKeyItsRetryWillHave() {
		DefaultKafkaProducerFactory<String, String> factory = factory(new AtomicInteger(1), true);
		KafkaTemplate<String, String> template = new KafkaTemplate<>(factory);
		try {
			this.keys.restart();
			try (Capture first = this.outputs.begin(this.claim, true, "listener", this.keys, 2)) {
				assertThatThrownBy(() -> template.send("ledger.out", "order-1", "credited")).isInstanceOf(KafkaException.class);
				template.send("ledger.out", "order-1", "credited"); // the method catches the failure and sends again
				assertThatThrownBy(first::store).as("the claim rolls back: the refusal may pass")
					.isInstanceOf(OutputDeliveryException.class)
					.hasMessageContaining("BufferExhaustedException");
			}
			assertRetrySendsTheKeyOfTheFirstAttempt(template);
		}
		finally {
			factory.destroy();
		}
	}

	/**
	 * A record the producer refused before serializing it (no metadata within {@code max.block.ms}) and that the method
	 * sends again, the same object, takes its content key as a new record would: the placeholder that held the
	 * header's place through the producer's interceptors is gone from it.
	 */
	@Test
	void theSameRecordObjectSentAgainAfterARefusalBeforeSerializationTakesItsContentKey() {
		DefaultKafkaProducerFactory<String, String> factory = factory(new AtomicInteger(1), false);
		KafkaTemplate<String, String> template = new KafkaTemplate<>(factory);
		try {
			this.keys.restart();
			try (Capture first = this.outputs.begin(this.claim, true, "listener", this.keys, 2)) {
				ProducerRecord<String, String> record = new ProducerRecord<>("ledger.out", "order-1", "credited");
				assertThatThrownBy(() -> template.send(record)).isInstanceOf(KafkaException.class);
				assertThat(record.headers().lastHeader(KEY_HEADER)).as("no placeholder left on the record").isNull();
				template.send(record); // the method catches the failure and sends the same record again
				assertThatThrownBy(first::store).isInstanceOf(OutputDeliveryException.class);
			}
			assertRetrySendsTheKeyOfTheFirstAttempt(template);
		}
		finally {
			factory.destroy();
		}
	}

	private void assertRetrySendsTheKeyOfTheFirstAttempt(KafkaTemplate<String, String> template) {
		this.keys.restart();
		try (Capture retry = this.outputs.begin(this.claim, true, "listener", this.keys, 2)) {
			template.send("ledger.out", "order-1", "credited");
			retry.store();
		}
		List<String> sent = this.created.get().sentKeys();
		assertThat(sent).hasSize(2).doesNotContainNull();
		assertThat(sent.get(1)).as("the retry's output has the key of the one sent in the rolled back attempt")
			.isEqualTo(sent.get(0));
	}

	/** A capturing factory whose producer refuses its first sends, after serializing them or before. */
	private DefaultKafkaProducerFactory<String, String> factory(AtomicInteger refusals, boolean serializeFirst) {
		DefaultKafkaProducerFactory<String, String> factory = new DefaultKafkaProducerFactory<>(
				Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, "127.0.0.1:9"), new StringSerializer(),
				new StringSerializer()) {

			@Override
			protected Producer<String, String> createRawProducer(Map<String, Object> configs) {
				RefusingProducer raw = new RefusingProducer(getKeySerializerSupplier().get(),
						getValueSerializerSupplier().get(), refusals, serializeFirst);
				BatchOutputKeysTest.this.created.set(raw);
				Producer<String, String> producer = raw;
				for (ProducerPostProcessor<String, String> postProcessor : getPostProcessors()) {
					producer = postProcessor.apply(producer);
				}
				return producer;
			}

		};
		new ProducerCaptureInstaller(1_000_000).postProcessAfterInitialization(factory, "producerFactory");
		return factory;
	}

	/** A producer that refuses its first sends after serializing them, as a full buffer makes KafkaProducer do. */
	static final class RefusingProducer extends MockProducer<String, String> {

		private final Serializer<String> keys;

		private final Serializer<String> values;

		private final AtomicInteger refusals;

		private final boolean serializeFirst;

		RefusingProducer(Serializer<String> keys, Serializer<String> values, AtomicInteger refusals,
				boolean serializeFirst) {
			super(true, null, keys, values);
			this.keys = keys;
			this.values = values;
			this.refusals = refusals;
			this.serializeFirst = serializeFirst;
		}

		@Override
		public synchronized Future<RecordMetadata> send(ProducerRecord<String, String> record, Callback callback) {
			boolean refuse = this.refusals.getAndDecrement() > 0;
			if (refuse && !this.serializeFirst) {
				return refuse(new TimeoutException("Topic ledger.out not present in metadata after 3000 ms."), callback);
			}
			// serialized with the record's headers, as KafkaProducer does (MockProducer's own serializing does not)
			this.keys.serialize(record.topic(), record.headers(), record.key());
			this.values.serialize(record.topic(), record.headers(), record.value());
			if (refuse) {
				return refuse(new BufferExhaustedException("buffer full"), callback);
			}
			return super.send(record, callback);
		}

		private static Future<RecordMetadata> refuse(Exception failure, Callback callback) {
			if (callback != null) {
				callback.onCompletion(null, failure);
			}
			return CompletableFuture.failedFuture(failure);
		}

		/** The idempotency key headers of the records sent. */
		List<String> sentKeys() {
			return history().stream().map((record) -> {
				Header key = record.headers().lastHeader(KEY_HEADER);
				return (key != null) ? new String(key.value(), StandardCharsets.UTF_8) : null;
			}).toList();
		}

	}

}
