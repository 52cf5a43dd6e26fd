package dev.idempotent.sample;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

import dev.idempotent.metrics.MicrometerClaimListener;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ListOffsetsResult.ListOffsetsResultInfo;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;

import org.springframework.kafka.core.KafkaAdmin;
import org.springframework.stereotype.Component;

/**
 * How far the ledger consumer got: deliveries and hits from the library's Micrometer counters, and the
 * consumer group's lag from the broker.
 */
@Component
public class ConsumerProgress {

	private final MeterRegistry meters;

	private final KafkaAdmin kafkaAdmin;

	ConsumerProgress(MeterRegistry meters, KafkaAdmin kafkaAdmin) {
		this.meters = meters;
		this.kafkaAdmin = kafkaAdmin;
	}

	/**
	 * Count deliveries to the listener: every outcome of the claim counter.
	 * @return claimed + reclaimed + hits + rejected
	 */
	public long deliveries() {
		return (long) this.meters.find(MicrometerClaimListener.CLAIMS).counters().stream().mapToDouble(Counter::count).sum();
	}

	/**
	 * Count idempotent hits.
	 * @return the hit counter
	 */
	public long hits() {
		return (long) this.meters.find(MicrometerClaimListener.CLAIMS)
			.tag("outcome", MicrometerClaimListener.HIT)
			.counters()
			.stream()
			.mapToDouble(Counter::count)
			.sum();
	}

	/**
	 * Wait until the listener has seen {@code deliveries} deliveries and the group has committed every offset.
	 * It polls the counters and the broker every 100 ms: there is no broker event to wait on.
	 * @param group the consumer group
	 * @param topic the topic
	 * @param deliveries the delivery count to reach
	 * @param timeout how long to wait at most
	 * @throws IllegalStateException on timeout
	 * @throws Exception if the broker cannot be asked
	 */
	public void awaitCaughtUp(String group, String topic, long deliveries, Duration timeout) throws Exception {
		long deadline = System.nanoTime() + timeout.toNanos();
		try (Admin admin = Admin.create(this.kafkaAdmin.getConfigurationProperties())) {
			while (deliveries() < deliveries || lag(admin, group, topic) > 0) {
				if (System.nanoTime() > deadline) {
					throw new IllegalStateException("Consumer did not catch up within " + timeout + ": deliveries="
							+ deliveries() + " of " + deliveries + ", lag=" + lag(admin, group, topic));
				}
				Thread.sleep(100);
			}
		}
	}

	private static long lag(Admin admin, String group, String topic) throws Exception {
		Map<TopicPartition, OffsetAndMetadata> committed = admin.listConsumerGroupOffsets(group)
			.partitionsToOffsetAndMetadata()
			.get();
		Map<TopicPartition, OffsetSpec> latest = admin.describeTopics(List.of(topic))
			.allTopicNames()
			.get()
			.get(topic)
			.partitions()
			.stream()
			.collect(Collectors.toMap((p) -> new TopicPartition(topic, p.partition()), (p) -> OffsetSpec.latest()));
		Map<TopicPartition, ListOffsetsResultInfo> ends = admin.listOffsets(latest).all().get();
		return ends.entrySet().stream().mapToLong((end) -> {
			OffsetAndMetadata offset = committed.get(end.getKey());
			return end.getValue().offset() - ((offset != null) ? offset.offset() : 0);
		}).sum();
	}

}
