package dev.idempotent.kafka.support;

import java.util.function.Supplier;

import dev.idempotent.capture.PendingReply;
import dev.idempotent.kafka.offset.StoredOffsets;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.jspecify.annotations.Nullable;

import org.springframework.kafka.listener.BatchInterceptor;
import org.springframework.kafka.listener.RecordInterceptor;

/**
 * Binds the record (or, for batch listeners, the batch) about to be delivered to the consumer thread, so that
 * the idempotent listener advice can read topics, partitions, offsets, keys and headers; unbinds it afterwards.
 * With offsets stored with the claims, it first skips the records {@link StoredOffsets#admit} does not admit (records
 * fetched before a seek to a partition's stored offset); otherwise it never changes or skips a record. A reply
 * spring-kafka did not send for the record is forgotten ({@link PendingReply#clear}).
 *
 * @param <K> the key type
 * @param <V> the value type
 * <p>Internal: public for the starter's other packages, not API.
 */
public final class CurrentRecordInterceptor<K, V> implements RecordInterceptor<K, V>, BatchInterceptor<K, V> {

	private final @Nullable Supplier<StoredOffsets> offsets;

	/** Create an interceptor that delivers every record. */
	public CurrentRecordInterceptor() {
		this(null);
	}

	/**
	 * Create an interceptor.
	 * @param offsets the offsets stored with the claims, which admit the records to deliver; {@code null} when offsets
	 * are not stored with the claims
	 * @since 0.1.0
	 */
	public CurrentRecordInterceptor(@Nullable Supplier<StoredOffsets> offsets) {
		this.offsets = offsets;
	}

	@Override
	public @Nullable ConsumerRecord<K, V> intercept(ConsumerRecord<K, V> record, Consumer<K, V> consumer) {
		PendingReply.clear();
		if (this.offsets != null && !this.offsets.get().admit(record, consumer)) {
			return null;
		}
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
	public @Nullable ConsumerRecords<K, V> intercept(ConsumerRecords<K, V> polled, Consumer<K, V> consumer) {
		PolledRecords.drop(); // a batch asks the fast path once for its keys
		ConsumerRecords<K, V> records = (this.offsets != null) ? this.offsets.get().admitted(polled, consumer) : polled;
		if (records.isEmpty()) {
			return null;
		}
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
