package dev.idempotent.kafka.support;

import dev.idempotent.capture.PendingReply;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.jspecify.annotations.Nullable;

import org.springframework.kafka.listener.BatchInterceptor;
import org.springframework.kafka.listener.RecordInterceptor;

/**
 * Binds the record (or, for batch listeners, the batch) about to be delivered to the consumer thread, so that
 * the idempotent listener advice can read topics, partitions, offsets, keys and headers; unbinds it afterwards.
 * It never changes or skips a record. A reply spring-kafka did not send for the record is forgotten
 * ({@link PendingReply#clear}).
 *
 * @param <K> the key type
 * @param <V> the value type
 * <p>Internal: public for the starter's other packages, not API.
 */
public final class CurrentRecordInterceptor<K, V> implements RecordInterceptor<K, V>, BatchInterceptor<K, V> {

	@Override
	public @Nullable ConsumerRecord<K, V> intercept(ConsumerRecord<K, V> record, Consumer<K, V> consumer) {
		PendingReply.clear();
		CurrentRecord.bind(record);
		return record;
	}

	@Override
	public void success(ConsumerRecord<K, V> record, Consumer<K, V> consumer) {
		PendingReply.clear(); // before an error handler or an interceptor sends anything for the record
	}

	@Override
	public void failure(ConsumerRecord<K, V> record, Exception exception, Consumer<K, V> consumer) {
		PendingReply.clear();
	}

	@Override
	public void afterRecord(ConsumerRecord<K, V> record, Consumer<K, V> consumer) {
		CurrentRecord.clear();
		PolledRecords.drop(); // taken by the advice on the poll's first record, or not wanted
		PendingReply.clear();
	}

	@Override
	public ConsumerRecords<K, V> intercept(ConsumerRecords<K, V> records, Consumer<K, V> consumer) {
		PolledRecords.drop(); // a batch asks the fast path once for its keys
		CurrentRecord.bindBatch(records);
		return records;
	}

	@Override
	public void success(ConsumerRecords<K, V> records, Consumer<K, V> consumer) {
		CurrentRecord.clearBatch();
	}

	@Override
	public void failure(ConsumerRecords<K, V> records, Exception exception, Consumer<K, V> consumer) {
		CurrentRecord.clearBatch();
	}

}
