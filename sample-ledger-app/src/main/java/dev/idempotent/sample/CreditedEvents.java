package dev.idempotent.sample;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.UUID;

import dev.idempotent.kafka.IdempotencyHeaders;
import dev.idempotent.kafka.IdempotentListener;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;

import org.springframework.kafka.core.ConsumerFactory;
import org.springframework.stereotype.Component;

/**
 * Reads the ledger-credited topic from its beginning, as a {@code read_committed} downstream consumer would, and
 * counts one run's events: the distinct orders published, and the orders published under more than one idempotency
 * key (which a downstream {@code @IdempotentListener} would process twice). Without Kafka transactions the listener's
 * outputs are at least once: a hit sends the stored event again, with the same key, so records outnumber orders.
 */
@Component
public class CreditedEvents {

	private static final Duration POLL = Duration.ofMillis(200);

	private final ConsumerFactory<String, String> consumers;

	@SuppressWarnings("unchecked")
	CreditedEvents(ConsumerFactory<?, ?> consumers) {
		this.consumers = (ConsumerFactory<String, String>) consumers;
	}

	/**
	 * Count a run's events on the topic, up to its end offsets when called.
	 * @param topic the ledger-credited topic
	 * @param runId the run's order id prefix
	 * @param timeout how long to read at most
	 * @return the counts
	 * @throws IllegalStateException if the end offsets were not reached in time
	 */
	public Counts count(String topic, String runId, Duration timeout) {
		Properties overrides = new Properties();
		overrides.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
		overrides.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
		String prefix = "ORD-" + runId + "-";
		Map<String, Set<String>> keysByOrder = new HashMap<>();
		long records = 0;
		try (Consumer<String, String> consumer = this.consumers.createConsumer("reconciliation-" + UUID.randomUUID(),
				"reconciliation", null, overrides)) {
			List<TopicPartition> partitions = consumer.partitionsFor(topic, timeout)
				.stream()
				.map((info) -> new TopicPartition(topic, info.partition()))
				.toList();
			consumer.assign(partitions);
			consumer.seekToBeginning(partitions);
			Map<TopicPartition, Long> end = consumer.endOffsets(partitions, timeout);
			long deadline = System.nanoTime() + timeout.toNanos();
			while (!reached(consumer, end)) {
				if (System.nanoTime() > deadline) {
					throw new IllegalStateException("The " + topic + " topic was not read to its end within " + timeout);
				}
				for (ConsumerRecord<String, String> record : consumer.poll(POLL)) {
					if (record.key() != null && record.key().startsWith(prefix)) {
						records++;
						keysByOrder.computeIfAbsent(record.key(), (order) -> new HashSet<>()).add(idempotencyKey(record));
					}
				}
			}
		}
		long doubles = keysByOrder.values().stream().filter((keys) -> keys.size() > 1).count();
		return new Counts(keysByOrder.size(), records, doubles);
	}

	private static boolean reached(Consumer<String, String> consumer, Map<TopicPartition, Long> end) {
		return end.entrySet().stream().allMatch((entry) -> consumer.position(entry.getKey()) >= entry.getValue());
	}

	private static String idempotencyKey(ConsumerRecord<String, String> record) {
		Header header = record.headers().lastHeader(IdempotencyHeaders.KEY);
		return (header != null && header.value() != null) ? new String(header.value(), StandardCharsets.UTF_8) : "";
	}

	/**
	 * A run's events on the ledger-credited topic.
	 *
	 * @param orders distinct orders published
	 * @param records records of the run (a hit's re-send included)
	 * @param doubles orders published under more than one idempotency key
	 */
	public record Counts(long orders, long records, long doubles) {
	}

}
