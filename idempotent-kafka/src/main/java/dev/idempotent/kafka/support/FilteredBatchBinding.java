package dev.idempotent.kafka.support;

import java.util.List;

import org.apache.kafka.clients.consumer.ConsumerRecord;

import org.springframework.kafka.listener.adapter.RecordFilterStrategy;

/**
 * Decorates a container factory's {@link RecordFilterStrategy}: the records a batch keeps after filtering are
 * bound to the consumer thread ({@link CurrentRecord#bindFiltered}), so that a batch listener of payloads, which
 * receives only those, is matched to exactly their keys. spring-kafka filters after the batch interceptor has seen
 * the whole batch. It filters nothing itself.
 *
 * @param <K> the key type
 * @param <V> the value type
 */
final class FilteredBatchBinding<K, V> implements RecordFilterStrategy<K, V> {

	private final RecordFilterStrategy<K, V> delegate;

	FilteredBatchBinding(RecordFilterStrategy<K, V> delegate) {
		this.delegate = delegate;
	}

	@Override
	public boolean filter(ConsumerRecord<K, V> consumerRecord) {
		return this.delegate.filter(consumerRecord);
	}

	@Override
	public List<ConsumerRecord<K, V>> filterBatch(List<ConsumerRecord<K, V>> records) {
		List<ConsumerRecord<K, V>> kept = this.delegate.filterBatch(records);
		CurrentRecord.bindFiltered(kept);
		return kept;
	}

	@Override
	public boolean ignoreEmptyBatch() {
		return this.delegate.ignoreEmptyBatch();
	}

}
