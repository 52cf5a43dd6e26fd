package dev.idempotent.claim;

import java.util.Objects;

/**
 * Where a claimed delivery came from: a Kafka topic-partition and offset. Stored with the claim for
 * forensics only; it never takes part in deduplication.
 *
 * @param topic the topic, never {@code null}
 * @param partition the partition number, 0 or more
 * @param offset the offset of the record in its partition, 0 or more
 * @since 0.1.0
 */
public record DeliverySource(String topic, int partition, long offset) {

	/**
	 * Create a source.
	 * @throws NullPointerException if {@code topic} is {@code null}
	 */
	public DeliverySource {
		Objects.requireNonNull(topic, "topic must not be null");
	}

	@Override
	public String toString() {
		return this.topic + "-" + this.partition + "@" + this.offset;
	}

}
