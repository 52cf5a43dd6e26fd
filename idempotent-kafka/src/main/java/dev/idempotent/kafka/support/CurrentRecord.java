package dev.idempotent.kafka.support;

import java.util.ArrayList;
import java.util.List;

import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.jspecify.annotations.Nullable;

/**
 * The record (or batch) being delivered on the current consumer thread, bound by
 * {@link CurrentRecordInterceptor} for the time of one listener invocation.
 * <p>Internal: public for the starter's other packages, not API.
 */
public final class CurrentRecord {

	private static final ThreadLocal<ConsumerRecord<?, ?>> current = new ThreadLocal<>();

	private static final ThreadLocal<ConsumerRecords<?, ?>> currentBatch = new ThreadLocal<>();

	private static final ThreadLocal<List<? extends ConsumerRecord<?, ?>>> filteredBatch = new ThreadLocal<>();

	private CurrentRecord() {
	}

	/**
	 * Bind the record about to be delivered to this thread, replacing any bound before.
	 * @param record the record, never {@code null}
	 */
	public static void bind(ConsumerRecord<?, ?> record) {
		current.set(record);
	}

	/** Unbind the record bound to this thread, if any. */
	public static void clear() {
		current.remove();
	}

	/**
	 * The record being delivered on this thread.
	 * @return the record, or {@code null} when none is bound (outside a delivery, or a batch delivery)
	 */
	public static @Nullable ConsumerRecord<?, ?> get() {
		return current.get();
	}

	static void bindBatch(ConsumerRecords<?, ?> records) {
		currentBatch.set(records);
		filteredBatch.remove();
	}

	/** Bind the records of the current batch that a record filter kept: the listener receives only those. */
	static void bindFiltered(List<? extends ConsumerRecord<?, ?>> records) {
		filteredBatch.set(List.copyOf(records));
	}

	static void clearBatch() {
		currentBatch.remove();
		filteredBatch.remove();
	}

	/**
	 * The batch the container polled and passes to the listener (after its batch interceptors, before any record
	 * filter): the batch its {@code Acknowledgment} indexes.
	 * @return the batch, or {@code null} outside a batch delivery
	 */
	public static @Nullable ConsumerRecords<?, ?> polledBatch() {
		return currentBatch.get();
	}

	/**
	 * The records of the batch being delivered, in the order a batch listener receives them (after the container
	 * factory's record filter, if it has one), or null.
	 */
	public static @Nullable List<ConsumerRecord<?, ?>> batch() {
		List<? extends ConsumerRecord<?, ?>> filtered = filteredBatch.get();
		if (filtered != null) {
			return new ArrayList<>(filtered);
		}
		ConsumerRecords<?, ?> records = currentBatch.get();
		if (records == null) {
			return null;
		}
		List<ConsumerRecord<?, ?>> list = new ArrayList<>(records.count());
		records.forEach(list::add);
		return list;
	}

}
