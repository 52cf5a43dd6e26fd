package dev.idempotent.kafka;

import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.jspecify.annotations.Nullable;

import org.springframework.kafka.listener.RecordInterceptor;

/**
 * Binds the record about to be delivered to the consumer thread, so that the idempotent listener advice can
 * read its topic, partition, offset, key and headers; unbinds it after the record. It never changes or skips
 * a record.
 *
 * @param <K> the key type
 * @param <V> the value type
 */
final class RecordCapturingInterceptor<K, V> implements RecordInterceptor<K, V> {

	@Override
	public @Nullable ConsumerRecord<K, V> intercept(ConsumerRecord<K, V> record, Consumer<K, V> consumer) {
		CurrentRecord.bind(record);
		return record;
	}

	@Override
	public void afterRecord(ConsumerRecord<K, V> record, Consumer<K, V> consumer) {
		CurrentRecord.clear();
	}

}
