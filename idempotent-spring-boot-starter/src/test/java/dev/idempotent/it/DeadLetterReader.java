package dev.idempotent.it;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;

import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.jspecify.annotations.Nullable;

import org.springframework.kafka.core.DefaultKafkaConsumerFactory;
import org.springframework.kafka.test.utils.KafkaTestUtils;

import static org.awaitility.Awaitility.await;

/** Reads committed records of some topics (dead-letter or output topics) from the beginning, in a group of its own. */
final class DeadLetterReader implements AutoCloseable {

	private final Consumer<String, String> consumer;

	private final List<ConsumerRecord<String, String>> records = new CopyOnWriteArrayList<>();

	DeadLetterReader(String bootstrapServers, String... topics) {
		Map<String, Object> props = KafkaTestSupport.consumerProps(bootstrapServers, "reader-" + UUID.randomUUID());
		props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
		props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
		this.consumer = new DefaultKafkaConsumerFactory<>(props, new StringDeserializer(), new StringDeserializer())
			.createConsumer();
		this.consumer.subscribe(List.of(topics));
	}

	/** Poll until a record with this value arrived, and return it. */
	ConsumerRecord<String, String> awaitValue(String value) {
		await().atMost(KafkaTestSupport.timeout()).until(() -> {
			poll();
			return find(value) != null;
		});
		return find(value);
	}

	/**
	 * Poll until this reader's position reached the end of every assigned partition (transaction markers
	 * included), and return every record read: once the producers' transactions are complete, that is all there is.
	 */
	List<ConsumerRecord<String, String>> readToEnd() {
		await().atMost(KafkaTestSupport.timeout()).until(() -> {
			poll();
			Set<TopicPartition> assigned = this.consumer.assignment();
			if (assigned.isEmpty()) {
				return false;
			}
			Map<TopicPartition, Long> ends = this.consumer.endOffsets(assigned);
			return assigned.stream().allMatch((tp) -> this.consumer.position(tp) >= ends.get(tp));
		});
		return List.copyOf(this.records);
	}

	private void poll() {
		KafkaTestUtils.getRecords(this.consumer, Duration.ofMillis(200)).forEach(this.records::add);
	}

	private @Nullable ConsumerRecord<String, String> find(String value) {
		return this.records.stream().filter((r) -> value.equals(r.value())).findFirst().orElse(null);
	}

	static String header(ConsumerRecord<?, ?> record, String name) {
		org.apache.kafka.common.header.Header header = record.headers().lastHeader(name);
		return (header != null) ? new String(header.value(), StandardCharsets.UTF_8) : "<none>";
	}

	@Override
	public void close() {
		this.consumer.close();
	}

}
